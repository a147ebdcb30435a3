"""Airflow provider for ``accelerators``: the accelerator as one argument, the gate first.

>>> from accelerators_provider import AcceleratorPodOperator
>>> train = AcceleratorPodOperator(task_id="train", image="trainer:1", accelerator="H100-SXM:8",
...                                platform="gke")
>>> train.accelerator, train.platform
('H100-SXM:8', 'gke')

Public names: :class:`AcceleratorPodOperator`, :class:`AcceleratorGateOperator`,
:func:`accelerator_task` (``@task.accelerator``), :func:`accelerator_gate_task`
(``@task.accelerator_gate``), :func:`executor_config`, :func:`queue_for`, :func:`pool_for`,
:func:`pool_kwargs`, :func:`create_pools`, :func:`pools_from_inventory`,
:class:`WorkerTemplateWarning`, and
:func:`get_provider_info` (the ``apache_airflow_provider`` entry point).

Importing this package imports neither Airflow nor ``kubernetes``: Airflow calls
:func:`get_provider_info` while it discovers providers, and an exception there would disable
every provider-registered ``@task.*`` decorator of the deployment, so it returns a literal.
The other names load on first access. :func:`accelerators_provider.preload.preload` loads
them all at once, for ``airflow_local_settings`` (see that module).

Nor can importing it fail: Airflow imports it in every process, ``import airflow`` included,
through the ``airflow.policy`` entry point (:mod:`accelerators_provider.policy`). With the
``accelerators`` core missing or older than this provider, it logs one warning, its public
names raise :class:`ImportError` saying so, and the cluster policy does nothing.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.0"

# Not `from typing import TYPE_CHECKING`: the names below are for type checkers only.
TYPE_CHECKING = False

#: Why the core cannot be used here (``None``: it can); the one warning says it.
CORE_PROBLEM: str | None = None

try:
    from accelerators.extend import lazy_exports
except Exception as exc:  # whatever an older core raises, Airflow must start
    CORE_PROBLEM = (
        "airflow-provider-accelerators cannot use the accelerators core installed here "
        f"({type(exc).__name__}: {exc}): it is missing or older than this provider. Its "
        "operators and decorators cannot be imported and its cluster policy does nothing; "
        "install the core it requires (pip install --upgrade airflow-provider-accelerators)"
    )
    import logging

    logging.getLogger(__name__).warning("%s", CORE_PROBLEM)

    def lazy_exports(  # type: ignore[misc] # the same three attributes, each saying why
        package: str, table: dict[str, str], own: str = ""
    ) -> tuple[Any, Any, list[str]]:
        names = sorted({*own.split(), *(n for v in table.values() for n in v.split())})

        def __getattr__(name: str) -> Any:
            if name in names:
                raise ImportError(CORE_PROBLEM, name=package)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")

        return __getattr__, lambda: list(names), names


# The public names, each imported on first access (PEP 562); type checkers read the imports
# below.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        ".operators": "AcceleratorPodOperator AcceleratorGateOperator",
        ".decorators": "accelerator_task accelerator_gate_task",
        ".executors": "executor_config queue_for pool_for pool_kwargs create_pools "
        "pools_from_inventory WorkerTemplateWarning",
    },
    own="get_provider_info",
)

if TYPE_CHECKING:
    from accelerators_provider.decorators import accelerator_gate_task as accelerator_gate_task
    from accelerators_provider.decorators import accelerator_task as accelerator_task
    from accelerators_provider.executors import WorkerTemplateWarning as WorkerTemplateWarning
    from accelerators_provider.executors import create_pools as create_pools
    from accelerators_provider.executors import executor_config as executor_config
    from accelerators_provider.executors import pool_for as pool_for
    from accelerators_provider.executors import pool_kwargs as pool_kwargs
    from accelerators_provider.executors import pools_from_inventory as pools_from_inventory
    from accelerators_provider.executors import queue_for as queue_for
    from accelerators_provider.operators import AcceleratorGateOperator as AcceleratorGateOperator
    from accelerators_provider.operators import AcceleratorPodOperator as AcceleratorPodOperator


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
