"""Airflow provider for ``accelerators``: the accelerator as one argument, the gate first.

>>> from accelerators_provider import AcceleratorPodOperator
>>> train = AcceleratorPodOperator(task_id="train", image="trainer:1", accelerator="H100:8",
...                                platform="gke")
>>> train.accelerator, train.platform
('H100:8', 'gke')

Public names: :class:`AcceleratorPodOperator`, :class:`AcceleratorGateOperator`,
:func:`accelerator_task` (``@task.accelerator``), :func:`accelerator_gate_task`
(``@task.accelerator_gate``), :func:`executor_config`, :func:`queue_for`, :func:`pool_for`,
:func:`pool_kwargs`, :func:`create_pools`, :func:`pools_from_inventory`, and
:func:`get_provider_info` (the ``apache_airflow_provider`` entry point).

Importing this package imports neither Airflow nor ``kubernetes``: Airflow calls
:func:`get_provider_info` while it discovers providers, and an exception there would disable
every provider-registered ``@task.*`` decorator of the deployment, so it returns a literal.
The other names load on first access. :func:`accelerators_provider.preload.preload` loads
them all at once, for ``airflow_local_settings`` (see that module).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"

__all__ = [
    "AcceleratorGateOperator",
    "AcceleratorPodOperator",
    "accelerator_gate_task",
    "accelerator_task",
    "create_pools",
    "executor_config",
    "get_provider_info",
    "pool_for",
    "pool_kwargs",
    "pools_from_inventory",
    "queue_for",
]

_LAZY = {
    "AcceleratorPodOperator": "accelerators_provider.operators",
    "AcceleratorGateOperator": "accelerators_provider.operators",
    "accelerator_task": "accelerators_provider.decorators",
    "accelerator_gate_task": "accelerators_provider.decorators",
    "executor_config": "accelerators_provider.executors",
    "queue_for": "accelerators_provider.executors",
    "pool_for": "accelerators_provider.executors",
    "pool_kwargs": "accelerators_provider.executors",
    "create_pools": "accelerators_provider.executors",
    "pools_from_inventory": "accelerators_provider.executors",
}


def get_provider_info() -> dict[str, Any]:
    """The provider's metadata for Airflow's ``ProvidersManager`` (static; imports nothing)."""
    return {
        "package-name": "airflow-provider-accelerators",
        "name": "Accelerators",
        "description": (
            "One accelerator argument (`H100:8`, `A100@1g.10gb`, `H100 | A100-80GB`) for pod "
            "operators, task decorators and the KubernetesExecutor, and a benchmark gate that "
            "fails a GPU DAG fast on a wrong, slow or broken accelerator."
        ),
        "integrations": [
            {
                "integration-name": "Accelerators",
                "tags": ["software"],
            }
        ],
        "operators": [
            {
                "integration-name": "Accelerators",
                "python-modules": ["accelerators_provider.operators"],
            }
        ],
        "task-decorators": [
            {
                "name": "accelerator",
                "class-name": "accelerators_provider.decorators.accelerator_task",
            },
            {
                "name": "accelerator_gate",
                "class-name": "accelerators_provider.decorators.accelerator_gate_task",
            },
        ],
    }


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'accelerators_provider' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return list(__all__)
