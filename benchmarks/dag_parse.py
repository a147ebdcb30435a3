"""Performance bar: what the provider adds to the parse time of a DAG file.

Parses ``dags/airflow_training.py`` (the template: ``AcceleratorGateOperator`` +
``AcceleratorPodOperator``) and its hand-written twin (the same DAG with plain
``KubernetesPodOperator``: the same resources, node affinity, tolerations, gate command and
``NODE_NAME`` env written out, no ``accelerators`` import) with Airflow's own ``DagBag``,
each parse in a fresh interpreter, alternating the two, ``--rounds`` times, in two modes:

* ``fresh``: the interpreter has imported Airflow's ``DagBag`` and nothing else, so the
  parse pays every import the file makes (``KubernetesPodOperator`` and ``kubernetes``
  included, for both files).
* ``processor``: as Airflow 3's DAG processor does: its child process runs the parse in
  ``airflow.dag_processing.processor``, so that module (and pydantic, jinja2, yaml with it) is
  loaded, and (``parsing_pre_import_modules``) the file's ``airflow.*`` imports are imported
  before the parse (with Airflow's own ``iter_airflow_imports``). Only ``airflow.*``
  modules are: the twin's ``KubernetesPodOperator`` is then free, while the template still imports
  ``accelerators_provider`` (and through it the operator and the ``accelerators`` core) in
  every parse.

* ``processor+preload``: as ``processor``, with ``accelerators_provider.preload.preload()``
  run in the parent (what ``airflow_local_settings`` does in the DAG-processor manager), which
  then calls ``gc.freeze()`` and forks the children that parse, as the manager does: each
  interpreter forks ``--forks`` children per file, alternating the files, one parse each.
* ``processor+auto``: what a deployment gets with nothing configured: the parent imports
  ``airflow`` (which loads the provider's ``airflow.policy`` entry point; in the DAG processor
  it registers the preload to run before the first fork), calls ``gc.freeze()`` as the manager
  does, and forks the children as above.

Two DAGs, each with its twin: ``dags/airflow_training.py`` (a gate and two pods), and a
minimal one, one ``AcceleratorPodOperator`` (``H100:8`` on GKE) against one plain
``KubernetesPodOperator`` with the same resources, node affinity and toleration written out. For
each it prints the ratio of the medians, template / twin: the goal for the minimal DAG is
at most 1.3x with no configuration (``processor+auto``); ``processor`` is the ratio with no
preload at all (``ACCELERATORS_PRELOAD=never``).

Modules are read from bytecode that the warm-up parses write (in a temporary
``PYTHONPYCACHEPREFIX``), as an installed package's are; ``--no-bytecode`` compiles every
module from source in every parse instead.

Prints the median parse times, their spread, and our share ``(template - twin) / template``
per mode, twice: from the two medians, and as the median of the per-pair shares (a template
parse and the twin parse next to it in time) with a 95 % bootstrap interval, so that one noisy
round does not decide. The bar: under 5 % (the per-pair median; "robustly" when the whole
interval is under it). A third file, ``template-nopre``, is the template without
its ``import airflow.providers.cncf.kubernetes.operators.pod`` line: it shows what that line
saves in processor mode, where the DAG processor pre-imports only ``airflow.*`` modules.

Usage::

    python benchmarks/dag_parse.py --rounds 7 [--forks 8] [--mode fresh --mode processor
                                              --mode processor+preload --mode processor+auto]
                                              [--dag training --dag minimal] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "dags" / "airflow_training.py"
BAR = 0.05

#: The template written out by hand: what a user writes without the provider.
TWIN = """
import pendulum
from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator
from airflow.sdk import DAG, Param
from kubernetes.client import models as k8s

GPU = k8s.V1ResourceRequirements(limits={"nvidia.com/gpu": "8"}, requests={"nvidia.com/gpu": "8"})
ONE = k8s.V1ResourceRequirements(limits={"nvidia.com/gpu": "1"}, requests={"nvidia.com/gpu": "1"})
TOLERATIONS = [k8s.V1Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")]
AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [{
        "key": "cloud.google.com/gke-accelerator", "operator": "In",
        "values": ["nvidia-h100-80gb", "nvidia-h100-mega-80gb"]}]}]}}}
