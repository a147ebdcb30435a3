"""PBS Professional's ``qsub -l select=`` chunk request read as a spec (accelerators._pbs),
and a name written as a language's symbol (``:h100_sxm``)."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import AcceleratorError, InvalidSpecError, SpecSyntaxError

READ = [
    ("select=1:ncpus=4:mem=64gb:ngpus=1:gpu_type=L40S", "L40S"),
    # chunks times GPUs per chunk: 2 nodes' shares of 4
    ("select=2:ncpus=8:mem=64gb:ngpus=4:gpu_type=L40S", "L40S:8"),
    ("select=1:ncpus=2:mpiprocs=2:ompthreads=1:mem=80gb:ngpus=2:gpu_type=A100_80GB", "A100-80GB:2"),
    ("select=1:ngpus=1:gpu_type=v100:cpu_type=cascadelake:host=casper25", "V100-16GB | V100-32GB"),
    # as copied from a job script's directive, or with qsub's -l
    ("#PBS -l select=1:ncpus=4:mem=24gb:ngpus=1:gpu_type=L40S", "L40S"),
    ("-l select=2:ngpus=2:gpu_type=L40S", "L40S:4"),
]


@pytest.mark.parametrize(("text", "spec"), READ, ids=[r[0] for r in READ])
def test_reads(text: str, spec: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == spec


REFUSED = [
    ("select=1:ncpus=4:mem=24gb:ngpus=1", "names its GPU with gpu_type=", SpecSyntaxError),
    ("select=1:ncpus=4:gpu_type=L40S", "counts its GPUs with ngpus=", SpecSyntaxError),
    ("select=1:ngpus=0:gpu_type=L40S", "counts of one or more", InvalidSpecError),
    ("select=0:ngpus=2:gpu_type=L40S", "counts of one or more", InvalidSpecError),
    ("select=1:ngpus=1:gpu_type=L40S:walltime=1", "walltime= is no PBS chunk", SpecSyntaxError),
    ("select=1:ngpus=1:ngpus=2:gpu_type=L40S", "ngpus= is given twice", SpecSyntaxError),
    ("select=1:ngpus=1:gpu_type=L40S+1:ncpus=2", "Chunks of several kinds", SpecSyntaxError),
    ("select=1:ngpus=1:gpu_type=K9000", "Unknown accelerator 'K9000'", AcceleratorError),
    # several resource lists in one -l: the walltime is no chunk resource
    ("-l select=1:ngpus=1:gpu_type=L40S,walltime=1", "Expected key=value", SpecSyntaxError),
]


@pytest.mark.parametrize(("text", "message", "error"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refuses_what_it_cannot_read(
    text: str, message: str, error: type[AcceleratorError]
) -> None:
    with pytest.raises(error, match=message) as raised:
        AcceleratorSpec.parse(text)
    assert raised.value.source == text


def test_the_explanation_reads_the_gpu_type() -> None:
    explanation = AcceleratorSpec.explain("select=2:ncpus=8:ngpus=4:gpu_type=L40S")
    (reading,) = explanation.names
    assert reading.name == "L40S"
    assert str(explanation).splitlines()[-1] == "spec: L40S:8"


@pytest.mark.parametrize(
    ("text", "spec"),
    [(":h100_sxm", "H100-SXM"), (":a100_80g", "A100-80GB"), (" :l4 ", "L4")],
)
def test_a_name_written_as_a_symbol_reads_as_the_name(text: str, spec: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == spec


@pytest.mark.parametrize("text", [":8", ":", "::h100", ":h100:8"])
def test_a_colon_that_is_no_symbol_stays_the_grammar_s(text: str) -> None:
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse(text)
