"""What a name was read as, token by token: the result of ``AcceleratorSpec.explain``.

>>> from accelerators import AcceleratorSpec
>>> reading = AcceleratorSpec.explain("8x_nvidia_b200_180gb_sxm").names[0]
>>> [(t.text, t.role) for t in reading.tokens]  # doctest: +NORMALIZE_WHITESPACE
[('8x', 'count'), ('nvidia', 'vendor'), ('b200', 'model'), ('180gb', 'memory'),
 ('sxm', 'form factor')]
>>> reading.result
'B200:8'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ROLES", "NameReading", "SpecExplanation", "TokenReading"]

#: Every role a token can have, with what it means.
ROLES: dict[str, str] = {
    "catalog spelling": "the whole name (or what is left of it) is a spelling the catalog carries",
    "instance type": "a cloud instance or machine type from the instance table",
    "group name": "a name for a choice of models (the catalog's [[groups]])",
    "vendor": "a vendor; it must be the accelerator's",
    "product line": "a product line (Tesla, GeForce, Instinct...); it tells the vendor",
    "architecture": "an architecture or generation; it must be the accelerator's",
    "model": "a catalog model word",
    "generation": "a GeForce or Radeon generation (30xx, 7000): its desktop cards",
    "series": "'series' after the model: the models of that series (the card and its variants)",
    "memory": "memory per device; it picks among the model's sizes",
    "total memory": "the memory of all the devices together (count x memory per device)",
    "memory type": "a memory technology (HBM3, GDDR6...); it must be the accelerator's",
    "form factor": "a form factor (SXM, PCIe, NVL, OAM...); it picks the SKU",
    "edition": "an edition word (Server, Workstation, Max-Q); it picks the SKU",
    "same device": "a word that describes the same device (a virtual function, a cooling variant)",
    "interconnect": "how devices are linked (NVLink, InfiniBand); not which device",
    "device word": "GPU, accelerator, card...: says nothing more",
    "count": "the number of devices",
    "count marker": "a word that marks a count (the x of 'A100 x 8', the gpu of '1-gpu')",
    "partition": "a MIG profile (or the word MIG)",
    "topology": "a TPU slice topology",
    "sharing": "a shared slot of a GPU (time-slicing or MPS)",
    "vgpu profile": "an NVIDIA vGPU profile: a share of the GPU's memory",
    "vgpu board": "the board part of an NVIDIA vGPU type (NVIDIA's code or a catalog name)",
    "host figure": "a figure of the machine (vCPUs, RAM, disk, CPUs), not of the accelerator",
    "chip": "a chip code name (GH100, AD102GL), the chip part of a pci.ids name, or a "
    "compute capability (sm75) the model must have",
    "system word": "a word naming the system around the accelerators (server, cluster)",
    "instance size": "an instance size (small, medium, large...) that may stand for a count: "
    "the spec must state the count",
    "noise": "a word that says nothing about the accelerator (tiers, billing, frameworks)",
    "unplaced": "a token the reader could not place: the name is refused",
    "variant": "a word right after the model that names a variant the catalog lacks: refused",
}


@dataclass(frozen=True)
class TokenReading:
    """One token of a name and what the reader took it to say."""

    #: The token as written.
    text: str
    #: Where it stands in the name (``name[start:end]``).
    start: int
    end: int
    #: One of :data:`ROLES`.
    role: str
    #: What it says here: ``80 GB per device``, ``8 devices``, ``NVIDIA``...
    meaning: str = ""


@dataclass(frozen=True)
class NameReading:
    """How one accelerator name was read.

    ``method`` says which step read it: ``catalog spelling`` (the name, or the name less a
    count, is a spelling the catalog carries), ``instance type``, ``group name``, or ``token
    reader`` (each token placed). ``result`` is the canonical spec text it reads as (None if
    refused); ``refusal`` why it was refused (None if read).
    """

    name: str
    method: str
    tokens: tuple[TokenReading, ...]
    result: str | None = None
    refusal: str | None = None
    #: Close matches offered with a refusal.
    suggestions: tuple[str, ...] = ()

    @property
    def unplaced(self) -> tuple[TokenReading, ...]:
        """The tokens the reader could not place."""
        return tuple(t for t in self.tokens if t.role in ("unplaced", "variant"))

    def lines(self) -> list[str]:
        """The reading as text: one line per token, then the result or the refusal."""
        out = [f"{self.name!r}: {self.method}"]
        width = max((len(t.text) for t in self.tokens), default=0)
        roles = max((len(t.role) for t in self.tokens if t.meaning), default=0)
        for token in self.tokens:
            line = f"  {token.text.ljust(width)}  {token.role.ljust(roles)}  {token.meaning}"
            out.append(line.rstrip())
        if self.result is not None:
            out.append(f"  = {self.result}")
        if self.refusal is not None:
            out.append(f"  refused: {self.refusal}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


@dataclass(frozen=True)
class SpecExplanation:
    """What ``AcceleratorSpec.explain(text)`` returns: the spec (or the error) and, for each
    accelerator name in it, how it was read."""

    text: str
    #: The parsed spec's canonical text, or None when the spec does not parse.
    spec: str | None
    #: The first line of the error when it does not.
    error: str | None
    names: tuple[NameReading, ...]

    def lines(self) -> list[str]:
        out: list[str] = []
        for reading in self.names:
            out.extend(reading.lines())
        if self.spec is not None:
            out.append(f"spec: {self.spec}")
        elif any(r.refusal == self.error for r in self.names):
            out.append("spec: not read (a name above is refused)")
        else:
            out.append(f"error: {self.error}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())
