"""A wrong attribute name on a constant or on ``accelerators`` says what was meant."""

from __future__ import annotations

import pytest

import accelerators


@pytest.mark.parametrize(
    ("expression", "needle"),
    [
        (
            "accelerators.H10O",
            "module 'accelerators' has no attribute 'H10O'; did you mean 'H100'?",
        ),
        ("accelerators.AcceleratorSpek", "did you mean 'AcceleratorSpec'"),
        ("accelerators.A100.partiton_2g_10gb", "did you mean 'partition_2g_10gb'"),
        ("accelerators.A100.partiton_2g_10gb", "(partitions: partition_1g_5gb"),
        ("accelerators.A100.to_sepc", "did you mean 'to_spec'?"),
        ("accelerators.A100.partition_2g_10gb.to_sepc", "did you mean 'to_spec'?"),
        ("accelerators.T4.partiton_1g", "T4 cannot be partitioned"),
        ("accelerators.A100.partition_1g_20gb", "Did you mean 'partition_4g_20gb'"),
    ],
)
def test_close_names_are_suggested(expression: str, needle: str) -> None:
    with pytest.raises(AttributeError) as caught:
        eval(expression, {"accelerators": accelerators})
    assert needle in str(caught.value)


def test_probes_stay_plain_and_cheap() -> None:
    assert not hasattr(accelerators, "__wrapped__")
    assert not hasattr(accelerators.A100, "_private")
    with pytest.raises(AttributeError, match=r"^module 'accelerators' has no attribute 'zzz'$"):
        accelerators.zzz  # noqa: B018 - the attribute access is the test
