"""One parameter set for the fine-tune templates: the same names, defaults and plan everywhere.

``dags/flyte_finetune.py`` and ``dags/airflow_finetune.py`` take their parameters from
:data:`~accelerators.templates.FINETUNE_PARAMS` (Flyte workflow inputs, Airflow DAG params;
a module light enough for every DAG parse) and plan with
:func:`plan_finetune`, so the same inputs give the same plan in both, and the same plan as
``accelerators plan`` with the same flags: every priced cloud unless ``clouds`` names some,
start-up counted, ranked by total cost. :func:`finetune_choice` is the planning task's
result (the best option with its fallbacks, its device count, hours, start-up, cost and
tokens/s, and the clouds considered), a JSON-ready dict for XCom and the fields of Flyte's
dataclass.

A template copied anywhere works with its defaults: an empty ``model_config`` is the
Qwen2.5-0.5B ``config.json`` shipped in the package (:func:`example_model_config`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accelerators._datafiles import data_bytes
from accelerators.sizing._model import SizingError
from accelerators.sizing._plan import plan
from accelerators.sizing._plan_report import clouds_note, platform_note
from accelerators.sizing._plan_types import InfeasibleJobError, Plan, legend
from accelerators.templates import (
    EXAMPLE_MODEL,
    FINETUNE_PARAMS,
    TemplateParam,
    finetune_defaults,
)

__all__ = [
    "EXAMPLE_MODEL",
    "FINETUNE_PARAMS",
    "TemplateParam",
    "example_model_config",
    "finetune_choice",
    "finetune_defaults",
    "model_config_of",
    "plan_finetune",
]

_EXAMPLE_FILE = "qwen2.5-0.5b-config.json"


def example_model_config() -> dict[str, Any]:
    """The Qwen2.5-0.5B ``config.json`` shipped in ``accelerators/data`` (a fresh dict)."""
    data = json.loads(data_bytes("accelerators.data", _EXAMPLE_FILE))
    if not isinstance(data, dict):  # pragma: no cover - the shipped file is an object
        raise SizingError(f"{_EXAMPLE_FILE} is not a JSON object")
    return data


def model_config_of(value: object) -> dict[str, Any]:
    """A template's ``model_config``: empty → :func:`example_model_config`; a path → the
    parsed file; a mapping → a copy of it.

    :raises SizingError: a path that cannot be read as JSON, or another type, named.
    """
    if value is None or value == "" or value == {}:
        return example_model_config()
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str | os.PathLike):
        path = Path(value).expanduser()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SizingError(
                f"model_config: cannot read a config.json from {str(path)!r} ({exc}); give a "
                "path the task can read, the parsed dict, or nothing for the example model"
            ) from None
        if not isinstance(data, dict):
            raise SizingError(f"model_config: {str(path)!r} holds no JSON object")
        return data
    raise SizingError(
        f"model_config: expected a config.json path, its dict or nothing, got "
        f"{type(value).__name__}"
    )


def plan_finetune(
    model_config: object = "",
    method: str = "full",
    tokens: float = 2e7,
    epochs: float = 1.0,
    budget_usd: float | None = 50.0,
    deadline_h: float | None = None,
    clouds: Iterable[str] | None = None,
    rank_by: str = "cost",
    startup_min: float | None = None,
    *,
    platform: str | None = None,
    history: Any = None,
) -> Plan:
    """The templates' plan: :func:`~accelerators.sizing.plan` with the templates' parameters.

    ``clouds`` empty or ``None`` is every cloud with prices. The defaults are those of
    :data:`~accelerators.templates.FINETUNE_PARAMS` (a test keeps them equal). ``platform``
    is where the template places its pods (its ``PLATFORM``: ``karpenter`` by default): only
    what that platform can place is planned (``accelerators plan --platform``).

    :raises InfeasibleJobError: no option holds the job within the budget and the deadline;
        the message names the binding constraint (the planning task fails fast on it).
    :raises SizingError: a bad parameter, named.
    """
    job = plan(
        model_config_of(model_config),
        method,
        tokens=tokens,
        epochs=epochs,
        budget_usd=budget_usd,
        deadline_h=deadline_h,
        clouds=([clouds] if isinstance(clouds, str) else list(clouds or ())) or None,
        rank_by=rank_by,
        startup_min=startup_min,
        history=history,
        platform=platform,
    )
    if not job.options:
        raise InfeasibleJobError(job)
    return job


def finetune_choice(job: Plan, fallbacks: int = 3) -> dict[str, Any]:
    """The planning task's result: the best option and its fallbacks, JSON-ready.

    ``spec`` is the fallback chain one pod can ask for (the gate checks it); ``devices`` is
    the best option's device count (``torchrun --nproc-per-node``); ``hours`` include the
    start-up (``startup_min`` of them), ``usd`` is the total cost (``None`` unpriced);
    ``clouds`` says which
    clouds were considered, ``platform`` where the pods run (and what it could not place),
    and ``legend`` what a ``!`` in a spec means (empty when none).

    :raises InfeasibleJobError: the plan has no option.
    """
    best = job.best
    if best is None:
        raise InfeasibleJobError(job)
    return {
        "spec": str(job.fallbacks(fallbacks)),
        "best": str(best.spec),
        "where": best.where,
        "devices": best.devices,
        "instances": best.instances,
        "hours": best.hours,
        "train_hours": best.train_hours,
        "startup_min": best.startup.minutes,
        "usd": best.usd,
        "tokens_per_s": best.tokens_per_s,
        "tokens_per_s_per_device": best.tokens_per_s_per_device,
        "clouds": clouds_note(job),
        "platform": platform_note(job),
        "legend": legend([best.spec, *(o.spec for o in job.options[:fallbacks])]) or "",
        "summary": job.summary(),
    }
