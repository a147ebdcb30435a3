"""``import airflow`` with the provider's preload in ``airflow_local_settings``: everywhere
(as before) or only in the DAG processor (now), side by side in one run.

Every Airflow process (scheduler, API server, triggerer, workers, each ``airflow`` command)
imports ``airflow_local_settings`` while ``import airflow`` runs. With the two preload lines
there, each used to pay the preload (the provider, ``KubernetesPodOperator``, the
``kubernetes`` client, the catalog and its indexes); now ``preload()`` returns at once outside
the DAG processor. Modes, each a fresh interpreter timing its own ``import airflow``:

* ``none``: no ``airflow_local_settings``;
* ``everywhere``: the two lines, ``ACCELERATORS_PRELOAD=always`` (the old behaviour);
* ``limited``: the two lines, default (``auto``), in a process that is not the DAG processor;
* ``dag-processor``: the two lines, default, with the DAG processor's command line
  (``airflow dag-processor``): where the preload is paid, once per manager.

The modes alternate within each round (this machine is shared and noisy); modules are read
from cached bytecode (a temporary ``PYTHONPYCACHEPREFIX``, warmed first), as an installed
package's are. It prints the median [min, max] per mode and the ratios of the medians.

    python benchmarks/airflow_import_preload.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LOCAL_SETTINGS = "from accelerators_provider.preload import preload\npreload()\n"
MEASURE = """
import sys, time
argv = {argv!r}
if argv:
    sys.argv = argv
start = time.perf_counter()
import airflow
elapsed = time.perf_counter() - start
loaded = "accelerators_provider.operators" in sys.modules
print(__import__("json").dumps({{"seconds": elapsed, "preloaded": loaded}}))
"""
MODES = ("none", "everywhere", "limited", "dag-processor")


def _measure(mode: str, homes: dict[str, Path], pycache: str) -> dict[str, float | bool]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW__")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    env["AIRFLOW_HOME"] = str(homes["none" if mode == "none" else "settings"])
    env.pop("ACCELERATORS_PRELOAD", None)
    if mode == "everywhere":
        env["ACCELERATORS_PRELOAD"] = "always"
    argv = (
        [str(Path(sys.executable).parent / "airflow"), "dag-processor"]
        if mode == "dag-processor"
        else []
    )
    done = subprocess.run(
        [sys.executable, "-c", MEASURE.format(argv=argv)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    result: dict[str, float | bool] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="airflow-preload-") as tmp:
        homes = {"none": Path(tmp) / "none", "settings": Path(tmp) / "settings"}
        for home in homes.values():
            (home / "config").mkdir(parents=True)
        (homes["settings"] / "config" / "airflow_local_settings.py").write_text(LOCAL_SETTINGS)
        pycache = str(Path(tmp) / "pycache")
        for mode in MODES:  # warm the bytecode cache, and check each mode does what it says
            seen = _measure(mode, homes, pycache)
            want = mode in ("everywhere", "dag-processor")
            if seen["preloaded"] is not want:
                raise SystemExit(f"mode {mode}: preloaded={seen['preloaded']}, expected {want}")
        times: dict[str, list[float]] = {mode: [] for mode in MODES}
        for round_ in range(args.rounds):
            order = MODES if round_ % 2 == 0 else tuple(reversed(MODES))
            for mode in order:
                times[mode].append(float(_measure(mode, homes, pycache)["seconds"]))
    print(f"import airflow, {args.rounds} rounds, modes alternating; seconds, median [min, max]")
    medians = {}
    for mode in MODES:
        values = times[mode]
        medians[mode] = statistics.median(values)
        print(f"  {mode:<14}{medians[mode]:7.3f}  [{min(values):.3f}, {max(values):.3f}]")
    print(
        f"everywhere / limited: {medians['everywhere'] / medians['limited']:.2f}x; "
        f"limited / none: {medians['limited'] / medians['none']:.3f}; "
        f"dag-processor / none: {medians['dag-processor'] / medians['none']:.2f}x"
    )


if __name__ == "__main__":
    main()
