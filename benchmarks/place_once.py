"""Placing a spec once: this checkout against a baseline commit, side by side.

Issue 34 made the Airflow provider and the Flyte plugin place a spec once, through
``accelerators.kubernetes.place``, where the hand-written copies placed it up to three times
(and parsed it twice). This measures what a user pays per task, in a warm process (one
operator built first, so imports and the catalog's caches are not counted):

* ``bare operator``: ``AcceleratorPodOperator(accelerator="H100:8", platform="gke")`` with
  no template and no placement arguments of its own;
* ``operator``: the same with a pod template dict and its own tolerations and resources (the
  DAG processor's cost per task, at every parse);
* ``operator+build``: the same, then ``build_pod_request_obj(dry_run=True)`` (the worker's);
* ``task_args``: ``flytekitplugins.accelerators.task_args("H100:8")`` with a pod template.

The baseline's ``accelerators`` and plugins are extracted with ``git archive`` into a temporary
directory and put first on ``PYTHONPATH``; both run with this checkout's virtualenv. Each
round runs both versions in fresh interpreters, in alternating order, and each child times
``--tasks`` calls per case. It prints the median microseconds per call of each version and
the ratio this/baseline per case (this machine is shared: read the ratios, not the times).

Usage::

    python benchmarks/place_once.py [--baseline before-34] [--rounds 7] [--tasks 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from _host import describe_host

ROOT = Path(__file__).resolve().parent.parent
CASES = ("bare operator", "operator", "operator+build", "task_args")

CHILD = r"""
import copy, json, sys, time, warnings
warnings.simplefilter("ignore")
from kubernetes.client import models as k8s
from accelerators_provider import AcceleratorPodOperator
from flytekit import PodTemplate
from flytekitplugins.accelerators import task_args
from kubernetes.client import V1Container, V1PodSpec

TEMPLATE = {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {
    "containers": [{"name": "base", "resources": {"limits": {"memory": "64Gi"}}}],
    "nodeSelector": {"pool": "train"},
    "tolerations": [{"key": "spot", "operator": "Exists"}]}}

def bare(i):
    return AcceleratorPodOperator(task_id=f"t{i}", accelerator="H100:8", platform="gke",
                                  image="trainer:1")

def operator(i):
    return AcceleratorPodOperator(
        task_id=f"t{i}", accelerator="H100:8", platform="gke", image="trainer:1",
        pod_template_dict=copy.deepcopy(TEMPLATE),
        tolerations=[k8s.V1Toleration(key="team", operator="Exists")],
        container_resources=k8s.V1ResourceRequirements(limits={"cpu": "32"}))

def build(i):
    operator(i).build_pod_request_obj(dry_run=True)

def flyte(i):
    template = PodTemplate(pod_spec=V1PodSpec(containers=[V1Container(name="primary")],
                                              node_selector={"pool": "train"}),
                           primary_container_name="primary")
    task_args("H100:8", pod_template=template)

import logging
logging.disable(logging.CRITICAL)
tasks = int(sys.argv[1])
out = {}
cases = (("bare operator", bare), ("operator", operator), ("operator+build", build),
         ("task_args", flyte))
for name, fn in cases:
    fn(0)  # warm: imports, the catalog, the caches a DAG processor's preload fills
    start = time.perf_counter()
    for i in range(tasks):
        fn(i)
    out[name] = (time.perf_counter() - start) / tasks * 1e6
print(json.dumps(out))
"""


def _extract(ref: str, into: Path) -> Path:
    data = subprocess.run(
        ["git", "archive", ref, "accelerators", "plugins/airflow", "plugins/flyte"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as archive:
        archive.extractall(into, filter="data")
    return into


def _paths(root: Path) -> str:
    return os.pathsep.join(
        str(p) for p in (root, root / "plugins" / "airflow", root / "plugins" / "flyte")
    )


def _run(root: Path, tasks: int, cache: Path) -> dict[str, float]:
    env = {
        **os.environ,
        "PYTHONPATH": _paths(root),
        "ACCELERATORS_CACHE_DIR": str(cache),
        "AIRFLOW_HOME": str(cache / "airflow"),
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tasks)],
        cwd=tempfile.gettempdir(),
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"child failed ({root}):\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="before-34", help="a git ref (default before-34)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--tasks", type=int, default=200, help="calls per case per child")
    args = parser.parse_args()
    print(describe_host())
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="place-once-") as tmp:
        base = _extract(args.baseline, Path(tmp) / "baseline")
        versions = {"this": ROOT, args.baseline: base}
        times: dict[str, dict[str, list[float]]] = {v: {c: [] for c in CASES} for v in versions}
        for round_ in range(args.rounds):
            order = list(versions) if round_ % 2 == 0 else list(reversed(versions))
            for name in order:
                cache = Path(tmp) / f"cache-{name}"
                cache.mkdir(exist_ok=True)
                for case, value in _run(versions[name], args.tasks, cache).items():
                    times[name][case].append(value)
    print(f"{args.rounds} rounds x {args.tasks} calls per case; median us per call")
    print(f"{'case':16} {'this':>10} {args.baseline:>12} {'this/base':>10}")
    for case in CASES:
        mine = statistics.median(times["this"][case])
        theirs = statistics.median(times[args.baseline][case])
        print(f"{case:16} {mine:10.0f} {theirs:12.0f} {mine / theirs:10.2f}")


if __name__ == "__main__":
    main()
