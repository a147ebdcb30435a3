"""A Kubernetes node-label selector read as a spec: ``cloud.google.com/gke-accelerator=nvidia-l4``.

Users copy a node selector from a manifest, a Kueue ResourceFlavor or a device plugin's docs:
``key=value``, the key a node label whose value names the accelerator (GKE's, GPU Feature
Discovery's, Karpenter's, the AMD and Intel device plugins'), perhaps with a count label after a
``,`` (``nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB,nvidia.com/gpu.count=8``). The value is
read as the name it is; the count label gives the count. A label key this does not read is
refused by name (a label whose value is no accelerator name, such as ``habana.ai/device.name``
whose values are chip names, would otherwise be read as an LSF request).

>>> read_selector("cloud.google.com/gke-accelerator=nvidia-l4")
Selector(name='nvidia-l4', name_start=33, devices=None)
"""

from __future__ import annotations

import re
from typing import NamedTuple, NoReturn

from accelerators._text import quote
from accelerators.errors import SpecSyntaxError

__all__ = [
    "Selector",
    "looks_like_label_list",
    "looks_like_selector",
    "read_label_list",
    "read_selector",
]

GKE = "cloud.google.com/gke-accelerator"
GKE_COUNT = "cloud.google.com/gke-accelerator-count"
GFD_PRODUCT = "nvidia.com/gpu.product"
GFD_COUNT = "nvidia.com/gpu.count"
KARPENTER_GPU = "karpenter.k8s.aws/instance-gpu-name"
KARPENTER_GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
AMD_PRODUCT = "amd.com/gpu.product-name"
#: Node labels whose value names the accelerator (see each system's label docs; the catalog's
#: ``names.gke``, ``names.gfd``, ``names.karpenter``, ``names.eks``, ``names.rocm`` and
#: ``names.intel`` hold those values).
NAME_LABELS = (
    GKE,
    "cloud.google.com/gke-tpu-accelerator",
    GFD_PRODUCT,
    KARPENTER_GPU,
    "karpenter.k8s.aws/instance-accelerator-name",
    "k8s.amazonaws.com/accelerator",
    AMD_PRODUCT,
    "gpu.intel.com/product",
)
#: Node labels whose value counts the devices named by the other label.
COUNT_LABELS = (
    GKE_COUNT,
    GFD_COUNT,
    KARPENTER_GPU_COUNT,
    "karpenter.k8s.aws/instance-accelerator-count",
    "amd.com/gpu.count",
)
#: Keys without a prefix that clusters, runners and schedulers use for the accelerator's name
#: (machine.dev's ``gpu=l4``, a hand-made node label ``accelerator=a100``): read like the labels
#: above, but only as the one key of a selector.
PLAIN_NAME_KEYS = ("gpu", "gpu-type", "gpu_type", "accelerator", "accelerator-type")
_PAIR = re.compile(r"\s*([A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)?)\s*=\s*([^,=\s]+)\s*")


class Selector(NamedTuple):
    """What a node-label selector asks for."""

    #: The value of the name label, as written.
    name: str
    #: Where the name starts in the text.
    name_start: int
    #: The value of a count label, when there is one.
    devices: int | None


def looks_like_selector(text: str) -> bool:
    """Whether ``text`` is ``key=value`` pairs and its first key is a label key (it holds a
    ``/``, as label keys with a prefix do; LSF's keys never do)."""
    first = _PAIR.match(text)
    if first is not None and first[1] in PLAIN_NAME_KEYS:
        # "gpu=l4", perhaps with a count label after a ",": no LSF request (its pairs take ":")
        return all(_PAIR.fullmatch(part) for part in text.split(","))
    return first is not None and "/" in first[1]


def read_selector(text: str) -> Selector:
    """Read a node-label selector; :class:`SpecSyntaxError` names what cannot be read."""
    pairs: dict[str, tuple[str, int]] = {}
    position = 0
    for part in text.split(","):
        match = _PAIR.fullmatch(part)
        where = (position, position + len(part))
        if match is None:
            _fail(text, f"Expected label=value, got {part!r}", where)
        key, value = match[1], match[2]
        if key not in (*NAME_LABELS, *COUNT_LABELS, *PLAIN_NAME_KEYS):
            known = ", ".join(NAME_LABELS)
            _fail(
                text,
                f"{quote(key)} is no node label whose value names an accelerator (these are: "
                f"{known}; or a count label after a ',')",
                (position + match.start(1), position + match.end(1)),
            )
        if key in pairs:
            _fail(text, f"{key}= is given twice", where)
        pairs[key] = (value, position + match.start(2))
        position += len(part) + 1
    names = [key for key in pairs if key in (*NAME_LABELS, *PLAIN_NAME_KEYS)]
    counts = [key for key in pairs if key in COUNT_LABELS]
    if len(names) != 1:
        why = "names no accelerator" if not names else "names the accelerator twice"
        _fail(
            text,
            f"A node-label selector {why}: give one of {', '.join(NAME_LABELS)}",
            (0, len(text)),
        )
    if len(counts) > 1:
        _fail(text, "A node-label selector gives its count once", (0, len(text)))
    count = None
    if counts:
        value, start = pairs[counts[0]]
        if not value.isdigit() or int(value) == 0:
            _fail(
                text,
                f"{counts[0]}= is a count of one or more: {value!r}",
                (start, start + len(value)),
            )
        count = int(value)
    name, start = pairs[names[0]]
    return Selector(name, start, count)


def _fail(text: str, message: str, span: tuple[int, int]) -> NoReturn:
    raise SpecSyntaxError(message, source=text, span=span)


#: A CI job's runner labels, as a YAML flow list or a JSON array: GitHub Actions'
#: ``runs-on: [self-hosted, nvidia, v100]``, ``["self-hosted", "H100"]``.
_LABEL_LIST = re.compile(r"\s*\[(?P<items>[^\[\]]*)\]\s*")
_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


def looks_like_label_list(text: str) -> bool:
    """Whether ``text`` is a list of runner labels in brackets (the grammar has no ``[``)."""
    return _LABEL_LIST.fullmatch(text) is not None


def read_label_list(text: str) -> tuple[str, int]:
    """The labels of a runner label list, joined by spaces, and where the first one starts.

    The runner carries every label, so the labels read together as one name: the token reader
    must account for each word of each (``self-hosted``, an operating system, a CUDA version,
    a vendor) and find one accelerator among them, or refuse saying which word it cannot place.
    """
    found = _LABEL_LIST.fullmatch(text)
    if found is None:
        _fail(text, "Expected a list of runner labels in brackets", (0, len(text)))
    labels: list[str] = []
    first = None
    position = found.start("items")
    for part in found["items"].split(","):
        label = part.strip().strip("\"'")
        where = (position, position + len(part))
        if not _LABEL.fullmatch(label):
            _fail(text, f"Expected a runner label, got {part.strip()!r}", where)
        if first is None:
            first = text.index(label, position)
        labels.append(label)
        position += len(part) + 1
    return " ".join(labels), first or 0
