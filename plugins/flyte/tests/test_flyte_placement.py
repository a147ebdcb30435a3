"""Issue 17's cases through the placement oracle: each task is serialised as ``pyflyte
serialize`` writes it, read back from the protobuf bytes, turned into the pod flytepropeller
v1.16.8 builds (``placement_oracle``), and scheduled against a node inventory. Every case
asserts that the pod lands only where the spec says, with its device, and (for gated tasks)
that the gate inside the pod checks what the pod really got.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import oracle_cases as cases
import placement_oracle as oracle
import pytest
from flyte_helpers import SETTINGS
from flytekit import Resources, task, workflow
from flytekitplugins.accelerators import GateResult, check, gate, run_gate, task_args

from accelerators import AcceleratorError, PlacementError
from accelerators.bench import run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

ROOT = Path(__file__).resolve().parents[3]
warnings.simplefilter("ignore", UserWarning)  # DeviceClassWarning: said once per spec


def _pods(entity: Any, workflow_name: str = "") -> list[tuple[str, dict[str, Any]]]:
    return oracle.registered(entity, SETTINGS).pods(workflow_name)


def _one_pod(entity: Any) -> dict[str, Any]:
    [(_, pod)] = _pods(entity)
    return pod


def _lands(pod: dict[str, Any]) -> set[str]:
    return set(oracle.lands_on(pod))


def _is_gate(task_name: str) -> bool:
    return task_name.endswith("benchmark_gate") or ".gate." in task_name


# -- the oracle itself: propeller's rules on flytekit's own constants ------------------------------
def test_oracle_reproduces_propellers_documented_outputs() -> None:
    from flytekit.extras import accelerators as theirs

    @task(accelerator=theirs.A100.partition_1g_5gb, limits=Resources(gpu="1"))
    def sliced(a: int) -> int:
        return a

    @task(accelerator=theirs.A100.unpartitioned, requests=Resources(gpu="1"))
    def whole(a: int) -> int:
        return a

    @task(accelerator=theirs.H100)
    def no_count(a: int) -> int:
        return a

    [pod] = [oracle.propeller_pod(t) for t in oracle.registered(sliced, SETTINGS).tasks.values()]
    d, p = "k8s.amazonaws.com/accelerator", "k8s.amazonaws.com/gpu-partition-size"
    required = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert required["nodeSelectorTerms"] == [
        {
            "matchExpressions": [
                {"key": d, "operator": "In", "values": ["nvidia-tesla-a100"]},
                {"key": p, "operator": "In", "values": ["1g.5gb"]},
            ]
        }
    ]
    assert {"key": p, "value": "1g.5gb", "operator": "Equal", "effect": "NoSchedule"} in pod[
        "tolerations"
    ]
    assert _lands(pod) == {"a100-40gb-mig-1g5gb"}
    # a GPU request alone: AdjustOrDefaultResource copies it into the limit, so the selectors apply
    [pod] = [oracle.propeller_pod(t) for t in oracle.registered(whole, SETTINGS).tasks.values()]
    assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert {"key": p, "operator": "DoesNotExist"} in pod["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]["matchExpressions"]
    # no GPU at all: ApplyGPUNodeSelectors returns early; the pod lands on any untainted node
    [pod] = [oracle.propeller_pod(t) for t in oracle.registered(no_count, SETTINGS).tasks.values()]
    assert "affinity" not in pod
    assert _lands(pod) == {"cpu"}


def test_pyflyte_serialize_writes_what_the_oracle_reads(tmp_path: Path) -> None:
    # the real CLI on a template; the oracle reads its files as flyteadmin would
    pyflyte = Path(sys.executable).with_name("pyflyte")
    done = subprocess.run(
        [
            str(pyflyte),
            "--pkgs",
            "flyte_fallback",
            "serialize",
            "--image",
            "registry/img:1",
            "workflows",
            "-f",
            str(tmp_path),
        ],
        cwd=ROOT / "dags",
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    registered = oracle.read_folder(tmp_path)
    [(_, pod)] = [p for p in registered.pods("fallback_finetune") if _is_gate(p[0])]
    assert _lands(pod) == {"h100-whole", "a100-80gb"}
    assert oracle.device_request(pod) == {"nvidia.com/gpu": "1"}


# -- case 1: overrides replace the accelerator -----------------------------------------------------
@pytest.mark.parametrize(
    ("workflow_entity", "nodes", "device"),
    [
        (cases.override_to_fallback, {"h100-whole", "a100-80gb"}, {"nvidia.com/gpu": "8"}),
        (cases.override_to_amd, {"mi300x"}, {"amd.com/gpu": "8"}),
        (cases.override_to_tpu, {"tpu-v5p-2x2x1"}, {"google.com/tpu": "4"}),
    ],
    ids=["fallback", "amd", "tpu"],
)
def test_case1_an_override_moves_the_pod_with_its_device(
    workflow_entity: Any, nodes: set[str], device: dict[str, str]
) -> None:
    pod = _one_pod(workflow_entity)
    assert _lands(pod) == nodes
    assert oracle.device_request(pod) == device


# -- case 2: the user's own requests and limits ----------------------------------------------------
def test_case2_task_args_merges_cpu_and_memory_and_keeps_the_device() -> None:
    pods = dict(_pods(cases.user_resources))
    amd, tpu, nvidia = (
        pods[f"oracle_cases.{n}"] for n in ("amd_with_cpu", "tpu_with_cpu", "nvidia_with_cpu")
    )
    assert _lands(amd) == {"mi300x"}
    assert amd["containers"][0]["resources"]["requests"] == {
        "amd.com/gpu": "8",
        "cpu": "8",
        "memory": "64Gi",
    }
    assert _lands(tpu) == {"tpu-v5p-2x2x1"}
    assert tpu["containers"][0]["resources"]["limits"]["cpu"] == "16"
    assert oracle.device_request(tpu) == {"google.com/tpu": "4"}
    assert _lands(nvidia) == {"h100-whole"}
    assert nvidia["containers"][0]["resources"]["requests"]["cpu"] == "16"


@pytest.mark.parametrize("spec", ["MI300X:8", "V5P@2x2x1", "H100-SXM:8"])
@pytest.mark.parametrize("where", ["requests", "limits"])
def test_case2_resources_beside_task_args_fail_when_the_task_is_written(
    spec: str, where: str
) -> None:
    # never a template whose device flytekit silently replaced with the user's cpu
    with pytest.raises(TypeError, match=f"multiple values for keyword argument '{where}'"):
        task(**task_args(spec), **{where: Resources(cpu="8")})  # type: ignore[call-overload]


def test_case2_resources_form_and_gpu_mistakes() -> None:
    args = task_args("H100-SXM:8", resources=Resources(cpu=("8", "16"), mem="64Gi"))
    container = args["pod_template"].pod_spec.containers[0]
    assert container.resources.requests == {"gpu": "8", "cpu": "8", "memory": "64Gi"}
    assert container.resources.limits == {"gpu": "8", "cpu": "16"}
    with pytest.raises(PlacementError, match="leave gpu out"):
        task_args("MI300X:8", requests=Resources(gpu="8"))
    with pytest.raises(PlacementError, match="resources= or requests=/limits=, not both"):
        task_args("H100-SXM", requests=Resources(cpu="1"), resources=Resources(cpu="1"))


def test_case2_a_tpu_override_over_a_task_with_cpu_requests_is_flagged() -> None:
    # flytekit writes the task's cpu over the override's template: no TPU reaches the pod
    pod = _one_pod(cases.tpu_over_cpu_task)
    assert oracle.device_request(pod) == {}
    assert _lands(pod) == set()
    codes = [f.code for f in check(cases.tpu_over_cpu_task)]
    assert "dropped-device" in codes


# -- case 3: the in-pod gate checks what the pod got -----------------------------------------------
def _fake_like(sku: str) -> FakeDevice:
    """A healthy fake of ``sku``: the H100 fake's rates scaled by the two datasheets."""
    from accelerators import catalog

    acc, base, default = catalog.get(sku), catalog.get("H100-SXM"), FakeDevice()
    bandwidth = acc.bandwidth_tbps / base.bandwidth_tbps
    return FakeDevice(
        memory_bytes=int(acc.memory_gb * 2**30),
        gemm_tflops={
            d: r * acc.tflops[d] / base.tflops[d]
            for d, r in default.gemm_tflops.items()
            if d in acc.tflops
        },
        bandwidth_gbps={k: r * bandwidth for k, r in default.bandwidth_gbps.items()},
    )


