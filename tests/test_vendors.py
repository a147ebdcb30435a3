"""The vendor registry (``accelerators/_vendors.py``) is the one place a vendor is written.

Every vendor table is read from it; the two typed mirrors that must stay literal for the type
checkers (the catalog's ``Vendor``/``DeviceClass`` literals and the ``AcceleratorSpec.<Vendor>``
factory namespaces) are held to it here; and a vendor added to the registry alone, in a fresh
interpreter, reaches every table.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

from accelerators import AcceleratorSpec, catalog
from accelerators._vendors import VENDORS, device_classes, vendor_names, vendor_record
from accelerators.catalog._schema import DeviceClass, Vendor
from accelerators.detect import Kind, default_probes
from accelerators.kubernetes import is_device_resource
from accelerators.kubernetes._devices import describe, device_resource, taint_key

ROOT = Path(__file__).resolve().parent.parent


def test_the_catalog_literals_are_the_registry() -> None:
    assert typing.get_args(Vendor) == vendor_names()
    assert sorted(typing.get_args(DeviceClass)) == sorted(device_classes())
    assert set(device_classes()) <= set(typing.get_args(Kind))


def test_every_vendor_has_its_factory_namespace() -> None:
    for vendor in VENDORS:
        factories = getattr(AcceleratorSpec, vendor.display)
        assert factories.vendor == vendor.name


def test_every_catalog_entry_is_a_registered_device() -> None:
    for acc in catalog.all():
        record = vendor_record(acc.vendor)
        assert record is not None, acc.name
        assert record.device(acc.device_class) is not None, acc.name
        resource = device_resource(acc.vendor, acc.device_class)
        assert resource is not None, acc.name
        assert is_device_resource(resource), acc.name
    assert describe(catalog.get("H100-SXM")) == "H100-SXM is an NVIDIA GPU"
    assert describe(catalog.get("Gaudi3")).endswith("is an Intel Gaudi HPU")


def test_probes_run_in_registry_order() -> None:
    probes = [type(p) for p in default_probes()]
    named = [f"{cls.__module__}:{cls.__name__}" for cls in probes]
    assert named == [path for vendor in VENDORS for path in vendor.probes]


def test_taints_follow_the_vendor() -> None:
    assert taint_key("nvidia.com/mig-1g.10gb") == "nvidia.com/gpu"
    assert taint_key("amd.com/gpu") == "amd.com/gpu"
    assert taint_key("aws.amazon.com/neuroncore") == "aws.amazon.com/neuron"
    assert taint_key("habana.ai/gaudi") == "habana.ai/gaudi"


FAKE_VENDOR = """
import json, sys, types
from dataclasses import replace

import accelerators._vendors as registry

# A probe module of its own, as a new vendor brings one.
probe_module = types.ModuleType("fake_cerebras_probe")
exec(
    "from accelerators.detect import Probe\\n"
    "class CerebrasProbe(Probe):\\n"
    "    name = 'cerebras'\\n"
    "    def _detect(self):\\n"
    "        return self._absent('no wafer here')\\n",
    probe_module.__dict__,
)
sys.modules["fake_cerebras_probe"] = probe_module

registry.VENDORS = (
    *registry.VENDORS,
    registry.VendorRecord(
        name="cerebras",
        display="Cerebras",
        article="a",
        devices=(registry.DeviceRecord("wse", "wafer-scale engine", "cerebras.net/wse", "cs-"),),
        words=("wafer",),
        resource_families=("cerebras.net/",),
        taint=("cerebras.net/", "cerebras.net/wse"),
        probes=("fake_cerebras_probe:CerebrasProbe",),
    ),
)

from types import SimpleNamespace

from accelerators import _factories, _flyte_names, _tokenizer
from accelerators.catalog import _spellings, _token_meanings
from accelerators.detect import default_probes
from accelerators.kubernetes import is_device_resource
from accelerators.kubernetes._devices import describe, device_resource, taint_key
from accelerators.sizing import _recommend
from accelerators.spec import AcceleratorSpec

wse = SimpleNamespace(name="WSE-3", vendor="cerebras", device_class="wse")
print(json.dumps({
    "spec": str(AcceleratorSpec.parse("Cerebras:2")),
    "vendor_token": _tokenizer.DEFAULT_RULES["VENDOR"].match("Cerebras:2") is not None,
    "factory_label": _factories._VENDOR_LABELS.get("cerebras"),
    "reader_display": _token_meanings._VENDORS.get("cerebras"),
    "vendor_word": [_spellings.is_vendor_word("cerebras"), _spellings.is_vendor_word("wafer")],
    "flyte_prefix": _flyte_names._DEVICE_PREFIX.get(("cerebras", "wse")),
    "sizing_vendors": "cerebras" in _recommend._VENDORS,
    "resource": device_resource("cerebras", "wse"),
    "device_resource": [is_device_resource(f"cerebras.net/{n}") for n in ("wse", "x")],
    "taint": taint_key("cerebras.net/wse-shared"),
    "describe": describe(wse),
    "probes": [p.name for p in default_probes()][-1],
}))
"""


def test_a_vendor_added_to_the_registry_reaches_every_table() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FAKE_VENDOR)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found == {
        "spec": "cerebras:2",
        "vendor_token": True,
        "factory_label": "Cerebras",
        "reader_display": "Cerebras",
        "vendor_word": [True, True],
        "flyte_prefix": "cs-",
        "sizing_vendors": True,
        "resource": "cerebras.net/wse",
        "device_resource": [True, True],
        "taint": "cerebras.net/wse",
        "describe": "WSE-3 is a Cerebras wafer-scale engine",
        "probes": "cerebras",
    }
