"""Size and time of a user's ``pip install "accelerators[bench]"``: CPU torch vs CUDA torch.

    python benchmarks/install_size.py                       # both variants, side by side
    python benchmarks/install_size.py --variant cpu         # the CPU one only
    python benchmarks/install_size.py --variant cuda --variant cpu   # both, CUDA first

Builds this project's wheel (hatchling, offline), then for each variant makes a fresh venv in a
temporary folder and installs ``<wheel>[bench]`` the way the README tells a user to:

* ``cpu``: first ``pip install torch==2.13.0+cpu`` from ``--torch-from`` (a folder with the
  wheel, used as ``--find-links`` with PyPI for torch's own dependencies, or an index URL such as
  https://download.pytorch.org/whl/cpu),
  then ``pip install "<wheel>[bench]"``, which keeps that torch;
* ``cuda``: ``pip install "<wheel>[bench]" torch==2.13.0`` from PyPI alone: the CUDA build with
  its nvidia-* libraries.

pip runs with ``PIP_CONFIG_FILE=/dev/null`` (no machine-wide find-links or local indexes), so
each variant gets only what it names; pip's download cache is used as usual (say so when you
quote the times). Prints per variant: wall time of the pip commands, the venv's size on disk,
the number of distributions, the torch version, and whether ``accelerators bench --help`` runs;
then the CPU/CUDA ratios when both ran.
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
TORCH = "2.13.0"
_CUDA_ONLY = re.compile(r"^(nvidia-(?!ml-py$)[a-z0-9-]+|triton|cuda-[a-z0-9-]+)$")  # not NVML
_BUILD = "import sys, hatchling.build as b; print(b.build_wheel(sys.argv[1]))"


def dir_size(path: Path) -> int:
    """Bytes of the files below ``path`` (links not followed)."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            file = Path(folder, name)
            if not file.is_symlink():
                total += file.stat().st_size
    return total


def build_wheel(project: Path, out: Path) -> Path:
    """The wheel of ``project`` (a folder with a pyproject.toml), built offline into ``out``."""
    built = subprocess.run(
        [sys.executable, "-c", _BUILD, str(out)],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return out / built.stdout.strip().splitlines()[-1]


def _pip(python: Path, args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-input", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(f"pip install {' '.join(args)} failed:\n{proc.stderr}")
    return time.perf_counter() - start


def measure(variant: str, wheel: Path, torch_from: str, workdir: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "PYTHONPATH"}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
    venv = workdir / f"venv-{variant}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    seconds = 0.0
    if variant == "cpu":
        source = (
            ["--find-links", torch_from]
            if Path(torch_from).is_dir()
            else ["--index-url", torch_from]
        )
        seconds += _pip(python, [*source, f"torch=={TORCH}+cpu"], env)
        seconds += _pip(python, [f"{wheel}[bench]"], env)
    else:
        seconds += _pip(python, [f"{wheel}[bench]", f"torch=={TORCH}"], env)
    probe = subprocess.run(
        [str(python), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    helped = subprocess.run(
        [str(venv / "bin" / "accelerators"), "bench", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    dists = listed.stdout.split()
    return {
        "variant": variant,
        "seconds": seconds,
        "bytes": dir_size(venv),
        "dists": len(dists),
        "nvidia": sum(1 for d in dists if _CUDA_ONLY.match(d.split("==")[0].lower())),
        "torch": probe.stdout.strip() or probe.stderr.strip().splitlines()[-1],
        "bench_help": helped.returncode == 0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", choices=["cpu", "cuda"])
    parser.add_argument(
        "--torch-from",
        default="/opt/wheels",
        help="folder holding torch-2.13.0+cpu*.whl, or an index URL (default: /opt/wheels)",
    )
    args = parser.parse_args(argv)
    variants = args.variant or ["cpu", "cuda"]
    with tempfile.TemporaryDirectory(prefix="install-size-") as tmp:
        workdir = Path(tmp)
        wheel = build_wheel(ROOT, workdir)
        results = []
        for variant in variants:
            result = measure(variant, wheel, args.torch_from, workdir)
            results.append(result)
            print(
                f"{variant:5} {result['seconds']:7.1f} s  {result['bytes'] / 1e9:6.2f} GB  "
                f"{result['dists']:3} dists ({result['nvidia']} nvidia/triton/cuda)  "
                f"torch {result['torch']}  bench --help ok: {result['bench_help']}",
                flush=True,
            )
    by_variant = {r["variant"]: r for r in results}
    if len(by_variant) == 2:
        cpu, cuda = by_variant["cpu"], by_variant["cuda"]
        print(
            f"cpu/cuda: time {cpu['seconds'] / cuda['seconds']:.3f}, "  # type: ignore[operator]
            f"size {cpu['bytes'] / cuda['bytes']:.3f}"  # type: ignore[operator]
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
