"""A board whose vendor's device plugins name one resource per card asks for its own
(catalog ``k8s_resource``): Tenstorrent's n300 is ``tenstorrent.com/n300``, not the n150's."""

from __future__ import annotations

import pytest

from accelerators.kubernetes import to_pod_fragment


@pytest.mark.parametrize(
    ("name", "resource"),
    [
        ("WORMHOLE-N150", "tenstorrent.com/n150"),  # the vendor's default
        ("WORMHOLE-N300", "tenstorrent.com/n300"),
        ("BLACKHOLE-P150:2", "tenstorrent.com/blackhole"),
    ],
)
def test_a_card_with_its_own_resource_is_placed_on_it(name: str, resource: str) -> None:
    fragment = to_pod_fragment(name, platform="generic")
    count = name.partition(":")[2] or "1"
    assert fragment["resources"] == {"limits": {resource: count}, "requests": {resource: count}}
    assert fragment["tolerations"][0]["key"] == resource


def test_a_resource_the_vendor_registry_does_not_know_is_refused() -> None:
    from accelerators.catalog import _store
    from accelerators.catalog._schema import Accelerator

    entry = next(a for a in _store.LOADED.file().accelerators if a.name == "WORMHOLE-N300")
    raw = entry.model_dump(by_alias=True)
    raw["k8s_resource"] = "nvidia.com/gpu"  # another vendor's: the data would be wrong
    with pytest.raises(ValueError, match="none of the tenstorrent npu resources"):
        Accelerator.model_validate(raw)
