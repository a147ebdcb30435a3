"""Sizing: how much memory a model needs, which accelerator holds it, what it costs.

>>> from accelerators.sizing import ModelShape, estimate_memory, recommend
>>> need = estimate_memory(ModelShape.from_params(7e9), method="inference", dtype="bf16")
>>> round(need.weights_gb, 1)
14.0

* :class:`ModelShape` and :func:`estimate_memory`: inference, full fine-tuning, LoRA and
  QLoRA memory, each rule sourced (``docs/sizing.md``); a Hugging Face ``config.json`` is
  read from a file or dict, never downloaded.
* :func:`recommend`: ranked :class:`~accelerators.AcceleratorSpec` answers (MIG slices, TPU
  slices, multi-device counts) with their headroom and price.
* :func:`plan`: a fine-tune priced by the job: its FLOPs (:func:`job_flops`), its memory,
  what each choice really delivers (:func:`achievable`: the fleet's bench history, else a
  sourced default), ranked by total cost, time, or cost within a deadline; rentable
  instances apart from shares of nodes you own (:func:`owned_nodes`); each option with its
  start-up (:class:`Startup`) and tokens/s; a job nothing holds raises
  :class:`InfeasibleJobError` naming the binding constraint. :meth:`Plan.to_dict` is the plan
  as JSON-ready data, :func:`plan_html` as an HTML page (as :func:`accelerators.bench.html_report`
  is a bench report's).
* :func:`plan_finetune`, :data:`FINETUNE_PARAMS`, :func:`finetune_choice`: the one parameter
  set and plan of the fine-tune templates in ``dags/`` (Flyte and Airflow alike), with the
  example model's config shipped in the package (:func:`example_model_config`).
* :func:`instances`, :func:`estimate_cost`, :func:`unit_price`, :func:`cost_of_throughput`:
  the instance types that carry a spec, and prices from the dated table
  (``accelerators/data/prices.toml``) or a live AWS refresh (:mod:`accelerators.sizing.aws`).

Bad input raises :class:`SizingError`, an :class:`~accelerators.AcceleratorError`.

Layer: above :mod:`accelerators.bench` and :mod:`accelerators.kubernetes`, below only the CLI.
It reads the bench's recorded history and efficiency bands, and never runs a benchmark (the
``sizing-reads-bench`` contract in ``pyproject.toml``; ``tests/test_layers.py``).
"""

from accelerators.sizing._cost import (
    CostEstimate,
    InstanceOffer,
    ThroughputCost,
    UnitPrice,
    all_prices,
    cost_of_throughput,
    estimate_cost,
    instances,
    unit_price,
)
from accelerators.sizing._finetune import (
    EXAMPLE_MODEL,
    FINETUNE_PARAMS,
    TemplateParam,
    example_model_config,
    finetune_choice,
    finetune_defaults,
    model_config_of,
    plan_finetune,
)
from accelerators.sizing._flops import QLORA_SLOWDOWN, JobFlops, job_flops
from accelerators.sizing._inventory import OwnedNodes, owned_nodes
from accelerators.sizing._memory import (
    DTYPE_BYTES,
    MemoryEstimate,
    activation_bytes,
    estimate_memory,
    kv_cache_bytes_per_token,
    lora_params,
)
from accelerators.sizing._model import ModelShape, SizingError, count_params
from accelerators.sizing._plan import TRAINING_EFFICIENCY, plan
from accelerators.sizing._plan_report import plan_html
from accelerators.sizing._plan_types import InfeasibleJobError, Plan, PlanOption
from accelerators.sizing._recommend import Recommendation, recommend
from accelerators.sizing._startup import Startup
from accelerators.sizing._throughput import FleetBaseline, Throughput, achievable, fleet_baseline

__all__ = [
    "DTYPE_BYTES",
    "EXAMPLE_MODEL",
    "FINETUNE_PARAMS",
    "QLORA_SLOWDOWN",
    "TRAINING_EFFICIENCY",
    "CostEstimate",
    "FleetBaseline",
    "InfeasibleJobError",
    "InstanceOffer",
    "JobFlops",
    "MemoryEstimate",
    "ModelShape",
    "OwnedNodes",
    "Plan",
    "PlanOption",
    "Recommendation",
    "SizingError",
    "Startup",
    "TemplateParam",
    "Throughput",
    "ThroughputCost",
    "UnitPrice",
    "achievable",
    "activation_bytes",
    "all_prices",
    "cost_of_throughput",
    "count_params",
    "estimate_cost",
    "estimate_memory",
    "example_model_config",
    "finetune_choice",
    "finetune_defaults",
    "fleet_baseline",
    "instances",
    "job_flops",
    "kv_cache_bytes_per_token",
    "lora_params",
    "model_config_of",
    "owned_nodes",
    "plan",
    "plan_finetune",
    "plan_html",
    "recommend",
    "unit_price",
]
