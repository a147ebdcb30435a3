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
  instances apart from shares of nodes you own (:func:`owned_nodes`).
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
from accelerators.sizing._plan import TRAINING_EFFICIENCY, Plan, PlanOption, plan
from accelerators.sizing._recommend import Recommendation, recommend
from accelerators.sizing._throughput import FleetBaseline, Throughput, achievable, fleet_baseline

__all__ = [
    "DTYPE_BYTES",
    "QLORA_SLOWDOWN",
    "TRAINING_EFFICIENCY",
    "CostEstimate",
    "FleetBaseline",
    "InstanceOffer",
    "JobFlops",
    "MemoryEstimate",
    "ModelShape",
    "OwnedNodes",
    "Plan",
    "PlanOption",
    "Recommendation",
    "SizingError",
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
    "fleet_baseline",
    "instances",
    "job_flops",
    "kv_cache_bytes_per_token",
    "lora_params",
    "owned_nodes",
    "plan",
    "recommend",
    "unit_price",
]