def _gate_in_pod(
    monkeypatch: pytest.MonkeyPatch, task_entity: Any, pod: dict[str, Any], node: str
) -> Any:
    """Run ``task_entity`` as its pod on ``node`` would: the pod's env, the node's devices."""
    from flytekitplugins.accelerators import _tasks

    where = oracle.NODES[node]
    [(_, count)] = oracle.device_request(pod).items()
    devices = int(count)
    monkeypatch.delenv("ACCELERATORS_GATE_EXPECT", raising=False)
    for name, value in oracle.env(pod).items():
        if isinstance(value, str):
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("NODE_NAME", node)
    bench = functools.partial(
        run,
        backend=FakeBackend([_fake_like(where.device) for _ in range(devices)]),
        detected=fake_detected(where.device, count=devices, mig_profile=where.partition),
    )

    def on_node(expect: Any, **kwargs: Any) -> GateResult:
        kwargs.update(local=False, run=bench)
        return run_gate(expect, **kwargs)

    monkeypatch.setattr(_tasks, "run_gate", on_node)
    monkeypatch.setattr(_tasks, "is_local_execution", lambda: False)
    return task_entity(a=1)


def test_case3_a_gated_task_moved_by_an_override_gates_the_new_device(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pod = _one_pod(cases.gated_override)
    assert _lands(pod) == {"h200-whole"}
    assert _gate_in_pod(monkeypatch, cases.gated_h100x8, pod, "h200-whole") == 2


def test_case3_the_gate_still_fails_a_wrong_device(monkeypatch: pytest.MonkeyPatch) -> None:
    pod = _one_pod(cases.gated_override)
    with pytest.raises(Exception, match="wrong_accelerator"):
        _gate_in_pod(monkeypatch, cases.gated_h100x8, pod, "h100-whole")


# -- case 4: a gate node keeps its accelerator whatever is chained on it ---------------------------
def test_case4_a_retried_gate_node_keeps_its_placement() -> None:
    registered = oracle.registered(cases.retried_gate, SETTINGS)
    gate_node = next(n for n in registered.nodes() if _is_gate(n.task_node.reference_id.name))
    assert gate_node.metadata.retries.retries == 3
    task_template = registered.tasks[gate_node.task_node.reference_id.name]
    pod = oracle.propeller_pod(task_template, gate_node.task_node.overrides)
    assert _lands(pod) == {"h100-whole"}
    assert oracle.device_request(pod) == {"nvidia.com/gpu": "1"}
    # what pyflyte-execute does in the pod: the resolver rebuilds the gate task from its name
    from flytekit.tools.module_loader import load_object_from_module

    args = pod["containers"][0]["args"]
    resolver = load_object_from_module(args[args.index("--resolver") + 1])
    loaded = resolver.load_task(args[args.index("--") + 1 :])
    assert loaded.name == task_template.id.name


def test_case4_gate_takes_retries_and_the_retry_policy_gets_some() -> None:
    @workflow
    def wf() -> None:
        gate("H100-SXM", policy="retry")
        gate("H100-SXM", retries=5)

    first, second = oracle.registered(wf, SETTINGS).workflows[wf.name].nodes
    assert (first.metadata.retries.retries, second.metadata.retries.retries) == (2, 5)
    with pytest.raises(AcceleratorError, match="never retries"):
        gate("H100-SXM", policy="retry", retries=0)


# -- case 5: a spec without a partition gets whole GPUs --------------------------------------------
def test_case5_one_h100_never_lands_on_a_mig_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    pod = _one_pod(cases.one_whole_gpu)
    assert _lands(pod) == {"h100-whole"}
    for node in _lands(pod):
        assert oracle.gate_accepts("H100-SXM", oracle.NODES[node])


def test_case5_the_training_template_gate_and_task_agree() -> None:
    import flyte_training

    for name, pod in _pods(flyte_training.training):
        if _is_gate(name):
            assert _lands(pod) == {"h100-whole"}, name


# -- case 6: mistakes fail when the task is written ------------------------------------------------
def test_case6_bad_gate_options_fail_at_decoration() -> None:
    from flytekitplugins.accelerators import accelerator_task

    with pytest.raises(
        AcceleratorError, match=r"unknown gate policy 'retyr'.*did you mean 'retry'"
    ):
        accelerator_task("H100-SXM", gate_policy="retyr")
    with pytest.raises(
        AcceleratorError, match=r"unknown gate profile 'quik'.*did you mean 'quick'"
    ):
        accelerator_task("H100-SXM", gate_profile="quik")
    with pytest.raises(AcceleratorError, match="unknown gate policy 'retyr'"):
        gate("H100-SXM", policy="retyr")


def test_case6_more_devices_than_any_node_fail_at_decoration() -> None:
    with pytest.raises(PlacementError, match=r"any cloud with H100-SXM that we know, p5\.48xlarge"):
        task_args("H100-SXM:99")
    with pytest.raises(PlacementError, match="with H100-SXM that we know, a3-edgegpu-8g"):
        task_args("H100-SXM:16", platform="gke")


# -- case 7: gated tasks from a script run as __main__ load as plain tasks do ----------------------
_SCRIPT = """
import sys
from flytekit import workflow
from flytekitplugins.accelerators import accelerator_task


@accelerator_task("H100-SXM:1")
def train(a: int) -> int:
    return a


@workflow
def wf(a: int = 1) -> int:
    return train(a=a)


if __name__ == "__main__":
    from collections import OrderedDict
    from flytekit.configuration import Image, ImageConfig, SerializationSettings
    from flytekit.tools.serialize_helpers import persist_registrable_entities
    from flytekit.tools.translator import get_serializable

    settings = SerializationSettings(
        image_config=ImageConfig(default_image=Image(name="d", fqn="registry/img", tag="1")))
    mapping = OrderedDict()
    get_serializable(mapping, settings, wf)   # what FlyteRemote.register_workflow serialises
    persist_registrable_entities(
        [e for e in mapping.values() if type(e).__name__ in ("TaskSpec", "WorkflowSpec")],
        sys.argv[1])
"""


def test_case7_a_gated_task_from_main_registers_its_own_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "my_pipeline.py"
    script.write_text(_SCRIPT)
    out = tmp_path / "pb"
    out.mkdir()
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'plugins/flyte'}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, str(script), str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    registered = oracle.read_folder(out)
    [name] = [n for n in registered.tasks if n.endswith("train")]
    assert name == "my_pipeline.train"  # exactly what a plain @task gets
    template = registered.tasks[name]
    pod = json.loads(json.dumps(oracle.propeller_pod(template)))
    args = pod["containers"][0]["args"]
    resolver = args[args.index("--resolver") + 1]
    loader = args[args.index("--") + 1 :]
    assert loader == ["task-module", "my_pipeline", "task-name", "train"]
    # what pyflyte-execute does in the pod: import the resolver, load the task
    monkeypatch.syspath_prepend(str(tmp_path))
    module, attribute = resolver.rsplit(".", 1)
    loaded = getattr(__import__(module, fromlist=[attribute]), attribute).load_task(loader)
    assert loaded.name == name
    assert loaded.task_config.spec == "H100-SXM"


# -- case 9: what the linter reports ---------------------------------------------------------------
def test_case9_a_gate_on_another_spec_and_unpinned_is_reported() -> None:
    codes = [(f.task, f.code) for f in check(cases.t4_gate_before_h100)]
    assert ("oracle_cases.h100x8", "gate-mismatch") in codes
    assert ("oracle_cases.h100x8", "unpinned-gate") in codes
