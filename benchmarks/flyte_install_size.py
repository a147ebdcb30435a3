"""Size of ``pip install flytekitplugins-accelerators`` (no [bench]) beside flytekit's own.

    python benchmarks/flyte_install_size.py            # flytekit alone, then the plugin
    python benchmarks/flyte_install_size.py --bench    # and the plugin with [bench] (CPU torch)

Builds the core's and the Flyte plugin's wheels (hatchling, offline), then installs into fresh
venvs in a temporary folder, each with ``requirements/dev-cpu.lock`` as constraints (so that
flytekit and every shared dependency are the same versions in each venv):

* ``flytekit``: flytekit alone, the floor any Flyte image has;
* ``plugin``: the plugin's wheel and the core's wheel, no extra: what an image that only
  registers or serialises workflows installs;
* ``plugin[bench]`` (``--bench``): with the gate's benchmark (torch, matplotlib, NVML); torch
  from the CPU build the lock pins (the CUDA build adds the nvidia-* libraries: see
  benchmarks/install_size.py).

pip uses the machine's configuration (indexes, find-links) and its caches, so the times are
not a cold install's; the sizes do not depend on it. Prints per venv: its size on disk, its
distributions, how many are torch/triton/nvidia-*/cuda-*, the pip time; then plugin/flytekit.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from install_size import build_wheel, dir_size  # noqa: E402  (the same helpers)

LOCK = ROOT / "requirements" / "dev-cpu.lock"
_HEAVY = re.compile(r"^(torch|triton|nvidia-(?!ml-py$)[a-z0-9-]+|cuda-[a-z0-9-]+)$")


def measure(label: str, requirements: list[str], workdir: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv = workdir / f"venv-{re.sub(r'[^a-z]+', '-', label)}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    start = time.perf_counter()
    proc = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-input",
            "-c",
            str(LOCK),
            *requirements,
        ],
        env=env,
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{label}: pip install failed:\n{proc.stderr[-3000:]}")
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    dists = [line.split("==")[0].lower() for line in listed.stdout.split()]
    return {
        "label": label,
        "bytes": dir_size(venv),
        "dists": len(dists),
        "heavy": sorted(d for d in dists if _HEAVY.match(d)),
        "seconds": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", action="store_true", help="also the plugin with [bench]")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="flyte-install-size-") as tmp:
        workdir = Path(tmp)
        core = build_wheel(ROOT, workdir)
        plugin = build_wheel(ROOT / "plugins" / "flyte", workdir)
        runs = [
            ("flytekit", ["flytekit"]),
            ("plugin", [str(core), str(plugin)]),
        ]
        if args.bench:
            runs.append(("plugin[bench]", [f"{core}[bench]", f"{plugin}[bench]"]))
        results = {}
        for label, requirements in runs:
            result = measure(label, requirements, workdir)
            results[label] = result
            heavy = result["heavy"]
            print(
                f"{label:14} {result['bytes'] / 1e6:8.0f} MB  {result['dists']:3} dists  "
                f"torch/nvidia: {len(heavy) if heavy else 'none'}  "  # type: ignore[arg-type]
                f"pip {result['seconds']:.0f} s",
                flush=True,
            )
    base, ours = results["flytekit"], results["plugin"]
    print(
        f"plugin/flytekit: size {ours['bytes'] / base['bytes']:.3f}, "  # type: ignore[operator]
        f"+{(ours['bytes'] - base['bytes']) / 1e6:.0f} MB, "  # type: ignore[operator]
        f"+{ours['dists'] - base['dists']} dists"  # type: ignore[operator]
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
