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
  :func:`last_gate_result`, :func:`last_gate_deck` (a local run's Deck file),
  :func:`is_local_execution`, :data:`LOCAL_EXPECT_ENV`,
  :data:`PLACED_SPEC_ENV`;
* the linter: :func:`check`, :func:`check_file`, :class:`Finding`;
* Flyte 2: :func:`flyte2_args`, :func:`flyte2_device`, :func:`flyte2_resources`,
  :func:`flyte2_pinned`, :func:`flyte2_run_gate`, :func:`flyte2_gate`.

flytekit loads this package through its ``flytekit.plugins`` entry point; that import only
registers our constants as virtual subclasses of flytekit's ``BaseAccelerator`` (so
``isinstance`` checks in flytekit and type checkers hold). Everything else loads on first use.
"""

from __future__ import annotations

from accelerators.extend import lazy_exports

__version__ = "0.1.0"

# Not `from typing import TYPE_CHECKING`: the names below are for type checkers only.
TYPE_CHECKING = False

# The public names, each imported on first use (PEP 562); type checkers read the imports below.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "._args": "DeviceClassWarning NO_ACCELERATOR pod_template_for task_args",
        "._gate": "LOCAL_EXPECT_ENV PLACED_SPEC_ENV GateResult is_local_execution "
        "last_gate_result run_gate",
        "._tasks": "AcceleratorTask Gate accelerator_task",
        "._gate_node": "GateTask benchmark_gate gate pinned",
        "._deck": "last_gate_deck",
        "._check": "Finding check check_file",
        "._flyte2": "flyte2_args flyte2_device flyte2_gate flyte2_pinned flyte2_resources "
        "flyte2_run_gate",
    },
)

if TYPE_CHECKING:
    from flytekitplugins.accelerators._args import NO_ACCELERATOR as NO_ACCELERATOR
    from flytekitplugins.accelerators._args import DeviceClassWarning as DeviceClassWarning
    from flytekitplugins.accelerators._args import pod_template_for as pod_template_for
    from flytekitplugins.accelerators._args import task_args as task_args
    from flytekitplugins.accelerators._check import Finding as Finding
    from flytekitplugins.accelerators._check import check as check
    from flytekitplugins.accelerators._check import check_file as check_file
    from flytekitplugins.accelerators._deck import last_gate_deck as last_gate_deck
    from flytekitplugins.accelerators._flyte2 import flyte2_args as flyte2_args
    from flytekitplugins.accelerators._flyte2 import flyte2_device as flyte2_device
    from flytekitplugins.accelerators._flyte2 import flyte2_gate as flyte2_gate
    from flytekitplugins.accelerators._flyte2 import flyte2_pinned as flyte2_pinned
    from flytekitplugins.accelerators._flyte2 import flyte2_resources as flyte2_resources
    from flytekitplugins.accelerators._flyte2 import flyte2_run_gate as flyte2_run_gate
    from flytekitplugins.accelerators._gate import LOCAL_EXPECT_ENV as LOCAL_EXPECT_ENV
    from flytekitplugins.accelerators._gate import PLACED_SPEC_ENV as PLACED_SPEC_ENV
    from flytekitplugins.accelerators._gate import GateResult as GateResult
    from flytekitplugins.accelerators._gate import is_local_execution as is_local_execution
    from flytekitplugins.accelerators._gate import last_gate_result as last_gate_result
    from flytekitplugins.accelerators._gate import run_gate as run_gate
    from flytekitplugins.accelerators._gate_node import GateTask as GateTask
    from flytekitplugins.accelerators._gate_node import benchmark_gate as benchmark_gate
    from flytekitplugins.accelerators._gate_node import gate as gate
    from flytekitplugins.accelerators._gate_node import pinned as pinned
    from flytekitplugins.accelerators._tasks import AcceleratorTask as AcceleratorTask
    from flytekitplugins.accelerators._tasks import Gate as Gate
    from flytekitplugins.accelerators._tasks import accelerator_task as accelerator_task


def _register_constants() -> None:
    try:
        from flytekit.extras.accelerators import BaseAccelerator
    except ImportError:  # a Flyte 2 environment without flytekit
        return

    from accelerators.constants import Device, Partition

    BaseAccelerator.register(Device)
    BaseAccelerator.register(Partition)


_register_constants()