NODE_NAME = k8s.V1EnvVar(name="NODE_NAME", value_from=k8s.V1EnvVarSource(
    field_ref=k8s.V1ObjectFieldSelector(field_path="spec.nodeName")))

with DAG(
    dag_id="airflow_training",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["accelerators", "gpu", "template"],
    params={"local_run": Param(False, type="boolean"), "epochs": Param(3, type="integer")},
) as dag:
    gate = KubernetesPodOperator(
        task_id="gate", name="accelerator-gate", image="registry.example.com/bench:0.1",
        cmds=["accelerators", "bench", "--profile", "quick", "--expect", "H100:8",
              "--json", "/airflow/xcom/return.json"],
        container_resources=GPU, tolerations=TOLERATIONS, affinity=AFFINITY,
        pod_runtime_info_envs=[NODE_NAME], do_xcom_push=True, retries=2,
    )
    train = KubernetesPodOperator(
        task_id="train", image="nvcr.io/nvidia/pytorch:25.01-py3",
        cmds=["torchrun", "--nproc-per-node=8", "train.py"],
        arguments=["--epochs={{ params.epochs }}"],
        container_resources=GPU, tolerations=TOLERATIONS, affinity=AFFINITY,
        node_selector={"kubernetes.io/hostname": "{{ ti.xcom_pull(task_ids='gate', key='node') }}"},
    )
    evaluate = KubernetesPodOperator(
        task_id="evaluate", image="nvcr.io/nvidia/pytorch:25.01-py3",
        cmds=["python", "evaluate.py"],
        container_resources=ONE, tolerations=TOLERATIONS, affinity=AFFINITY,
        node_selector={"kubernetes.io/hostname": "{{ ti.xcom_pull(task_ids='gate', key='node') }}"},
    )
    gate >> train >> evaluate
"""

#: The smallest DAG that uses the provider, and its twin.
MINIMAL = """
import pendulum
import airflow.providers.cncf.kubernetes.operators.pod  # noqa: F401
from airflow.sdk import DAG

from accelerators_provider import AcceleratorPodOperator

with DAG(dag_id="minimal", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):
    AcceleratorPodOperator(task_id="train", image="trainer:1", accelerator="H100:8", platform="gke")
"""
MINIMAL_TWIN = """
import pendulum
from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator
from airflow.sdk import DAG
from kubernetes.client import models as k8s

GPU = k8s.V1ResourceRequirements(limits={"nvidia.com/gpu": "8"}, requests={"nvidia.com/gpu": "8"})
GPU_TAINT = k8s.V1Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")
H100 = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "cloud.google.com/gke-accelerator", "operator": "In",
         "values": ["nvidia-h100-80gb", "nvidia-h100-mega-80gb"]},
        {"key": "cloud.google.com/gke-gpu-partition-size", "operator": "DoesNotExist"}]}]}}}
with DAG(dag_id="minimal", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):
    KubernetesPodOperator(
        task_id="train", image="trainer:1", container_resources=GPU, tolerations=[GPU_TAINT],
        affinity=H100,
    )
"""

#: Parses in a fresh interpreter that has Airflow loaded, as the DAG processor's child.
#: argv: mode, forks, then the DAG files; prints {file: [seconds, ...]}.
CHILD = """
import gc, importlib, json, os, sys, time
from airflow.dag_processing.dagbag import DagBag
mode, forks, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
preload_s = None
if mode != "fresh":
    # The child of Airflow 3's DAG processor parses inside this module's code, so what it
    # imports (pydantic, jinja2, yaml...) is loaded before any DAG file is read.
    import airflow.dag_processing.processor  # noqa: F401
    from airflow.utils.file import iter_airflow_imports
    if mode == "processor+preload":  # what airflow_local_settings runs in the manager
        # This process stands in for `airflow dag-processor`, where preload() does its work.
        os.environ["ACCELERATORS_PRELOAD"] = "always"
        from accelerators_provider.preload import preload
        preload_s = preload()
    elif mode == "processor+auto":  # nothing configured: the airflow.policy entry point
        import accelerators_provider.preload as auto
        # `import airflow` above loaded the entry point; in `airflow dag-processor` it
        # registered the preload before the first fork. This process stands in for it.
        os.environ["ACCELERATORS_PRELOAD"] = "always"
        registered = auto.warm_up()
        if not registered:
            sys.exit("processor+auto: the preload was not registered")
    # The manager imports the file's airflow.* modules itself, before it forks the child.
    for path in paths:
        for module in iter_airflow_imports(path):
            importlib.import_module(module)
