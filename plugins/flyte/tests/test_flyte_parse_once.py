"""Issue 34: the Flyte plugin converts a spec once, where it is given, and never parses the
canonical text of a spec it already holds (``accelerator_task`` parsed ``H100:8`` twice:
once itself, once more through ``Gate(str(parsed))``)."""

from __future__ import annotations

from flytekitplugins.accelerators import Gate, accelerator_task

import accelerators
from accelerators import AcceleratorSpec


def test_accelerator_task_parses_its_spec_once(spec_parses: list[str]) -> None:
    @accelerator_task("H100-SXM:8", platform="gke")
    def train() -> None: ...

    assert spec_parses == ["H100-SXM:8"]
    assert train.task_config == Gate("H100-SXM:8")


def test_a_gate_keeps_the_canonical_text_of_what_it_is_given(spec_parses: list[str]) -> None:
    spec = AcceleratorSpec.coerce(["h100-sxm:8", accelerators.A100])
    spec_parses.clear()
    assert Gate(spec).spec == "H100-SXM:8 | A100-40GB"
    assert Gate(accelerators.L4, policy="retry").spec == "L4"
    assert spec_parses == []  # a spec and a constant are not parsed
    assert Gate("h100-sxm:8").spec == "H100-SXM:8"
    assert spec_parses == ["h100-sxm:8"]
