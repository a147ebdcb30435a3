"""The error :func:`accelerators.bench.gate` raises when a device fails the gate."""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.bench.report._models import BenchReport

__all__ = ["AcceleratorGateError"]


class AcceleratorGateError(AcceleratorError):
    """The benchmark gate failed: wrong, missing, sliced, throttled, slow or miscomputing device.

    ``str()`` lists every failing reason; :attr:`report` holds the full report, so a pipeline
    can log or upload it before stopping.

    :param report: the report whose verdict is ``fail``.
    """

    def __init__(self, report: BenchReport):
        self.report = report
        failures = [r for r in report.reasons if r.severity == "fail"]
        lines = "\n".join(f"  - [{r.code}] {r.message}" for r in failures)
        what = report.device.accelerator or report.device.name
        super().__init__(
            f"Accelerator gate failed on {report.device.count} x {what} "
            f"(profile {report.profile}, expected {report.expect or 'anything'}):\n{lines}"
        )

    def __reduce__(self) -> tuple[type[AcceleratorGateError], tuple[BenchReport]]:
        # Orchestrators pickle task errors across processes; rebuild from the report.
        return type(self), (self.report,)
