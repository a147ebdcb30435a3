"""Constants and catalog data agree; constants are values; constants and specs convert both ways."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import os
import pickle
import re
import subprocess
import sys

import pytest

import accelerators
from accelerators import catalog, constants
from accelerators.constants import (
    Device,
    Partition,
    constant_for,
    flyte_device,
    from_flyte_device,
)
from accelerators.errors import (
    AcceleratorError,
    PlacementError,
    UnknownAcceleratorError,
    UnknownPartitionError,
)
from accelerators.spec import AcceleratorSpec, MemoryRequest

ENTRIES = catalog.all()
WITH_CONSTANT = [acc for acc in ENTRIES if acc.constant]
CONSTANT_NAMES = [acc.constant for acc in WITH_CONSTANT]
LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
PARTITIONS = [
    (acc.constant, attribute)
    for acc in WITH_CONSTANT
    for attribute in [m.attribute for m in acc.mig if LABEL_VALUE.match(m.profile)]
    + [t.attribute for t in acc.tpu_topologies]
]
UNLABELABLE = [
    (acc.constant, m.attribute, m.profile)
    for acc in WITH_CONSTANT
    for m in acc.mig
    if not LABEL_VALUE.match(m.profile)
]
SPLITTABLE = [acc.constant for acc in WITH_CONSTANT if acc.partitions]
WHOLE_ONLY = [acc.constant for acc in WITH_CONSTANT if not acc.partitions]

needs_parser = pytest.mark.skipif(
    importlib.util.find_spec("accelerators._parser") is None,
    reason="the spec grammar (accelerators._parser) is not in this tree yet",
)


def _constant(name: str) -> Device:
    value = getattr(constants, name)
    assert isinstance(value, Device)
    return value


def _partition_attributes(device: Device) -> set[str]:
    return {n for n in dir(device) if n.startswith(("partition_", "slice_"))}


# -- the constants and the data agree -------------------------------------------------------
def test_scanned_names_match_the_validated_catalog() -> None:
    # GIVEN the names __all__ lists without loading the catalog
    # THEN they are exactly the validated entries' constants, in data-file order
    assert constants._constant_names() == tuple(CONSTANT_NAMES)
    assert list(constants.__all__) == [
        "Device",
        "Partition",
        "constant_for",
        "flyte2_name",
        "flyte_device",
        "from_flyte_device",
        *CONSTANT_NAMES,
    ]
    assert dir(constants) == sorted(constants.__all__)


@pytest.mark.parametrize("name", CONSTANT_NAMES)
def test_constant_matches_its_entry(name: str) -> None:
    device = _constant(name)
    entry = next(acc for acc in ENTRIES if acc.constant == name)
    assert device.accelerator is entry
    assert device.name == name
    assert device.device == flyte_device(entry)
    if entry.names.flyte:
        assert device.device == entry.names.flyte
    assert getattr(accelerators, name) is device
    assert repr(device) == f"<Device {entry.model if entry.default_for_model else entry.name}>"


@pytest.mark.parametrize("name", CONSTANT_NAMES)
def test_partition_attributes_are_exactly_the_entrys_profiles(name: str) -> None:
    device = _constant(name)
    entry = device.accelerator
    expected = {m.attribute: m.profile for m in entry.mig if LABEL_VALUE.match(m.profile)}
    expected |= {t.attribute: t.topology for t in entry.tpu_topologies}
    assert _partition_attributes(device) == set(expected)
    for attribute, partition in expected.items():
        value = getattr(device, attribute)
        assert value == Partition(entry, partition=partition)
        assert value.partition == partition
        assert value.attribute == attribute
        assert value.name == f"{name}.{attribute}"
    assert ("unpartitioned" in dir(device)) == bool(expected)


@pytest.mark.parametrize("name", SPLITTABLE)
def test_unpartitioned_of_a_splittable_device(name: str) -> None:
    device = _constant(name)
    whole = device.unpartitioned
    assert whole == Partition(device.accelerator, unpartitioned=True)
    assert (whole.partition, whole.whole) == (None, True)
    assert whole.unpartitioned is whole
    assert whole.name == f"{name}.unpartitioned"
    assert repr(whole).endswith("@whole>")


@pytest.mark.parametrize("name", WHOLE_ONLY)
def test_whole_only_device_has_no_partition_surface(name: str) -> None:
    device = _constant(name)
    assert not hasattr(device, "unpartitioned")
    assert _partition_attributes(device) == set()
    with pytest.raises(AttributeError, match="cannot be partitioned"):
        device.partition_1g_5gb  # noqa: B018


# -- value semantics ----------------------------------------------------------------------------
def test_values_compare_and_hash_by_value() -> None:
    a100 = _constant("A100")
    profile = a100.accelerator.mig[0]
    assert Device(a100.accelerator) == a100
    assert hash(Device(a100.accelerator)) == hash(a100)
    by_attribute = getattr(a100, profile.attribute)
    by_text = a100.partitioned(profile.profile)
    assert by_attribute == by_text
    assert by_attribute is not by_text
    assert len({by_attribute, by_text, a100, a100.unpartitioned}) == 3
    assert a100 != by_attribute
    assert a100.unpartitioned != by_attribute
    assert a100 != _constant("T4")


def test_reprs_read_as_spec_text() -> None:
    a100 = _constant("A100")
    assert repr(a100) == "<Device A100-40GB>"
    assert repr(a100.partition_1g_5gb) == "<Partition A100-40GB@1g.5gb>"
    assert repr(a100.unpartitioned) == "<Partition A100-40GB@whole>"


@pytest.mark.parametrize(
    "value",
    [lambda: _constant("A100"), lambda: _constant("A100").partition_1g_5gb],
    ids=["device", "partition"],
)
def test_values_are_frozen_and_survive_copy_and_pickle(value: object) -> None:
    obj = value()  # type: ignore[operator]
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.accelerator = None
    assert copy.copy(obj) is obj
    assert copy.deepcopy(obj) is obj
    restored = pickle.loads(pickle.dumps(obj))
    assert restored == obj
    assert restored.accelerator is obj.accelerator


# -- leaf-ness and error messages ------------------------------------------------------------
@pytest.mark.parametrize(("name", "attribute"), PARTITIONS)
def test_partitions_are_leaves(name: str, attribute: str) -> None:
    part = getattr(_constant(name), attribute)
    for other in _partition_attributes(_constant(name)) | {"partitioned"}:
        with pytest.raises(AttributeError, match="already a partition"):
            getattr(part, other)
    # as in flytekit, .unpartitioned of a partition is the same device, unpartitioned
    assert part.whole is False
    assert part.unpartitioned == _constant(name).unpartitioned


def test_wrong_mig_profile_names_the_valid_ones_and_close_ones() -> None:
    # GIVEN the 40 GB A100, which has no 1g.20gb profile
    a100 = _constant("A100")
    # WHEN asking for it
    with pytest.raises(AttributeError) as caught:
        a100.partition_1g_20gb  # noqa: B018
    # THEN the message names the offending attribute, every valid one, and close matches
    message = str(caught.value)
    assert message.startswith("<Device A100-40GB> has no attribute 'partition_1g_20gb'; valid: ")
    for profile in a100.accelerator.mig:
        assert (profile.attribute in message) == bool(LABEL_VALUE.match(profile.profile))
    assert "Did you mean" in message
    owners = [
        acc.constant
        for acc in WITH_CONSTANT
        if "1g.20gb" in acc.partitions and acc.constant != "A100"
    ]
    if owners:
        assert f"(partition_1g_20gb is an attribute of {owners[0]}" in message


def test_unknown_module_constant_suggests_close_names() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'A1000'; did you mean 'A100'"):
        constants.A1000  # noqa: B018


def test_unknown_plain_attribute_is_a_plain_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"^<Device A100-40GB> has no attribute 'foo'$"):
        _constant("A100").foo  # noqa: B018
    assert getattr(_constant("A100"), "_partition_size", None) is None


def test_partition_construction_is_validated() -> None:
    a100 = _constant("A100").accelerator
    with pytest.raises(AcceleratorError, match="exactly one of"):
        Partition(a100)
    with pytest.raises(AcceleratorError, match="exactly one of"):
        Partition(a100, partition="1g.5gb", unpartitioned=True)
    with pytest.raises(UnknownPartitionError, match=r"has no MIG profile '9g\.1gb'"):
        Partition(a100, partition="9g.1gb")
    with pytest.raises(AcceleratorError, match="cannot be partitioned"):
        Partition(_constant("T4").accelerator, unpartitioned=True)
    with pytest.raises(AcceleratorError, match="expects a catalog entry"):
        Device("A100")  # type: ignore[arg-type]


# -- constants <-> specs -------------------------------------------------------------------------
@pytest.mark.parametrize("name", CONSTANT_NAMES)
def test_device_round_trips_through_its_spec(name: str) -> None:
    device = _constant(name)
    spec = device.to_spec()
    assert spec.accelerator == device.accelerator
    assert spec.exact is not device.accelerator.default_for_model
    assert (spec.partition, spec.unpartitioned, spec.count) == (None, False, 1)
    assert AcceleratorSpec.coerce(device) == spec
    assert constant_for(spec) is device
    assert constant_for(device.to_spec(count=4)) is device
    if device.accelerator.default_for_model:
        assert spec.candidates == catalog.by_model(device.accelerator.model)
    else:
        assert spec.candidates == (device.accelerator,)


@pytest.mark.parametrize(("name", "attribute"), PARTITIONS)
def test_partition_round_trips_through_its_spec(name: str, attribute: str) -> None:
    part = getattr(_constant(name), attribute)
    spec = part.to_spec(count=2)
    assert spec == AcceleratorSpec(
        accelerator=part.accelerator,
        partition=part.partition,
        count=2,
        exact=not part.accelerator.default_for_model,
    )
    assert AcceleratorSpec.coerce(part) == part.to_spec()
    assert constant_for(spec) == part


@pytest.mark.parametrize("name", SPLITTABLE)
def test_unpartitioned_round_trips_through_its_spec(name: str) -> None:
    whole = _constant(name).unpartitioned
    spec = whole.to_spec()
    assert spec.unpartitioned
    assert spec.partition is None
    assert constant_for(spec) == whole


@needs_parser
@pytest.mark.parametrize(("name", "attribute"), PARTITIONS)
def test_partition_equals_its_spec_text(name: str, attribute: str) -> None:
    part = getattr(_constant(name), attribute)
    label = part.accelerator.model if part.accelerator.default_for_model else part.accelerator.name
    assert AcceleratorSpec.coerce(part) == AcceleratorSpec.parse(f"{label}@{part.partition}")
    assert constant_for(f"{label}@{part.partition}") == part


def test_model_level_spec_of_a_non_default_sku_maps_to_the_model_constant() -> None:
    # A spec that accepts any SKU of a model is the model's constant, whichever SKU it holds.
    for model in catalog.models():
        skus = catalog.by_model(model)
        default = skus[0]
        if default.constant is None:
            continue
        for sku in skus:
            assert constant_for(AcceleratorSpec(accelerator=sku)) is _constant(default.constant)


def test_entry_without_constant_gives_an_anonymous_device() -> None:
    # GIVEN an entry without a constant (every shipped entry has one, so drop A30's)
    entry = catalog.get("A30").model_copy(update={"constant": None})
    spec = AcceleratorSpec(accelerator=entry, exact=True)
    # WHEN converting its spec
    device = constant_for(spec)
    # THEN the device is anonymous but otherwise whole
    assert device == Device(entry)
    assert device.name is None
    assert device.accelerator.constant is None
    assert constant_for(device.to_spec()) == device
    part = device.partitioned(entry.partitions[0])
    assert part.name is None
    assert constant_for(part.to_spec()) == part


def test_memory_only_spec_has_no_constant() -> None:
    spec = AcceleratorSpec(memory=MemoryRequest(gb=40, at_least=True))
    with pytest.raises(AcceleratorError, match="names no accelerator, so it has no constant"):
        constant_for(spec)


def test_spec_with_fallbacks_has_no_single_constant() -> None:
    spec = AcceleratorSpec.coerce([_constant("A100"), _constant("T4")])
    with pytest.raises(AcceleratorError, match="has fallbacks"):
        constant_for(spec)
    assert [constant_for(alt) for alt in spec.alternatives] == [
        _constant("A100"),
        _constant("T4"),
    ]


# -- Flyte IDL edge cases ------------------------------------------------------------------------
def test_to_flyte_idl_without_flyteidl_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for module in ("flyteidl", "flyteidl.core", "flyteidl.core.tasks_pb2"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=r'pip install "accelerators\[flyte\]"'):
        _constant("A100").partition_1g_5gb.to_flyte_idl()


# -- item 0 of issue 8: every constant serialises, or fails when it is written ------------------
def test_every_constant_has_a_distinct_valid_device_string() -> None:
    # Entries flytekit lacks (A30, PCIe SKUs, GH200, Gaudi...) get a derived string that
    # names that entry alone, so no two constants share a device string.
    devices = {name: _constant(name).device for name in CONSTANT_NAMES}
    assert len(set(devices.values())) == len(devices)
    assert all(LABEL_VALUE.match(d) and len(d) <= 63 for d in devices.values())
    derived = {n: d for n, d in devices.items() if _constant(n).accelerator.names.flyte is None}
    assert derived["A30"] == "nvidia-a30"
    assert derived["A100_PCIE"] == "nvidia-a100-40gb-pcie"
    assert derived["GAUDI2"] == "habana-gaudi2"
    assert derived["V100_32GB"] == "nvidia-v100-32gb"  # a model: both its SKUs carry it
    # Every derived string starts with its vendor's prefix, so it never reads as another's.
    prefixes = {
        ("nvidia", "gpu"): "nvidia-",
        ("amd", "gpu"): "amd-",
        ("intel", "hpu"): "habana-",
        ("intel", "gpu"): "intel-",
        ("google", "tpu"): "tpu-",
        ("aws", "neuron"): "aws-neuron-",
        ("huawei", "npu"): "huawei-",
        ("qualcomm", "npu"): "qualcomm-",
        ("cambricon", "npu"): "cambricon-",
        ("hygon", "gpu"): "hygon-",
        ("iluvatar", "gpu"): "iluvatar-",
        ("metax", "gpu"): "metax-",
        ("mthreads", "gpu"): "mthreads-",
        ("biren", "gpu"): "biren-",
        ("tenstorrent", "npu"): "tenstorrent-",
        ("furiosa", "npu"): "furiosa-",
        ("apple", "gpu"): "apple-",
    }
    for name, device in derived.items():
        acc = _constant(name).accelerator
        assert device.startswith(prefixes[(acc.vendor, acc.device_class)]), (name, device)


@pytest.mark.parametrize(("name", "attribute", "profile"), UNLABELABLE)
def test_plus_profiles_fail_when_written(name: str, attribute: str, profile: str) -> None:
    # '+' is not allowed in a label value, so no Flyte node can carry these profiles.
    device = _constant(name)
    assert attribute not in dir(device)
    with pytest.raises(AttributeError, match=re.escape(f"MIG profile {profile!r}")) as caught:
        getattr(device, attribute)
    assert "platform 'nvidia'" in str(caught.value)
    with pytest.raises(PlacementError, match="not allowed in a Kubernetes label value"):
        device.partitioned(profile)
    spec = AcceleratorSpec(accelerator=device.accelerator, partition=profile)
    with pytest.raises(PlacementError, match="cannot be a Flyte constant"):
        constant_for(spec)


def test_minus_me_no_longer_collides_with_plus_me() -> None:
    rtx = _constant("RTX_PRO_6000")
    no_me = rtx.partition_1g_24gb_no_me
    assert no_me.partition == "1g.24gb-me"
    assert no_me.name == "RTX_PRO_6000.partition_1g_24gb_no_me"
    attributes = [m.attribute for m in rtx.accelerator.mig]
    assert len(attributes) == len(set(attributes))
    for attribute in _partition_attributes(rtx):
        assert getattr(rtx, attribute).name == f"RTX_PRO_6000.{attribute}"


# -- public surface and import cost ----------------------------------------------------------
def test_star_import_exports_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from accelerators.constants import *", namespace)
    exported = {k for k in namespace if k != "__builtins__"}
    assert exported == set(constants.__all__)
    assert all(isinstance(namespace[n], Device) for n in CONSTANT_NAMES)


def test_import_and_all_stay_cheap() -> None:
    code = (
        "import sys, accelerators.constants as c\n"
        "names = c.__all__\n"
        "assert 'A100' in names, names\n"
        "heavy = [m for m in ('pydantic', 'flyteidl', 'flytekit') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "c.A100\n"
        "assert 'pydantic' in sys.modules and 'flyteidl' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=_child_env())


def _child_env() -> dict[str, str]:
    """The environment for a child interpreter that imports this checkout's package."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


@pytest.mark.parametrize("name", CONSTANT_NAMES)
def test_from_flyte_device_inverts_device(name: str) -> None:
    device = _constant(name)
    assert from_flyte_device(device.device) == device
    for attribute in sorted(_partition_attributes(device))[:2]:
        part = getattr(device, attribute)
        assert from_flyte_device(part.device, part.partition) == part
    if device.accelerator.partitions:
        assert from_flyte_device(device.device, unpartitioned=True) == device.unpartitioned


def test_from_flyte_device_names_what_is_wrong() -> None:
    with pytest.raises(UnknownAcceleratorError, match="did you mean 'nvidia-tesla-a100'"):
        from_flyte_device("nvidia-tesla-a10O")
    with pytest.raises(UnknownPartitionError, match=r"has no MIG profile '1g\.20gb'"):
        from_flyte_device("nvidia-tesla-a100", "1g.20gb")
