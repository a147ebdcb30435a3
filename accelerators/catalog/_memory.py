"""A request for device memory (``80GB``, ``80GB+``), checked against catalog entries."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from accelerators._text import format_number, shorten
from accelerators.errors import AcceleratorError, InvalidSpecError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["MemoryRequest"]


class MemoryRequest(BaseModel):
    """Device memory asked for in GB: exactly ``gb``, or at least ``gb`` when ``at_least``.

    It is compared with what one device shows the scheduler
    (:attr:`~accelerators.catalog._schema.Accelerator.device_memory_gb`): a K80 board is two
    12 GB devices, so ``nvidia:12GB`` matches it and ``nvidia:24GB`` does not.
    """

    # Validator built on first use: a spec without a memory request never needs it.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    gb: float = Field(gt=0, allow_inf_nan=False)
    at_least: bool = False
    #: The upper end of a range (dstack's ``24GB..80GB``); with ``at_least`` set.
    at_most: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:  # ours, as AcceleratorSpec(memory=...) raises
            for error in exc.errors():
                original = (error.get("ctx") or {}).get("error")
                if isinstance(original, AcceleratorError):
                    raise original from None
            raise InvalidSpecError(
                f"Invalid memory request {shorten(repr(data), 200)}: "
                + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            ) from None

    @model_validator(mode="after")
    def _check_range(self) -> MemoryRequest:
        if self.at_most is not None and self.at_most < self.gb:
            raise InvalidSpecError(
                f"Expected a memory range from low to high, got {format_number(self.gb)}GB.."
                f"{format_number(self.at_most)}GB"
            )
        return self

    def matches(self, accelerator: Accelerator) -> bool:
        memory = accelerator.device_memory_gb
        if self.at_most is not None and memory > self.at_most + 0.5:
            return False
        if self.at_least:
            return memory >= self.gb
        return math.isclose(memory, self.gb, rel_tol=0, abs_tol=0.5)

    def __str__(self) -> str:
        if self.at_most is not None:
            return f"{format_number(self.gb)}GB..{format_number(self.at_most)}GB"
        return f"{format_number(self.gb)}GB" + ("+" if self.at_least else "")
