"""Tasks and workflows for issue 28's Flyte cases (what users already have: plugin configs,
their own resources and templates, gate nodes), written as a Flyte user writes them."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from flyte_helpers import SETTINGS
from flytekit import PodTemplate, Resources, dynamic, task, workflow
from flytekit.core.context_manager import ExecutionState, FlyteContextManager
from flytekit.core.type_engine import TypeEngine
from flytekitplugins.accelerators import GateResult, accelerator_task, pinned, task_args
from flytekitplugins.kfpytorch import Elastic, PyTorch, Worker
from flytekitplugins.ray import RayJobConfig, WorkerNodeConfig
from kubernetes.client import (
    V1Container,
    V1EmptyDirVolumeSource,
    V1EnvVar,
    V1PodSpec,
    V1Toleration,
    V1Volume,
    V1VolumeMount,
)

from accelerators.bench import run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

TWO_NODES = Elastic(nnodes=2, nproc_per_node=8)


# -- item 1: task plugins keep their type and config, with the gate ------------------------------
@accelerator_task("H100-SXM:8", task_config=TWO_NODES)
def elastic_gated(a: int) -> int:
    return a


@task(task_config=TWO_NODES, **task_args("H100-SXM:8"))
def elastic_plain(a: int) -> int:
    return a


@accelerator_task("H100-SXM:8", task_config=PyTorch(worker=Worker(replicas=2)))
def pytorch_gated(a: int) -> int:
    return a


@task(task_config=PyTorch(worker=Worker(replicas=2)), **task_args("H100-SXM:8"))
def pytorch_plain(a: int) -> int:
    return a


RAY = RayJobConfig(worker_node_config=[WorkerNodeConfig(group_name="gpu", replicas=2)])


@accelerator_task("H100-SXM:8", task_config=RAY)
def ray_gated(a: int) -> int:
    return a


@task(task_config=RAY, **task_args("H100-SXM:8"))
def ray_plain(a: int) -> int:
    return a


# -- item 3: a multi-node job behind a gate node ---------------------------------------------------
@dynamic
def elastic_pinned(gate_result: GateResult, a: int) -> int:
    # the form the issue found: every replica requires the gate's one hostname
    return elastic_plain(a=a).with_overrides(**pinned("H100-SXM:8", gate_result))


@task(task_config=TWO_NODES, **task_args("H100-SXM:8", pin_node="h100-whole-0"))
def elastic_pinned_statically(a: int) -> int:
    return a


@workflow
def pinned_job(a: int = 1) -> int:
    return elastic_pinned_statically(a=a)


@dynamic
def trainer_after_gate(gate_result: GateResult, a: int) -> int:
    # item 2: the trainer asks for 8 GPUs, whatever the gate checked
    return h100x8_cpu(a=a).with_overrides(
        **pinned("H100-SXM:8 | A100-80GB:8", gate_result, task=h100x8_cpu)
    )


# -- item 4: node overrides keep the task's own settings ------------------------------------------
def users_template() -> PodTemplate:
    """A team's own pod template: a log shipper, a scratch volume, their node pool, spot."""
    return PodTemplate(
        pod_spec=V1PodSpec(
            containers=[
                V1Container(
                    name="primary",
                    env=[V1EnvVar(name="WANDB_PROJECT", value="llm")],
                    volume_mounts=[V1VolumeMount(name="scratch", mount_path="/scratch")],
                ),
                V1Container(name="log-shipper", image="fluent/fluent-bit:3.1"),
            ],
            volumes=[V1Volume(name="scratch", empty_dir=V1EmptyDirVolumeSource())],
            node_selector={"team": "ml"},
            tolerations=[
                V1Toleration(key="spot", operator="Equal", value="true", effect="NoSchedule")
            ],
        ),
        labels={"team": "ml"},
    )


OWN = Resources(cpu="16", mem="128Gi")


@task(**task_args("H100-SXM:8", requests=OWN, pod_template=users_template()))
def h100x8_own(a: int) -> int:
    return a


@task(**task_args("H100-SXM:8", requests=Resources(cpu="16")))
def h100x8_cpu(a: int) -> int:
    return a


@accelerator_task("H100-SXM:8", requests=OWN, pod_template=users_template())
def gated_own(a: int) -> int:
    return a


@workflow
def moved_without_task(a: int = 1) -> int:
    return h100x8_own(a=a).with_overrides(**task_args("H200-SXM:8"))


@workflow
def moved_with_task(a: int = 1) -> int:
    h100x8_own(a=a).with_overrides(**task_args("MI300X:8", task=h100x8_own))
    return h100x8_own(a=a).with_overrides(**task_args("H200-SXM:8", task=h100x8_own))


@workflow
def gated_moved_with_task(a: int = 1) -> int:
    return gated_own(a=a).with_overrides(**task_args("H200-SXM:8", task=gated_own))


@workflow
def elastic_moved_with_task(a: int = 1) -> int:
    return elastic_gated(a=a).with_overrides(**task_args("H200-SXM:8", task=elastic_gated))


@task(requests=Resources(cpu="8", mem="32Gi"), limits=Resources(gpu="8"))
def declared_on_its_own(a: int) -> int:
    return a


# -- helpers --------------------------------------------------------------------------------------
def on(sku: str, *, mig: str | None = None, devices: int = 1) -> Any:
    """``accelerators.bench.run`` on fake devices that identify as ``sku``."""
    return functools.partial(
        run,
        backend=FakeBackend([FakeDevice() for _ in range(devices)]),
        detected=fake_detected(sku, count=devices, mig_profile=mig),
    )


@dataclass(frozen=True)
class FakeRun:
    """:func:`on` as a picklable value, built where it is called (a Ray worker process)."""

    sku: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return on(self.sku)(*args, **kwargs)


def compile_dynamic(dynamic_task: Any, inputs: dict[str, Any], hints: dict[str, type]) -> Any:
    """Compile a ``@dynamic`` as a cluster pod does (TASK_EXECUTION): its ``DynamicJobSpec``."""
    ctx = FlyteContextManager.current_context()
    with FlyteContextManager.with_context(ctx.with_serialization_settings(SETTINGS)) as ctx:
        state = ctx.execution_state.with_params(mode=ExecutionState.Mode.TASK_EXECUTION)
        with FlyteContextManager.with_context(ctx.with_execution_state(state)) as ctx:
            literals = TypeEngine.dict_to_literal_map(ctx, inputs, type_hints=hints)
            return dynamic_task.dispatch_execute(ctx, literals)