def parse(path):
    start = time.perf_counter()
    bag = DagBag(dag_folder=path, safe_mode=False)
    elapsed = time.perf_counter() - start
    if bag.import_errors or len(bag.dags) != 1:
        return {"error": f"{path}: {len(bag.dags)} DAGs, import errors: {bag.import_errors}"}
    return {"s": elapsed}
def forked(path):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child parses, as the DAG processor's child does
        os.close(read)
        os.write(write, json.dumps(parse(path)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        result = json.loads(pipe.read())
    os.waitpid(pid, 0)
    return result
times = {path: [] for path in paths}
if mode in ("processor+preload", "processor+auto"):
    gc.freeze()  # as the manager does before forking (manager.py, before_run)
    for round_ in range(forks):
        for path in paths if round_ % 2 == 0 else paths[::-1]:
            result = forked(path)
            if "error" in result:
                sys.exit(result["error"])
            times[path].append(result["s"])
    if mode == "processor+auto":
        if not auto._done:
            sys.exit("processor+auto: the preload did not run before the first fork")
else:
    [path] = paths
    result = parse(path)
    if "error" in result:
        sys.exit(result["error"])
    times[path].append(result["s"])
print(json.dumps({"times": times, "preload_s": preload_s}))
"""

MODES = ("fresh", "processor", "processor+preload", "processor+auto")
FORKING = ("processor+preload", "processor+auto")
GOAL = 1.3


def run_child(
    paths: list[Path], mode: str, forks: int, env: dict[str, str], preloads: list[float]
) -> dict[str, list[float]]:
    """One interpreter: a parse of ``paths[0]``, or ``forks`` forked parses of each path."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(forks), *map(str, paths)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"parsing {', '.join(map(str, paths))} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result.get("preload_s") is not None:
        preloads.append(float(result["preload_s"]))
    return {path: [float(t) for t in ts] for path, ts in result["times"].items()}


def bootstrap_median(values: list[float], *, draws: int = 4000) -> tuple[float, float]:
    """95 % percentile-bootstrap interval of the median of ``values`` (fixed seed)."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(draws))
    return medians[int(0.025 * draws)], medians[int(0.975 * draws) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--forks",
        type=int,
        default=8,
        help="processor+preload: forked parses per file in each interpreter (default 8)",
    )
    parser.add_argument("--mode", action="append", choices=MODES, help="default: all four")
    parser.add_argument(
        "--dag",
        action="append",
        choices=("training", "minimal"),
        help="the DAGs to parse, each with its twin (default: both)",
    )
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="compile every module from source in every parse (PYTHONDONTWRITEBYTECODE=1); "
        "by default the first parse writes bytecode (in a temporary PYTHONPYCACHEPREFIX) that "
        "the others read, as an installed package's are",
    )
    args = parser.parse_args()
    modes = args.mode or list(MODES)
    with tempfile.TemporaryDirectory(prefix="dag-parse-") as tmp:
        home = Path(tmp)
        dags = args.dag or ["training", "minimal"]
        files = _write_files(home, dags)
        env = dict(os.environ)
        env.update(
            AIRFLOW_HOME=str(home),
            AIRFLOW__CORE__LOAD_EXAMPLES="False",
            AIRFLOW__LOGGING__LOGGING_LEVEL="ERROR",
            # A busy machine can take longer than the default 30 s to import kubernetes.
            AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT="0",
            # Our own catalog cache: the user's is shared with other checkouts, whose different
            # catalog.toml would replace the entry between parses (each is then a TOML parse).
            ACCELERATORS_CACHE_DIR=str(home / "cache"),
        )
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
        paths = [str(ROOT), str(ROOT / "plugins" / "airflow"), env.get("PYTHONPATH", "")]
        env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
        # fresh and processor: no preload at all, whatever the process looks like
        envs = {mode: dict(env, ACCELERATORS_PRELOAD="never") for mode in MODES}
        envs.update(dict.fromkeys(FORKING, env))
        preloads: list[float] = []
        for path in files.values():  # warm the file system and bytecode caches, both sides
            run_child([path], "fresh", 1, envs["fresh"], preloads)
        for mode in FORKING:  # warm what only these modes import (kubernetes)
            if mode in modes:
                run_child([next(iter(files.values()))], mode, 1, envs[mode], preloads)
        preloads.clear()
        times: dict[tuple[str, str], list[float]] = {(m, k): [] for m in modes for k in files}
        names = {str(path): name for name, path in files.items()}
        for round_ in range(args.rounds):
            for mode in modes:
                order = list(files.values())
                order = order if round_ % 2 == 0 else order[::-1]
                if mode in FORKING:  # one interpreter forks for every file
                    runs = [run_child(order, mode, args.forks, envs[mode], preloads)]
                else:  # one interpreter per parse
                    runs = [run_child([path], mode, 1, envs[mode], preloads) for path in order]
                for run in runs:
                    for path, seconds in run.items():
                        times[mode, names[path]].extend(seconds)
    print(
        f"bytecode: {'off' if args.no_bytecode else 'cached'}; {args.rounds} rounds"
        + (f", {args.forks} forks per file and round" if set(FORKING) & set(modes) else "")
    )
    if preloads:
        print(
            f"preload() in the parent (once per manager, not per parse): median "
            f"{statistics.median(preloads) * 1000:.1f} ms "
            f"[{min(preloads) * 1000:.1f}, {max(preloads) * 1000:.1f}]"
        )
    for mode in modes:
        med = {k: statistics.median(times[mode, k]) for k in files}
        for name in files:
            values = times[mode, name]
            print(
                f"{mode:<17} {name:<14} median {med[name] * 1000:8.1f} ms  "
                f"[{min(values) * 1000:.1f}, {max(values) * 1000:.1f}]  ({len(values)} parses)"
            )
        for ours, twin in PAIRS:
            if ours in files and twin in files:
                _compare(mode, ours, twin, times[mode, ours], times[mode, twin])


#: (ours, its twin) of the files :func:`_write_files` may write.
PAIRS = (("template", "twin"), ("template-nopre", "twin"), ("minimal", "minimal-twin"))


def _write_files(home: Path, dags: list[str]) -> dict[str, Path]:
    """The DAG files to parse, each in its own folder (one DAG id per folder)."""
    texts: dict[str, str] = {}
    if "training" in dags:
        text = TEMPLATE.read_text()
        pre = "import airflow.providers.cncf.kubernetes.operators.pod  # noqa: F401\n"
        if pre not in text:
            sys.exit(f"{TEMPLATE} lost its pre-import line")
        texts.update(template=text, twin=TWIN, **{"template-nopre": text.replace(pre, "", 1)})
    if "minimal" in dags:
        texts.update(minimal=MINIMAL, **{"minimal-twin": MINIMAL_TWIN})
    files = {}
    for name, text in texts.items():
        path = home / name / "dag.py"
        path.parent.mkdir()
        path.write_text(text)
        files[name] = path
    return files


def _compare(mode: str, ours: str, twin: str, a: list[float], b: list[float]) -> None:
    """Print the ratio of the medians (ours / twin) and our share, by medians and per pair."""
    ratio = statistics.median(a) / statistics.median(b)
    share = (statistics.median(a) - statistics.median(b)) / statistics.median(a)
    paired = [(x - y) / x for x, y in zip(a, b, strict=True)]
    middle = statistics.median(paired)
    low, high = bootstrap_median(paired)
    verdict = "met" if middle < BAR else "NOT met"
    if middle < BAR and high >= BAR:
        verdict += " (not robustly: the interval reaches it)"
    goal = ""
    if ours == "minimal":
        what = "no configuration" if mode == "processor+auto" else "this mode"
        goal = f"; goal <= {GOAL}x ({what}): {'met' if ratio <= GOAL else 'NOT met'}"
    print(
        f"{mode:<17} {ours} / {twin}: ratio of the medians {ratio:.2f}x{goal}; our share: "
        f"medians {share:.3f}, {len(paired)} pairs: median {middle:.3f}, 95 % interval "
        f"[{low:.3f}, {high:.3f}] (range [{min(paired):.3f}, {max(paired):.3f}]); bar < "
        f"{BAR:.2f}: {verdict}"
    )


if __name__ == "__main__":
    main()
