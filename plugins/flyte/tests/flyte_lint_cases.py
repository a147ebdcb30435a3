"""Workflows with one accelerator mistake each, for the linter tests (not templates)."""

from __future__ import annotations

from flytekit import Resources, task, workflow
from flytekit.extras import accelerators as flytekit_accelerators
from flytekitplugins.accelerators import accelerator_task, gate, task_args

from accelerators import constants


@task(accelerator=constants.H100)
def no_gpu_count() -> None:
    return None


@task(
    accelerator=constants.A100.partition_1g_5gb,
    requests=Resources(gpu="2"),
    limits=Resources(gpu="2"),
)
def two_mig_slices() -> None:
    return None


@task(accelerator=flytekit_accelerators.A100.partitioned("1g.20gb"), limits=Resources(gpu="1"))
def missing_partition() -> None:
    return None


@task(accelerator=flytekit_accelerators.V5P.slice_2x2x2, limits=Resources(gpu="3"))
def tpu_wrong_chips() -> None:
    return None


@task(
    accelerator=flytekit_accelerators.GPUAccelerator("nvidia-tesla-a10O"), limits=Resources(gpu="1")
)
def unknown_device() -> None:
    return None


@task(**task_args("H100"))
def ungated() -> None:
    return None


@task(**task_args("H100"))
def after_gate(verdict: str) -> None:
    return None


@accelerator_task("A100@2g.10gb")
def self_gated() -> None:
    return None


@workflow
def wf_no_gpu_count() -> None:
    no_gpu_count()


@workflow
def wf_two_mig_slices() -> None:
    two_mig_slices()


@workflow
def wf_missing_partition() -> None:
    missing_partition()


@workflow
def wf_tpu_wrong_chips() -> None:
    tpu_wrong_chips()


@workflow
def wf_unknown_device() -> None:
    unknown_device()


@workflow
def wf_ungated() -> None:
    ungated()


@workflow
def wf_gated() -> None:
    result = gate("H100")
    after_gate(verdict=result.verdict)
    self_gated()


@workflow
def wf_sub() -> None:
    wf_ungated()


@task
def plain() -> None:
    return None


@workflow
def wf_count_on_node() -> None:
    no_gpu_count().with_overrides(requests=Resources(gpu="1"), limits=Resources(gpu="1"))


@workflow
def wf_accelerator_on_node() -> None:
    plain().with_overrides(accelerator=constants.L4)
