"""A gate's verdict in one line, first of all it shows: what was checked, and what was not.

A local run (``dag.test()``, ``python dags/…``, a laptop without the planned accelerator)
benchmarks whatever is there with no expectation. Its verdict is about that device's health,
never about the accelerator the pipeline asked for, so the headline says so before anything
else: ``not checked: this machine has no L40S``. The Flyte Deck, the Airflow XCom summary and
the templates' printed summary all lead with it.
"""

from __future__ import annotations

from accelerators.bench.report._models import BenchReport

__all__ = ["gate_headline"]


def gate_headline(report: BenchReport, *, asked: str | None = None) -> str:
    """One line: the verdict and what it covers.

    :param report: the gate's report.
    :param asked: the spec the pipeline asked for, when the gate was run without it (a local
        run checks health only): the headline then says the device was not checked.
    :return: ``"PASS: 8 x H100-SXM is H100-SXM:8"``, ``"FAIL: 1 x A100-40GB-SXM, expected
        H100-SXM: wrong_accelerator ..."``, ``"not checked: this machine has no L40S (health of
        1 x AMD EPYC 7B13: PASS)"``, ``"PASS: 1 x AMD EPYC 7B13, health only"``.
    """
    device = report.device
    name = device.accelerator or device.name
    if device.mig_profile:
        name += f" MIG {device.mig_profile}"
    what = f"{device.count} x {name}"
    verdict = report.verdict.value.upper()
    if report.expect is None:
        if not asked:
            return f"{verdict}: {what}, health only (no accelerator was asked for)"
        if device.kind == "cpu":
            return f"not checked: this machine has {_none_of(asked)} (health of {what}: {verdict})"
        return f"not checked: {what} was not compared with {asked} (health only: {verdict})"
    if verdict == "FAIL":
        failed = next((r for r in report.reasons if r.severity.value == "fail"), None)
        why = f": {failed.code.value}: {failed.message}" if failed is not None else ""
        return f"FAIL: {what}, expected {report.expect}{why}"
    return f"{verdict}: {what} is {report.matched or report.expect}"


def _none_of(spec: str) -> str:
    """``no L40S``, or ``none of L40S, H200, RTX-PRO-6000`` for a fallback chain."""
    options = [part.strip() for part in spec.split("|") if part.strip()]
    if len(options) > 1:
        return f"none of {', '.join(options)}"
    return f"no {spec.strip()}"
