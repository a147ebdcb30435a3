"""flytekit's own accelerator test cases, written again here, run against our constants.

flytekit's ``tests/flytekit/unit/extras/test_accelerators.py`` (flyteorg/flyte, flytekit/)
checks four tasks: a whole T4, a bare A100 (no partition field), ``A100.unpartitioned`` and
``A100.partition_1g_5gb``, each serialised with ``get_serializable``. The same four cases run
here with flytekit's constant, ours, our spec text through ``task_args``, and ours through
``accelerator_task``; all four must give the same ``gpu_accelerator``, with one deliberate
difference: our spec text ``A100-40GB`` means whole GPUs, so ``task_args``/``accelerator_task``
send it as flytekit's ``A100.unpartitioned`` (a bare constant may land on a MIG slice).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flyte_helpers import serialize
from flytekit import task
from flytekit.extras import accelerators as theirs
from flytekitplugins.accelerators import accelerator_task, task_args

import accelerators as ours

# (case, flytekit's value, our value, our spec text, expected device, oneof, oneof value)
CASES = [
    ("gpu_accelerator", theirs.T4, ours.T4, "T4", "nvidia-tesla-t4", None, None),
    ("mig", theirs.A100, ours.A100, "A100-40GB", "nvidia-tesla-a100", None, None),
    (
        "mig_unpartitioned",
        theirs.A100.unpartitioned,
        ours.A100.unpartitioned,
        "A100-40GB@whole",
        "nvidia-tesla-a100",
        "unpartitioned",
        True,
    ),
    (
        "mig_partitioned",
        theirs.A100.partition_1g_5gb,
        ours.A100.partition_1g_5gb,
        "A100-40GB@1g.5gb",
        "nvidia-tesla-a100",
        "partition_size",
        "1g.5gb",
    ),
]


def _with_accelerator(value: Any) -> Any:
    @task(accelerator=value)
    def needs(a: int) -> None:
        return None

    return needs


def _with_task_args(text: str) -> Any:
    @task(**task_args(text))
    def needs(a: int) -> None:
        return None

    return needs


def _with_accelerator_task(text: str) -> Any:
    @accelerator_task(text, gate=False)
    def needs(a: int) -> None:
        return None

    return needs


MAKERS: dict[str, Callable[[tuple[Any, ...]], Any]] = {
    "flytekit": lambda case: _with_accelerator(case[1]),
    "our-constant": lambda case: _with_accelerator(case[2]),
    "task_args": lambda case: _with_task_args(case[3]),
    "accelerator_task": lambda case: _with_accelerator_task(case[3]),
}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("maker", list(MAKERS))
def test_flytekit_accelerator_case(case: tuple[Any, ...], maker: str) -> None:
    _, _, _, _, device, oneof, value = case
    reference_case = case
    if case[0] == "mig" and maker in ("task_args", "accelerator_task"):
        reference_case = CASES[2]  # spec text "A100-40GB" is whole GPUs: flytekit's unpartitioned
        oneof, value = "unpartitioned", True
    spec = serialize(MAKERS[maker](case)).to_flyte_idl()
    gpu = spec.template.extended_resources.gpu_accelerator
    assert spec.template.extended_resources.HasField("gpu_accelerator")
    assert gpu.device == device
    assert gpu.WhichOneof("partition_size_value") == oneof
    if oneof is not None:
        assert getattr(gpu, oneof) == value
    for other in {"unpartitioned", "partition_size"} - {oneof}:
        assert not gpu.HasField(other)
    reference = serialize(MAKERS["flytekit"](reference_case)).to_flyte_idl()
    reference = reference.template.extended_resources
    assert spec.template.extended_resources == reference
