"""Checks of ``plan()``'s arguments: each bad value named, with what was expected."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accelerators._deprecated import renamed
from accelerators.catalog._instances import CLOUDS
from accelerators.errors import close_matches
from accelerators.sizing._model import ModelShape, SizingError

__all__ = [
    "SCOPES",
    "check_fractions",
    "clouds_of",
    "instance_names",
    "one_of",
    "optional_positive",
    "scope_of",
    "shape_of",
    "vendors_of",
]

#: What ``plan(scope=...)`` searches: rentable instances, your own nodes, or both.
SCOPES: tuple[str, ...] = ("cloud", "cluster", "all")


def shape_of(model: Any) -> ModelShape:
    if isinstance(model, ModelShape):
        return model
    if isinstance(model, int | float) and not isinstance(model, bool):
        return ModelShape.like(model)
    if isinstance(model, str | os.PathLike | Mapping):
        if isinstance(model, str) and not Path(model).exists():
            try:
                return ModelShape.like(float(model))
            except ValueError:
                pass
        return ModelShape.from_hf_config(model)
    raise SizingError(
        "Expected a model: a ModelShape, a parameter count such as 7e9, or a Hugging Face "
        f"config.json (path or dict); got {type(model).__name__}"
    )


def scope_of(scope: str | None, inventory: Iterable[Any] | None, where: str | None = None) -> str:
    """``plan()``'s ``scope``; ``where`` is its old name (deprecated: it also names an option's
    location, :attr:`PlanOption.where <accelerators.sizing.PlanOption.where>`)."""
    if where is not None:
        if scope is not None:
            raise SizingError(
                f"plan() got scope={scope!r} and where={where!r}, its old name: give scope= only"
            )
        renamed("plan(where=...)", "plan(scope=...)", stacklevel=4)
        scope = where
    if scope is None:
        return "all" if inventory is not None else "cloud"
    place = one_of(scope, SCOPES, "scope")
    if place in ("cluster", "all") and inventory is None:
        raise SizingError(
            f"scope={place!r} plans on nodes you own: give inventory= (specs such as "
            "'A100-80GB@1g.10gb:7' or your nodes' Kubernetes labels)"
        )
    if place == "cloud" and inventory is not None:
        raise SizingError("inventory= was given with scope='cloud': use scope='all' or 'cluster'")
    return place


def check_fractions(efficiency: object, min_headroom: object) -> None:
    """``efficiency`` in (0, 1] and ``min_headroom`` in [0, 1), else a named error."""
    if isinstance(efficiency, bool) or not isinstance(efficiency, int | float):
        efficiency_ok = False
    else:
        efficiency_ok = 0 < efficiency <= 1
    if not efficiency_ok:
        raise SizingError(f"Expected an efficiency in (0, 1], got {efficiency!r}")
    room = min_headroom
    if isinstance(room, bool) or not isinstance(room, int | float) or not 0 <= room < 1:
        raise SizingError(f"Expected min_headroom in [0, 1), got {min_headroom!r}")


def one_of(value: object, choices: tuple[str, ...], name: str) -> str:
    text = str(value).strip().lower() if isinstance(value, str) else None
    if text not in choices:
        hint = close_matches(str(value), choices)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise SizingError(f"Unknown {name} {value!r}: expected one of {choices}{extra}")
    return text


def optional_positive(value: object, name: str) -> float | None:
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise SizingError(f"Expected a positive {name}, got {value!r}")
    return float(value)


def clouds_of(clouds: Iterable[str] | None) -> tuple[str, ...]:
    if clouds is None:
        return CLOUDS
    chosen = [clouds] if isinstance(clouds, str) else list(clouds)
    return tuple(one_of(c, CLOUDS, "cloud") for c in chosen)


def instance_names(names: Iterable[str] | None) -> set[str] | None:
    if names is None:
        return None
    from accelerators.catalog import _instances
    from accelerators.sizing.aws import cached_instances

    chosen = [names] if isinstance(names, str) else list(names)
    known = [row.name for row in (*_instances.instances(), *cached_instances())]
    folded = {n.casefold() for n in known}
    for name in chosen:
        text: object = name
        if not isinstance(text, str) or text.strip().casefold() not in folded:
            hint = close_matches(str(name), known)
            extra = f"; did you mean {hint[0]!r}?" if hint else ""
            raise SizingError(f"Unknown instance type {name!r}{extra}")
    return {n.strip().casefold() for n in chosen}


def vendors_of(vendors: Iterable[str] | None) -> set[str]:
    from accelerators.sizing._recommend import _vendors as check

    return check([vendors] if isinstance(vendors, str) else vendors)


def region_of(region: object) -> str | None:
    """A region (or zone) name to price in, checked against every region a price row names."""
    if region is None:
        return None
    text = str(region).strip() if isinstance(region, str) else ""
    from accelerators.sizing._prices import all_prices

    known = sorted({p.region for p in all_prices() if p.region})
    if text and any(r.lower() == text.lower() or r[:-1].lower() == text.lower() for r in known):
        return text
    hint = close_matches(text.lower(), [r.lower() for r in known])
    extra = f"; did you mean {hint[0]!r}?" if hint else ""
    raise SizingError(
        f"No price names region {region!r}{extra}. The shipped table keeps each instance's "
        "cheapest and median region; `accelerators prices refresh --cloud CLOUD --region "
        "REGION` caches every instance of a region"
    )
