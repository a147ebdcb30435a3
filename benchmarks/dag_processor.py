"""A DAG's parse time in Airflow's real DAG processor, with and without the preload.

``benchmarks/dag_parse.py`` imitates the DAG processor; this script runs it. For each setting
(``none``: nothing configured, as a deployment gets it: the provider's ``airflow.policy`` entry
point preloads before the first fork; ``never``: ``ACCELERATORS_PRELOAD=never``, no preload at
all; ``preload``: an ``airflow_local_settings`` that calls
:func:`accelerators_provider.preload.preload`), ``--repeats`` times, alternating settings, it
makes a fresh ``AIRFLOW_HOME`` (SQLite, ``airflow db migrate``) whose DAG folder holds
``dags/airflow_training.py`` and its hand-written twin (``dag_parse.TWIN``), or with
``--dag minimal`` one ``AcceleratorPodOperator`` and its plain twin (``dag_parse.MINIMAL``,
``dag_parse.MINIMAL_TWIN``), runs ``airflow
dag-processor --num-runs N`` with one parsing process and no minimum interval between parses,
and collects every parse's duration as the manager itself measures it (the whole child: fork,
parse, serialisation, reply): the ``dag_processing.last_duration`` timing Airflow sends to
StatsD, received by this script on a UDP socket on 127.0.0.1 (``[metrics] statsd_on``, with
InfluxDB-style tags naming the file), at microsecond resolution and for every parse. With
``--source log`` it reads the "Last Duration" column of the stats table the manager logs once
a second instead (10 ms resolution, only the parses that table happens to show). A file's
first parse also pays the manager's first pre-import, so it is left out.

Prints per setting and repeat the median [min, max] per file, the ratio template / twin and
our share ``(template - twin) / template`` of the medians, and the same over all repeats
pooled.

Usage::

    python benchmarks/dag_processor.py --runs 60 --repeats 2 [--dag minimal]
                                       [--setting none --setting never --setting preload]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dag_parse  # noqa: E402  (the twin lives there)

#: (ours, its twin) file names per DAG, and their text.
DAGS = {
    "training": ("airflow_training.py", "twin_training.py"),
    "minimal": ("minimal.py", "minimal_twin.py"),
}
SETTINGS = ("none", "never", "preload")
#: One row of the manager's "DAG File Processing Stats" table: file, then "Last Duration".
_ROW = re.compile(r"dags-folder\s+(\S+\.py)\s+(?:\d+\s+[\d.]+s\s+)?\d+\s+\d+\s+([\d.]+)s\s+(\S+)")
_PRELOAD = "from accelerators_provider.preload import preload\npreload()\n"
#: ``dag_processing.last_duration,bundle_name=...,file_name=airflow_training:0.061234|ms``
_STATSD = re.compile(r"dag_processing\.last_duration,[^:]*?file_name=([^,:]+)[^:]*:([\d.]+)\|ms")


class StatsdSink:
    """A UDP socket on 127.0.0.1 that keeps every StatsD packet Airflow sends it."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.lines: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(65535)
            except TimeoutError:
                continue
            self.lines.extend(data.decode("utf-8", "replace").splitlines())

    def close(self) -> list[str]:
        self._stop.set()
        self._thread.join()
        self.sock.close()
        return self.lines


def _statsd_durations(lines: list[str]) -> dict[str, list[float]]:
    """Each file's parse durations (ms) in order, without the first."""
    by_file: dict[str, list[float]] = {}
    for line in lines:
        m = _STATSD.search(line)
        if m:
            # Airflow passes seconds; the StatsD client sends the number as it got it.
            by_file.setdefault(m[1] + ".py", []).append(float(m[2]) * 1e3)
    return {name: values[1:] for name, values in by_file.items()}


def _texts(dag: str) -> tuple[str, str]:
    if dag == "training":
        twin = dag_parse.TWIN.replace('dag_id="airflow_training"', 'dag_id="twin_training"')
        return (ROOT / "dags" / "airflow_training.py").read_text(), twin
    twin = dag_parse.MINIMAL_TWIN.replace('dag_id="minimal"', 'dag_id="minimal_twin"')
    return dag_parse.MINIMAL, twin


