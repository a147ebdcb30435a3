"""``accelerators.detect._neuron``: sysfs, then ``neuron-ls``."""

from __future__ import annotations

import json
from pathlib import Path

from detect_fakes import (
    CATALOG,
    TRN2,
    FakeRunner,
    GiB,
    head,
    neuron_tree,
)

from accelerators.detect import current
from accelerators.detect._neuron import NeuronProbe


def test_neuron_from_sysfs(tmp_path: Path) -> None:
    runner = FakeRunner({})
    probe = NeuronProbe(sysfs_root=str(neuron_tree(tmp_path)), run=runner, catalog=CATALOG)
    found = current(probes=[probe])
    assert head(found) == ("neuron", "neuron-sysfs", 16, TRN2)
    first = found.devices[0]
    assert (first.vendor, first.raw_name, first.ecc_errors) == ("aws", "Trainium2", 1)
    assert first.extra["neuron_cores"] == "8"
    assert first.extra["instance_type"] == "Trn2"
    assert [d.extra["sysfs"] for d in found.devices[:3]] == ["neuron0", "neuron1", "neuron2"]
    assert found.devices[10].extra["sysfs"] == "neuron10"  # numeric, not lexical, order
    assert str(found.to_spec()) == "TRAINIUM2:16"
    assert runner.calls == []


def test_neuron_from_neuron_ls_when_sysfs_is_missing(tmp_path: Path) -> None:
    listing = [
        {"neuron_device": i, "bdf": f"00:1{i}.0", "nc_count": 2, "memory_size": 32 * GiB}
        for i in range(2)
    ]
    runner = FakeRunner({"neuron-ls": (0, json.dumps(listing))})
    found = current(probes=[NeuronProbe(sysfs_root=str(tmp_path), run=runner, catalog=CATALOG)])
    assert head(found) == ("neuron", "neuron-ls", 2, None)
    assert found.devices[0].memory_bytes == 32 * GiB
    assert found.reason == "neuron-ls reported 'Neuron device', which is not in the catalog"
    assert runner.calls == [("neuron-ls", "--json-output")]


def test_no_neuron(tmp_path: Path) -> None:
    probe = NeuronProbe(sysfs_root=str(tmp_path), run=FakeRunner({}), catalog=CATALOG)
    assert probe.detect() is None
    assert not probe.failed
