"""``alternative_on``: what a gate found picks among a guarded task's own alternatives."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorError
from accelerators.bench import DeviceSummary, alternative_on


def _found(accelerator: str | None, *, mig: str | None = None, count: int = 1) -> DeviceSummary:
    return DeviceSummary(
        kind="gpu" if accelerator else "cpu",
        name=accelerator or "cpu",
        accelerator=accelerator,
        count=count,
        is_mig=mig is not None,
        mig_profile=mig,
    )


def test_the_task_keeps_its_own_count() -> None:
    # issue 28 item 2: a 1-GPU gate never shrinks an 8-GPU task
    assert str(alternative_on("H100-SXM:8", _found("H100-SXM", count=1))) == "H100-SXM:8"


def test_the_device_picks_among_the_tasks_alternatives() -> None:
    task = "H100-SXM:8 | A100-80GB:8 | L40S:4"
    assert str(alternative_on(task, _found("A100-80GB-SXM"))) == "A100-80GB:8"
    assert str(alternative_on(task, _found("L40S"))) == "L40S:4"
    assert str(alternative_on(task, _found("H100-MEGA"))) == "H100-SXM:8"  # any SKU of the model


def test_partitions_must_agree() -> None:
    sliced = alternative_on("A100@1g.5gb | A100", _found("A100-40GB-SXM", mig="1g.5gb"))
    assert str(sliced) == "A100-40GB@1g.5gb"
    whole = alternative_on("A100@1g.5gb | A100:2", _found("A100-40GB-SXM"))
    assert str(whole) == "A100-40GB:2"
    with pytest.raises(AcceleratorError, match=r"MIG 2g\.10gb, which is none of"):
        alternative_on("A100:8", _found("A100-40GB-SXM", mig="2g.10gb"))


def test_a_device_the_task_did_not_ask_for_is_refused_with_both_sides() -> None:
    with pytest.raises(AcceleratorError) as caught:
        alternative_on("H100-SXM:8 | H200-SXM:8", _found("L4"))
    message = str(caught.value)
    assert "found L4" in message
    assert "H100-SXM:8 | H200-SXM:8" in message
    with pytest.raises(AcceleratorError, match="identified no accelerator"):
        alternative_on("H100-SXM:8", _found(None))
