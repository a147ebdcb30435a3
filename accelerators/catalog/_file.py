"""The catalog data file as a whole: its records, its name groups and the checks that span
records (a name used twice, an unknown source key, one default SKU per model).

One accelerator's records are in :mod:`accelerators.catalog._schema`.
"""

# No ``from __future__ import annotations``: pydantic would evaluate every annotation string
# while it defines the classes, ~1 ms of each process that loads the catalog.
from pydantic import BaseModel, Field, model_validator

from accelerators.catalog._records import _STRICT, Source
from accelerators.catalog._schema import SCHEMA_VERSION, Accelerator

__all__ = ["CatalogFile", "NameGroup", "OpenName", "VgpuBoard"]


class NameGroup(BaseModel):
    """A name another system gives to a choice of models (Modal's ``B200+``: B200 or B300).

    It reads as a fallback chain of ``members``, in order, and matches only exactly (case
    aside). One member: a name that must not be read loosely (Ray's ``Intel-GAUDI`` is Gaudi
    1, but ``Gaudi`` alone names no one generation).
    """

    model_config = _STRICT

    name: str
    system: str
    members: tuple[str, ...] = Field(min_length=1)
    source: str


class OpenName(BaseModel):
    """A bare name that systems give to different models of one family (``A100``: 40 GB on
    SkyPilot, Modal and GKE, 80 GB on Baseten and Hugging Face).

    It does not determine the model, so it reads as the family: ``members``, in order, as
    alternatives. ``sources`` are the pages that show the name meaning different models: systems
    disagreeing, or a vendor selling several under one name (the 8 and 16 GB GeForce RTX 4060 Ti,
    which nvidia-smi names alike).
    """

    model_config = _STRICT

    name: str
    #: Other spellings of the same bare name (``Tesla-V100`` beside ``V100``).
    spellings: tuple[str, ...] = ()
    members: tuple[str, ...] = Field(min_length=2)
    sources: tuple[str, ...] = Field(min_length=1)
    note: str


class VgpuBoard(BaseModel):
    """The board part of an NVIDIA vGPU type name (``A100D`` in ``A100D-16C``): which board it
    is, and the catalog SKU that board is (empty when the catalog does not carry it).

    Read only inside a vGPU type name (:mod:`accelerators.catalog._vgpu`): elsewhere ``A100X``
    is the A100X converged card, and a plain ``A100`` leaves its memory open.
    """

    model_config = _STRICT

    code: str
    board: str
    sku: str
    source: str


class CatalogFile(BaseModel):
    """The whole data file."""

    model_config = _STRICT

    schema_version: int
    catalog_version: str
    sources: dict[str, Source]
    accelerators: tuple[Accelerator, ...]
    groups: tuple[NameGroup, ...] = ()
    open_names: tuple[OpenName, ...] = ()
    vgpu_boards: tuple[VgpuBoard, ...] = ()

    @model_validator(mode="after")
    def _check_references(self) -> "CatalogFile":
        if self.schema_version != SCHEMA_VERSION:
            raise ValueError(
                f"schema_version {self.schema_version} is not supported (expected {SCHEMA_VERSION})"
            )
        problems: list[str] = []
        seen_names: dict[str, str] = {}
        constants: set[str] = set()
        defaults: dict[str, list[str]] = {}
        for acc in self.accelerators:
            for key in (acc.name, *acc.aliases):
                folded = key.casefold()
                owner = seen_names.get(folded)
                if owner is not None and owner != acc.name:
                    problems.append(f"name {key!r} of {acc.name} is already used by {owner}")
                seen_names[folded] = acc.name
            if acc.constant:
                if acc.constant in constants:
                    problems.append(f"constant {acc.constant} is used twice")
                constants.add(acc.constant)
            if acc.default_for_model:
                defaults.setdefault(acc.model, []).append(acc.name)
            else:
                defaults.setdefault(acc.model, [])
            figures = [acc.memory, acc.bandwidth, *acc.tflops_figures.values()]
            if acc.tdp is not None:
                figures.append(acc.tdp)
            refs = [f.source for f in figures]
            refs += [m.source for m in acc.mig] + [t.source for t in acc.tpu_topologies]
            refs += [acc.workloads.source] if acc.workloads is not None else []
            for ref in refs:
                if ref not in self.sources:
                    problems.append(f"{acc.name}: unknown source key {ref!r}")
        models = set(defaults)
        for group in self.groups:
            unknown = [m for m in group.members if m not in models]
            problems += [f"group {group.name!r}: unknown model {m!r}" for m in unknown]
            if group.source not in self.sources:
                problems.append(f"group {group.name!r}: unknown source key {group.source!r}")
        for open_name in self.open_names:
            unknown = [m for m in open_name.members if m not in models]
            problems += [f"open name {open_name.name!r}: unknown model {m!r}" for m in unknown]
            refs = [s for s in open_name.sources if s not in self.sources]
            problems += [f"open name {open_name.name!r}: unknown source key {s!r}" for s in refs]
        skus = {acc.name for acc in self.accelerators}
        codes: set[str] = set()
        for board in self.vgpu_boards:
            if board.sku and board.sku not in skus:
                problems.append(f"vGPU board {board.code!r}: unknown SKU {board.sku!r}")
            if board.source not in self.sources:
                problems.append(f"vGPU board {board.code!r}: unknown source key {board.source!r}")
            if board.code.casefold() in codes:
                problems.append(f"vGPU board {board.code!r} is listed twice")
            codes.add(board.code.casefold())
        for model, names in defaults.items():
            if len(names) != 1:
                problems.append(
                    f"model {model} needs exactly one default_for_model SKU, has {names}"
                )
        if problems:
            raise ValueError("; ".join(sorted(set(problems))))
        return self
