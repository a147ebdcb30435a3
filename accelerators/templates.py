"""The shared parameters of the pipeline templates in ``dags/``: names, defaults, meaning.

``dags/flyte_finetune.py`` (workflow inputs) and ``dags/airflow_finetune.py`` (DAG params)
both take :data:`FINETUNE_PARAMS`, so a fine-tune has the same parameters and defaults in
Flyte and Airflow, and :func:`accelerators.sizing.plan_finetune` plans it the same way in
both. This module imports nothing heavy: Airflow's DAG processor imports it on every parse
(the planning itself runs in the task, where ``accelerators.sizing`` is imported).

>>> from accelerators.templates import finetune_defaults
>>> defaults = finetune_defaults()
>>> defaults["method"], defaults["clouds"], defaults["budget_usd"]
('full', [], 50.0)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

__all__ = ["EXAMPLE_MODEL", "FINETUNE_PARAMS", "TemplateParam", "finetune_defaults"]

#: The model a template plans for when it is given none: its config.json ships in the package.
EXAMPLE_MODEL = "Qwen/Qwen2.5-0.5B"


@dataclass(frozen=True, slots=True)
class TemplateParam:
    """One parameter of the fine-tune templates: a Flyte workflow input and an Airflow param.

    :ivar types: its JSON Schema types (Airflow's ``Param(type=...)``).
    """

    name: str
    default: Any
    types: tuple[str, ...]
    description: str
    choices: tuple[str, ...] | None = None


FINETUNE_PARAMS: tuple[TemplateParam, ...] = (
    TemplateParam(
        "model_config",
        "",
        ("string", "object"),
        "the model's Hugging Face config.json: a path the task can read, or the parsed dict; "
        f"empty: {EXAMPLE_MODEL}'s, shipped with accelerators",
    ),
    TemplateParam("method", "full", ("string",), "full, lora or qlora", ("full", "lora", "qlora")),
    TemplateParam("tokens", 2e7, ("number",), "tokens in the training set"),
    TemplateParam("epochs", 1.0, ("number",), "passes over the tokens"),
    TemplateParam("budget_usd", 50.0, ("null", "number"), "total USD the job may cost; null: none"),
    TemplateParam("deadline_h", None, ("null", "number"), "hours the job may take; null: none"),
    TemplateParam(
        "clouds",
        [],
        ("array",),
        "clouds to rent from (aws, gcp, azure, hf ...); empty: every cloud with prices, as "
        "`accelerators plan` does",
    ),
    TemplateParam("rank_by", "cost", ("string",), "cost or time", ("cost", "time")),
    TemplateParam(
        "startup_min",
        None,
        ("null", "number"),
        "start-up minutes per option (yours; 0: none); null: each offer's sourced default",
    ),
)


def finetune_defaults() -> dict[str, Any]:
    """``{name: default}`` of :data:`FINETUNE_PARAMS` (fresh copies)."""
    return {p.name: copy.copy(p.default) for p in FINETUNE_PARAMS}
