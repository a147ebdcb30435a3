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


@task(**task_args("H100-SXM"))
def ungated() -> None:
    return None


@task(**task_args("H100-SXM"))
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
    result = gate("H100-SXM")
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


# -- what issue 17 found the linter missing ------------------------------------------------------
@task(**task_args("H100-SXM:8"))
def h100x8() -> None:
    return None


@workflow
def wf_gate_on_another_spec() -> None:
    checked = gate("T4")
    result = h100x8()
    checked >> result


@task(accelerator=constants.H100.unpartitioned, limits=Resources(gpu="8"))
def flytekit_style_h100() -> None:
    return None


@workflow
def wf_override_reset_by_a_later_call() -> None:
    # the second with_overrides resets the node's accelerator (flytekit), the template stays
    flytekit_style_h100().with_overrides(**task_args("H100-SXM:8 | A100-80GB:8")).with_overrides(
        retries=2
    )


@task(
    pod_template=task_args("MI300X:8")["pod_template"],
    requests=Resources(cpu="8", mem="64Gi"),
)
def amd_template_with_cpu() -> None:
    return None


@workflow
def wf_dropped_device() -> None:
    amd_template_with_cpu()


@task(requests=Resources(cpu="2"))
def cpu_task() -> None:
    return None


@workflow
def wf_override_device_dropped() -> None:
    cpu_task().with_overrides(**task_args("V5P@2x2x1"))


@accelerator_task("H100-SXM:8")
def gated_h100x8() -> None:
    return None


@workflow
def wf_gated_moved_without_task_args() -> None:
    gated_h100x8().with_overrides(
        accelerator=constants.H200.unpartitioned, limits=Resources(gpu="8")
    )


@workflow
def wf_gated_moved_with_task_args() -> None:
    gated_h100x8().with_overrides(**task_args("H200-SXM:8"))


@task(accelerator=constants.H100.unpartitioned, limits=Resources(gpu="1"))
def whole_h100() -> None:
    return None


@task(**task_args("V5P@2x2x1"))
def tpu_task() -> None:
    return None


@workflow
def wf_tpu_ungated() -> None:
    tpu_task()
