"""``accelerators.spec``: what an :class:`AcceleratorSpec` says, through its public names.

The spec's other tests, by what they cover (this module does not repeat them):

* the grammar, valid and invalid texts with their exact messages: ``test_grammar.py``;
  dstack's forms: ``test_dstack_grammar.py``; names from other tools: ``test_peer_names.py``,
  ``test_flytekit_parity.py``; structured names: ``test_reader.py``, ``test_token_reader.py``
  (which also covers :meth:`AcceleratorSpec.explain`);
* round trips (text, JSON, equality, hashing) over catalog data: ``test_spec_properties.py``;
  parsing without validation gives what validation gives: ``test_spec_from_fields.py``;
* bad input, each with our error types: ``test_bad_input.py``, ``test_close_matches.py``;
* ``AcceleratorSpec.NVIDIA.H100(...)``: ``test_factories.py``; the constants:
  ``test_constants.py``; ``SpecLike`` in signatures: ``test_public_types.py``.

Here: building a spec from its fields, its derived properties, the copies ``with_count`` and
``with_partition`` make, alternatives and candidates, and that a spec is a value (equal by its
canonical form, hashable, picklable for Ray and multiprocessing).
"""

from __future__ import annotations

import pickle
import typing

import pytest

import accelerators
from accelerators import AcceleratorSpec, catalog
from accelerators.errors import AcceleratorError
from accelerators.spec import MAX_COUNT, SpecLike, SupportsToSpec


def test_fields_build_the_same_spec_as_its_text() -> None:
    by_name = AcceleratorSpec(accelerator="H100-SXM", count=8)
    by_entry = AcceleratorSpec(accelerator=catalog.get("H100-SXM"), count=8)
    assert by_name == by_entry == AcceleratorSpec.parse("H100-SXM:8")
    assert str(by_name) == "H100-SXM:8"
    assert repr(by_name) == "<AcceleratorSpec('H100-SXM:8')>"


@pytest.mark.parametrize(
    ("text", "devices", "fractional", "shared"),
    [
        ("H100-SXM:8", 8, False, False),
        ("T4:0.5", 1, True, True),  # half of one device: one device is needed
        ("T4@shared:2", 2, False, True),  # two shared slots, of unknown size
        ("A100-80GB@1g.10gb:7", 7, False, False),
    ],
)
def test_devices_needed_and_sharing(
    text: str, devices: int, fractional: bool, shared: bool
) -> None:
    spec = AcceleratorSpec.parse(text)
    assert spec.devices_needed == devices
    assert spec.is_fractional is fractional
    assert spec.is_shared is shared


def test_a_partition_is_a_mig_profile_or_a_tpu_topology_of_the_catalog() -> None:
    mig = AcceleratorSpec.parse("A100-80GB@1g.10gb:7")
    assert mig.mig_profile is not None
    assert (mig.mig_profile.profile, mig.mig_profile.memory_gb) == ("1g.10gb", 10.0)
    assert mig.tpu_topology is None
    tpu = AcceleratorSpec.parse("TPU-V5E@2x4")
    assert tpu.tpu_topology is not None
    assert (tpu.tpu_topology.topology, tpu.tpu_topology.chips) == ("2x4", 8)
    assert tpu.mig_profile is None
    whole = AcceleratorSpec.parse("A100-40GB@unpartitioned")
    assert whole.unpartitioned
    assert whole.mig_profile is None
    assert str(whole) == "A100-40GB@whole"


def test_with_count_and_with_partition_are_copies() -> None:
    spec = AcceleratorSpec.parse("A100-80GB:4")
    assert str(spec.with_count(8)) == "A100-80GB:8"
    assert str(spec.with_partition("1g.10gb")) == "A100-80GB@1g.10gb:4"
    assert str(spec.with_partition("1g.10gb").with_partition(None)) == "A100-80GB:4"
    assert str(spec) == "A100-80GB:4"  # unchanged
    with pytest.raises(AcceleratorError, match=r"9g\.99gb.*1g\.10gb"):
        spec.with_partition("9g.99gb")


def test_a_model_name_accepts_each_of_its_skus_and_a_pinned_one_only_itself() -> None:
    model = AcceleratorSpec.parse("A100-40GB")
    assert not model.exact
    assert [a.name for a in model.candidates] == ["A100-40GB-SXM", "A100-40GB-PCIE"]
    pinned = AcceleratorSpec.parse("A100-40GB!")
    assert pinned.exact
    assert [a.name for a in pinned.candidates] == ["A100-40GB-SXM"]
    by_memory = AcceleratorSpec.parse("nvidia:24GB:2")
    assert by_memory.accelerator is None
    assert by_memory.vendor == "nvidia"
    assert by_memory.candidates
    assert all(a.vendor == "nvidia" and a.device_memory_gb >= 24 for a in by_memory.candidates)


def test_alternatives_are_the_spec_and_its_fallbacks_in_order() -> None:
    spec = AcceleratorSpec.parse("H100-SXM:8 | A100-80GB:8")
    assert [str(a) for a in spec.alternatives] == ["H100-SXM:8", "A100-80GB:8"]
    assert all(a.fallbacks == () for a in spec.alternatives)
    single = AcceleratorSpec.parse("L4")
    assert single.alternatives == (single,)


def test_a_count_range_requests_its_low_end() -> None:
    spec = AcceleratorSpec.parse("H100-SXM:1..2")
    assert spec.count_range == (1, 2)
    assert spec.count == 1
    assert str(spec) == "H100-SXM:1..2"


def test_a_spec_is_a_value() -> None:
    spec = AcceleratorSpec.parse("H100-SXM:8 | A100-80GB:8")
    assert {AcceleratorSpec.parse("h100-sxm:8 | a100-80gb:8"): "same"}[spec] == "same"
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert AcceleratorSpec.parse(str(spec)) == spec


def test_the_count_has_a_ceiling() -> None:
    assert AcceleratorSpec.parse(f"H100-SXM:{MAX_COUNT}").count == MAX_COUNT
    with pytest.raises(AcceleratorError, match=str(MAX_COUNT)):
        AcceleratorSpec.parse(f"H100-SXM:{MAX_COUNT + 1}")


def test_spec_like_is_a_spec_text_anything_with_to_spec_or_a_list_of_them() -> None:
    spec, text, to_spec, chain = typing.get_args(SpecLike)
    assert (spec, text, to_spec) == (AcceleratorSpec, str, SupportsToSpec)
    assert typing.get_args(chain) == (AcceleratorSpec | str | SupportsToSpec,)
    assert str(accelerators.A100.to_spec()) == "A100-40GB"  # a constant: SupportsToSpec
