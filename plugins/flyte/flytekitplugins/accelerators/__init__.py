"""flytekitplugins-accelerators: accelerator specs, the benchmark gate and checks for Flyte.

>>> from flytekitplugins.accelerators import accelerator_task
>>> @accelerator_task("A100@2g.10gb")
... def infer(batch: list[str]) -> list[str]:
...     return batch
>>> infer.accelerator
<Partition A100-40GB@2g.10gb>

Public names (``docs/flyte.md``):

* flytekit task arguments: :func:`task_args`, :func:`pod_template_for`, :data:`NO_ACCELERATOR`,
  :class:`DeviceClassWarning`;
* gated tasks: :func:`accelerator_task`, :class:`AcceleratorTask` and its config :class:`Gate`;
* the gate: :data:`benchmark_gate` (a task), :func:`gate` (a workflow node, a
  :class:`GateTask`), :func:`pinned`, :class:`GateResult`, :func:`run_gate`,
  :func:`last_gate_result`, :func:`is_local_execution`, :data:`LOCAL_EXPECT_ENV`,
  :data:`PLACED_SPEC_ENV`;
* the linter: :func:`check`, :func:`check_file`, :class:`Finding`;
* Flyte 2: :func:`flyte2_args`, :func:`flyte2_device`, :func:`flyte2_resources`,
  :func:`flyte2_pinned`, :func:`flyte2_run_gate`, :func:`flyte2_gate`.

flytekit loads this package through its ``flytekit.plugins`` entry point; that import only
registers our constants as virtual subclasses of flytekit's ``BaseAccelerator`` (so
``isinstance`` checks in flytekit and type checkers hold). Everything else loads on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "LOCAL_EXPECT_ENV",
    "NO_ACCELERATOR",
    "PLACED_SPEC_ENV",
    "AcceleratorTask",
    "DeviceClassWarning",
    "Finding",
    "Gate",
    "GateResult",
    "GateTask",
    "accelerator_task",
    "benchmark_gate",
    "check",
    "check_file",
    "flyte2_args",
    "flyte2_device",
    "flyte2_gate",
    "flyte2_pinned",
    "flyte2_resources",
    "flyte2_run_gate",
    "gate",
    "is_local_execution",
    "last_gate_result",
    "pinned",
    "pod_template_for",
    "run_gate",
    "task_args",
]

_WHERE = {
    "DeviceClassWarning": "_args",
    "NO_ACCELERATOR": "_args",
    "pod_template_for": "_args",
    "task_args": "_args",
    "LOCAL_EXPECT_ENV": "_gate",
    "PLACED_SPEC_ENV": "_gate",
    "GateResult": "_gate",
    "is_local_execution": "_gate",
    "last_gate_result": "_gate",
    "run_gate": "_gate",
    "AcceleratorTask": "_tasks",
    "Gate": "_tasks",
    "accelerator_task": "_tasks",
    "GateTask": "_gate_node",
    "benchmark_gate": "_gate_node",
    "gate": "_gate_node",
    "pinned": "_gate_node",
    "Finding": "_check",
    "check": "_check",
    "check_file": "_check",
    "flyte2_args": "_flyte2",
    "flyte2_device": "_flyte2",
    "flyte2_gate": "_flyte2",
    "flyte2_pinned": "_flyte2",
    "flyte2_resources": "_flyte2",
    "flyte2_run_gate": "_flyte2",
}


def _register_constants() -> None:
    try:
        from flytekit.extras.accelerators import BaseAccelerator
    except ImportError:  # a Flyte 2 environment without flytekit
        return

    from accelerators.constants import Device, Partition

    BaseAccelerator.register(Device)
    BaseAccelerator.register(Partition)


_register_constants()


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
