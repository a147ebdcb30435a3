"""Tasks and workflows for the placement-oracle tests: each way of asking for an accelerator
that issue 17 found wrong, written as a Flyte user writes it (not templates)."""

from __future__ import annotations

from flytekit import Resources, task, workflow
from flytekitplugins.accelerators import accelerator_task, gate, task_args


@task(**task_args("H100-SXM:8"))
def h100x8(a: int) -> int:
    return a


@task(requests=Resources(cpu="2", mem="4Gi"))
def cpu_only(a: int) -> int:
    return a


@task(**task_args("H100-SXM:1"))
def h100x1(a: int) -> int:
    return a


@task(**task_args("T4"))
def t4(a: int) -> int:
    return a


@accelerator_task("H100-SXM:8")
def gated_h100x8(a: int) -> int:
    return a + 1


# case 1: overrides to a fallback, to another vendor, to a TPU
@workflow
def override_to_fallback(a: int = 1) -> int:
    return h100x8(a=a).with_overrides(**task_args("H100-SXM:8 | A100-80GB:8"))


@workflow
def override_to_amd(a: int = 1) -> int:
    return h100x8(a=a).with_overrides(**task_args("MI300X:8"))


@workflow
def override_to_tpu(a: int = 1) -> int:
    return h100x8(a=a).with_overrides(**task_args("V5P@2x2x1"))


# case 2: the user's own resources
@workflow
def tpu_over_cpu_task(a: int = 1) -> int:
    return cpu_only(a=a).with_overrides(**task_args("V5P@2x2x1"))


@task(**task_args("MI300X:8", requests=Resources(cpu="8", mem="64Gi")))
def amd_with_cpu(a: int) -> int:
    return a


@task(**task_args("V5P@2x2x1", requests=Resources(cpu="8", mem="32Gi"), limits=Resources(cpu="16")))
def tpu_with_cpu(a: int) -> int:
    return a


@task(**task_args("H100-SXM:8", requests=Resources(cpu="16", mem="128Gi")))
def nvidia_with_cpu(a: int) -> int:
    return a


@workflow
def user_resources(a: int = 1) -> int:
    amd_with_cpu(a=a)
    tpu_with_cpu(a=a)
    return nvidia_with_cpu(a=a)


# case 3: an in-pod gate, moved by a node override (the docs' example)
@workflow
def gated_override(a: int = 1) -> int:
    return gated_h100x8(a=a).with_overrides(**task_args("H200-SXM:8"))


# case 4: a retried gate node
@workflow
def retried_gate(a: int = 1) -> int:
    checked = gate("H100-SXM:1", policy="retry").with_overrides(retries=3)
    result = h100x1(a=a)
    checked >> result
    return result


# case 5: one whole GPU
@workflow
def one_whole_gpu(a: int = 1) -> int:
    return h100x1(a=a)


# case 9: what the linter must see
@workflow
def t4_gate_before_h100(a: int = 1) -> int:
    checked = gate("T4")
    result = h100x8(a=a)
    checked >> result
    return result
