"""The template's parse time in Airflow's real DAG processor, with and without ``preload()``.

``benchmarks/dag_parse.py`` imitates the DAG processor; this script runs it. For each setting
(``none``: no ``airflow_local_settings``; ``preload``: one that calls
:func:`accelerators_provider.preload.preload`), ``--repeats`` times, alternating settings, it
makes a fresh ``AIRFLOW_HOME`` (SQLite, ``airflow db migrate``) whose DAG folder holds
``dags/airflow_training.py`` and its hand-written twin (``dag_parse.TWIN``), runs ``airflow
dag-processor --num-runs N`` with one parsing process and no minimum interval between parses,
and reads each file's "Last Duration" from the stats table the manager logs (the whole child:
fork, parse, serialisation, reply; printed at 10 ms resolution). The table is logged once a
second, so only some parses are sampled (more ``--runs``, more samples). A file's first parse
also pays the manager's first pre-import, so it is left out.

Prints per setting and repeat the median [min, max] per file and our share
``(template - twin) / template``. Few samples at a coarse resolution: read it as a check of
``dag_parse.py``'s processor modes, not a figure of its own.

Usage::

    python benchmarks/dag_processor.py --runs 60 --repeats 2
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dag_parse  # noqa: E402  (the twin lives there)

TEMPLATE = "airflow_training.py"
TWIN = "twin_training.py"
#: One row of the manager's "DAG File Processing Stats" table: file, then "Last Duration".
_ROW = re.compile(r"dags-folder\s+(\S+\.py)\s+(?:\d+\s+[\d.]+s\s+)?\d+\s+\d+\s+([\d.]+)s\s+(\S+)")
_PRELOAD = "from accelerators_provider.preload import preload\npreload()\n"


def _home(base: Path, preload: bool) -> dict[str, str]:
    dags, config = base / "dags", base / "config"
    dags.mkdir(parents=True)
    config.mkdir()
    (dags / TEMPLATE).write_text((ROOT / "dags" / TEMPLATE).read_text())
    (dags / TWIN).write_text(
        dag_parse.TWIN.replace('dag_id="airflow_training"', 'dag_id="twin_training"')
    )
    if preload:
        (config / "airflow_local_settings.py").write_text(_PRELOAD)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # read bytecode, as an installed package does
    env.update(
        AIRFLOW_HOME=str(base),
        AIRFLOW__CORE__DAGS_FOLDER=str(dags),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT="0",
        AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES="1",
        AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL="0",
        AIRFLOW__DAG_PROCESSOR__PRINT_STATS_INTERVAL="1",
        AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL="3600",
        ACCELERATORS_CACHE_DIR=str(base / "cache"),
        PYTHONPYCACHEPREFIX=str(base.parent / "pycache"),
    )
    return env


def _durations(log: str) -> dict[str, list[float]]:
    """Each file's distinct (last run, last duration) rows, in order, without the first."""
    seen: dict[tuple[str, str], float] = {}
    for line in log.splitlines():
        m = _ROW.search(line)
        if m:
            seen.setdefault((m[1], m[3]), float(m[2]))
    by_file: dict[str, list[float]] = {}
    for (name, _), seconds in seen.items():
        by_file.setdefault(name, []).append(seconds * 1e3)
    return {name: values[1:] for name, values in by_file.items()}


def run_once(base: Path, preload: bool, runs: int) -> dict[str, list[float]]:
    env = _home(base, preload)
    airflow = str(Path(sys.executable).with_name("airflow"))
    subprocess.run(
        [airflow, "db", "migrate"], env=env, check=True, capture_output=True, text=True
    )
    proc = subprocess.run(
        [airflow, "dag-processor", "--num-runs", str(runs)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        tail = proc.stderr[-2000:]
        raise SystemExit(f"airflow dag-processor failed ({proc.returncode}):\n{tail}")
    return _durations(proc.stdout + proc.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60, help="--num-runs of the DAG processor")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dag-processor-") as tmp:
        for repeat in range(args.repeats):
            for setting in ("none", "preload"):
                found = run_once(Path(tmp) / f"{setting}{repeat}", setting == "preload", args.runs)
                medians = {}
                for name in (TEMPLATE, TWIN):
                    values = found.get(name) or []
                    if not values:
                        print(f"{setting:<8} {name:<22} no parse after the first was logged")
                        continue
                    medians[name] = statistics.median(values)
                    print(
                        f"{setting:<8} {name:<22} median {medians[name]:6.0f} ms "
                        f"[{min(values):.0f}, {max(values):.0f}] ({len(values)} parses)"
                    )
                if len(medians) == 2:
                    share = (medians[TEMPLATE] - medians[TWIN]) / medians[TEMPLATE]
                    print(f"{setting:<8} our share: {share:.2f} (bar < 0.05)")


if __name__ == "__main__":
    main()