def _home(base: Path, setting: str, dag: str, statsd_port: int | None = None) -> dict[str, str]:
    dags, config = base / "dags", base / "config"
    dags.mkdir(parents=True)
    config.mkdir()
    for name, text in zip(DAGS[dag], _texts(dag), strict=True):
        (dags / name).write_text(text)
    if setting == "preload":
        (config / "airflow_local_settings.py").write_text(_PRELOAD)
    env = dict(os.environ)
    env.pop("ACCELERATORS_PRELOAD", None)
    if setting == "never":
        env["ACCELERATORS_PRELOAD"] = "never"
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
    if statsd_port is not None:
        env.update(
            AIRFLOW__METRICS__STATSD_ON="True",
            AIRFLOW__METRICS__STATSD_HOST="127.0.0.1",
            AIRFLOW__METRICS__STATSD_PORT=str(statsd_port),
            AIRFLOW__METRICS__STATSD_PREFIX="airflow",
            AIRFLOW__METRICS__STATSD_INFLUXDB_ENABLED="True",
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


def run_once(base: Path, setting: str, dag: str, runs: int, source: str) -> dict[str, list[float]]:
    sink = StatsdSink() if source == "statsd" else None
    env = _home(base, setting, dag, sink.port if sink is not None else None)
    airflow = str(Path(sys.executable).with_name("airflow"))
    subprocess.run([airflow, "db", "migrate"], env=env, check=True, capture_output=True, text=True)
    proc = subprocess.run(
        [airflow, "dag-processor", "--num-runs", str(runs)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = sink.close() if sink is not None else []
    if proc.returncode != 0:
        tail = proc.stderr[-2000:]
        raise SystemExit(f"airflow dag-processor failed ({proc.returncode}):\n{tail}")
    if sink is not None:
        return _statsd_durations(lines)
    return _durations(proc.stdout + proc.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60, help="--num-runs of the DAG processor")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--source",
        choices=("statsd", "log"),
        default="statsd",
        help="where the durations come from: StatsD timings (every parse) or the stats table",
    )
    parser.add_argument("--dag", choices=tuple(DAGS), default="training")
    parser.add_argument(
        "--setting", action="append", choices=SETTINGS, help="default: all three, alternating"
    )
    args = parser.parse_args()
    settings = args.setting or list(SETTINGS)
    template, twin = DAGS[args.dag]
    unit = "us" if args.source == "statsd" else "10 ms"
    print(f"durations from: {args.source} (resolution {unit}); {args.runs} runs per setting")
    pooled: dict[str, dict[str, list[float]]] = {setting: {} for setting in settings}
    with tempfile.TemporaryDirectory(prefix="dag-processor-") as tmp:
        for repeat in range(args.repeats):
            for setting in settings:
                base = Path(tmp) / f"{setting}{repeat}"
                found = run_once(base, setting, args.dag, args.runs, args.source)
                medians = {}
                for name in (template, twin):
                    values = found.get(name) or []
                    pooled[setting].setdefault(name, []).extend(values)
                    if not values:
                        print(f"{setting:<8} {name:<22} no parse after the first was logged")
                        continue
                    medians[name] = statistics.median(values)
                    print(
                        f"{setting:<8} {name:<22} median {medians[name]:7.1f} ms "
                        f"[{min(values):.1f}, {max(values):.1f}] ({len(values)} parses)"
                    )
                if len(medians) == 2:
                    t, w = medians[template], medians[twin]
                    print(f"{setting:<8} ratio {t / w:.2f}x; our share: {(t - w) / t:.3f}")
    print("-- pooled over the repeats")
    for setting, found in pooled.items():
        if all(found.get(name) for name in (template, twin)):
            t, w = (statistics.median(found[name]) for name in (template, twin))
            print(
                f"{setting:<8} template {t:7.1f} ms ({len(found[template])} parses), twin "
                f"{w:7.1f} ms ({len(found[twin])}): ratio {t / w:.2f}x (goal <= 1.3x), our "
                f"share {(t - w) / t:.3f}"
            )


if __name__ == "__main__":
    main()
