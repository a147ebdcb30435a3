"""Where the provider's milliseconds go in a DAG-processor parse after ``preload()``.

Two measurements behind ``docs/airflow.md`` ("processor+preload"):

1. **First call vs second call in a forked child.** The parent runs
   :func:`accelerators_provider.preload.preload` and ``gc.freeze()``, then forks ``--forks``
   children, as Airflow's DAG-processor manager does. Each child times the parse-time steps of
   one ``AcceleratorPodOperator`` twice (spec parse, platform lookup, ``to_pod_fragment``,
   ``merge_fragment``) and counts the minor page faults of each (``getrusage``): the first
   call pays copy-on-write faults on the preloaded objects, the second does not.
2. **Steady state, side by side.** In one process, after a warm-up, ``--pairs`` alternating
   constructions of an ``AcceleratorPodOperator`` (``H100:8`` on ``gke``) and of the
   ``KubernetesPodOperator`` written out by hand with the same resources, toleration and
   affinity, each inside its own ``DAG``; prints both medians and their difference.

Usage::

    python benchmarks/dag_parse_firstcall.py --forks 5 --pairs 300
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

STEPS = ("parse", "platform", "fragment", "merge")


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _steps() -> dict[str, Callable[[], Any]]:
    from accelerators import AcceleratorSpec
    from accelerators.kubernetes import get_platform, merge_fragment, to_pod_fragment

    held: dict[str, Any] = {}

    def parse() -> None:
        held["spec"] = AcceleratorSpec.parse("H100:8")

    def fragment() -> None:
        held["fragment"] = to_pod_fragment(held["spec"], platform="gke")

    def merge() -> None:
        pod = {
            "spec": {
                "containers": [{"name": "base", "resources": {}}],
                "nodeSelector": {},
                "tolerations": [],
                "affinity": {},
            }
        }
        merge_fragment(pod, held["fragment"], container="base")

    return {
        "parse": parse,
        "platform": lambda: get_platform("gke"),
        "fragment": fragment,
        "merge": merge,
    }


def first_vs_second(forks: int) -> None:
    from accelerators_provider.preload import preload

    preload()
    gc.freeze()
    print(f"1. forked children of a preloaded parent ({forks}): ms (minor faults)")
    print(f"   {'call':<7}" + "".join(f"{s:>18}" for s in STEPS))
    for _ in range(forks):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: time each step twice, report through the pipe
            os.close(read)
            steps = _steps()
            lines = []
            for call in ("first", "second"):
                cells = []
                for step in steps.values():
                    faults, start = _faults(), time.perf_counter()
                    step()
                    ms = (time.perf_counter() - start) * 1e3
                    cells.append(f"{ms:8.3f} ({_faults() - faults:4d})")
                lines.append(f"   {call:<7}" + "".join(f"{c:>18}" for c in cells))
            os.write(write, ("\n".join(lines) + "\n").encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            sys.stdout.write(pipe.read())
        os.waitpid(pid, 0)


def steady_state(pairs: int) -> None:
    import pendulum
    from accelerators_provider import AcceleratorPodOperator
    from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator
    from airflow.sdk import DAG
    from kubernetes.client import models as k8s

    gpu = k8s.V1ResourceRequirements(
        limits={"nvidia.com/gpu": "8"}, requests={"nvidia.com/gpu": "8"}
    )
    tolerations = [k8s.V1Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")]
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "cloud.google.com/gke-accelerator",
                                "operator": "In",
                                "values": ["nvidia-h100-80gb", "nvidia-h100-mega-80gb"],
                            }
                        ]
                    }
                ]
            }
        }
    }
    start_date = pendulum.datetime(2025, 1, 1)

    def ours(i: int) -> None:
        with DAG(f"ours_{i}", schedule=None, start_date=start_date):
            AcceleratorPodOperator(
                task_id="t", accelerator="H100:8", platform="gke", image="x", cmds=["x"]
            )

    def twin(i: int) -> None:
        with DAG(f"twin_{i}", schedule=None, start_date=start_date):
            KubernetesPodOperator(
                task_id="t",
                image="x",
                cmds=["x"],
                container_resources=gpu,
                tolerations=tolerations,
                affinity=affinity,
            )

    for i in range(5):  # warm both paths
        ours(-i - 1)
        twin(-i - 1)
    times: dict[str, list[float]] = {"ours": [], "twin": []}
    for i in range(pairs):
        for name, build in (("ours", ours), ("twin", twin)):
            start = time.perf_counter()
            build(i)
            times[name].append((time.perf_counter() - start) * 1e3)
    a, b = statistics.median(times["ours"]), statistics.median(times["twin"])
    print(f"2. steady state, {pairs} alternating pairs: AcceleratorPodOperator {a:.3f} ms,")
    print(f"   KubernetesPodOperator {b:.3f} ms: {a - b:+.3f} ms per operator (ratio {a / b:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forks", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=300)
    args = parser.parse_args()
    os.environ.setdefault("AIRFLOW_HOME", tempfile.mkdtemp(prefix="dag-parse-firstcall-"))
    first_vs_second(args.forks)
    steady_state(args.pairs)


if __name__ == "__main__":
    main()
