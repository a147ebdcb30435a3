"""IBM Spectrum LSF's ``bsub -gpu`` request read as a spec (accelerators._lsf)."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import AcceleratorError, InvalidSpecError, SpecSyntaxError

READ = [
    ("num=4:mode=exclusive_process:gmodel=NVIDIAGeForceGTX1080Ti", "GTX-1080-TI:4"),
    ("num=2:j_exclusive=yes:gmodel=NVIDIAH200", "H200-SXM!:2"),
    ("gmodel=NVIDIAA100_SXM4_80GB", "A100-80GB-SXM!"),
    # the compute mode is how the GPU runs, not a share of it: a whole V100
    ("num=1:mode=shared:gmodel=TeslaV100_SXM2_32GB", "V100-32GB-SXM2!"),
    ("num=8:gvendor=nvidia:gmodel=NVIDIAH10080GBHBM3", "H100-SXM!:8"),
]


@pytest.mark.parametrize(("text", "spec"), READ, ids=[r[0] for r in READ])
def test_reads(text: str, spec: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == spec


REFUSED = [
    ("num=2:gmem=10G:gmodel=NVIDIAA100_SXM4_80GB", "gmem= reserves GPU memory", SpecSyntaxError),
    ("num=1:mig=1/1:gmodel=NVIDIAA100_SXM4_40GB", "mig= asks for a MIG instance", SpecSyntaxError),
    ("num=1:mps=yes:gmodel=NVIDIAH200", "mps= shares the GPUs", SpecSyntaxError),
    ("num=2/task:gmodel=NVIDIAH200", "per-task or per-host count", SpecSyntaxError),
    # what the grammar reads but cannot hold: the type 'H100-SXM:0' and 'amd:H100' raise
    ("num=0:gmodel=NVIDIAH200", "a count of one or more", InvalidSpecError),
    ("num=2:gvendor=amd:gmodel=NVIDIAH200", "made by nvidia, not amd", InvalidSpecError),
    ("num=2:gmodel=8xH100", "already means a count of 8", InvalidSpecError),
    ("num=2:foo=bar:gmodel=NVIDIAH200", "foo= is no LSF -gpu key", SpecSyntaxError),
    ("num=2:mode=exclusive_process", "names its GPU with gmodel=", SpecSyntaxError),
    ("num=2:mode=sometimes:gmodel=NVIDIAH200", "takes shared or exclusive", SpecSyntaxError),
    ("num=2:num=3:gmodel=NVIDIAH200", "num= is given twice", SpecSyntaxError),
]


@pytest.mark.parametrize(("text", "message", "error"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refuses_what_a_spec_cannot_carry(
    text: str, message: str, error: type[AcceleratorError]
) -> None:
    with pytest.raises(error, match=message) as raised:
        AcceleratorSpec.parse(text)
    assert type(raised.value) is error
    assert raised.value.source == text


def test_the_explanation_reads_the_gmodel() -> None:
    explanation = AcceleratorSpec.explain("num=4:mode=exclusive_process:gmodel=NVIDIAH200")
    (reading,) = explanation.names
    assert reading.name == "NVIDIAH200"
    assert str(explanation).splitlines()[-1] == "spec: H200-SXM!:4"
