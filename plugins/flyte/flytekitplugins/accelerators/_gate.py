"""The benchmark gate in Flyte: a result type, the local-run rule, policies, the Deck.

**What the gate expects.** In a cluster (flytekit's execution mode is a real task execution)
the gate checks the spec the pod was placed for: ``$ACCELERATORS_PLACED_SPEC``, which every pod
template of :func:`~flytekitplugins.accelerators.task_args` sets, so a node override
(``with_overrides(**task_args("H200:8"))``) moves the expectation with the placement; without
it, the spec the task was declared with. The device must be that accelerator, healthy and fast,
or the gate fails. Nothing can relax this in a cluster.

On your machine (``pyflyte run`` without ``--remote``, ``python dags/…``, unit tests) the
expected device is usually absent, so:

1. ``$ACCELERATORS_GATE_EXPECT`` set → that spec is checked instead, and a failure names
   the variable; ``none`` checks whatever device is there (health and speed only). ``any`` is
   a spec like any other (Modal's any-of: ``T4 | L4 | … | B200``, docs/grammar.md), here as
   in ``gate("any")``;
2. else, no accelerator visible (only the CPU) → the gate checks the CPU's health and speed
   against its own figures, and the result records that the expected device was absent
   (``local=True``, ``expected_present=False`` and a note);
3. else (a local GPU) → the spec is checked as in a cluster.

**Policies** when the verdict is ``fail``: ``"fail"`` raises
:class:`~accelerators.AcceleratorGateError` (a non-recoverable user error: the execution
fails); ``"retry"`` raises flytekit's ``FlyteRecoverableException`` so the task's retries
start a new pod, which the scheduler may put on another node.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accelerators import AcceleratorError, AcceleratorGateError, AcceleratorSpec
from accelerators.errors import close_matches

if TYPE_CHECKING:
    from accelerators import SpecLike
    from accelerators.bench import BenchReport

__all__ = [
    "LOCAL_EXPECT_ENV",
    "PLACED_SPEC_ENV",
    "POLICIES",
    "RETRY_POLICY_RETRIES",
    "GateResult",
    "check_gate_options",
    "chosen_alternative",
    "gate_result",
    "is_local_execution",
    "last_gate_result",
    "measure_gate",
    "placed_spec",
    "run_gate",
    "settle",
]

#: Overrides the gate's expectation in local runs only.
LOCAL_EXPECT_ENV = "ACCELERATORS_GATE_EXPECT"
#: The spec a pod was placed for: set in every pod template ``task_args`` makes.
PLACED_SPEC_ENV = "ACCELERATORS_PLACED_SPEC"
POLICIES = ("fail", "retry")
#: How many retries a ``retry`` policy gets when the task or node sets none.
RETRY_POLICY_RETRIES = 2

_LAST: dict[str, GateResult] = {}
_IDENTITY_CODES = frozenset(
    {"no_accelerator", "wrong_accelerator", "too_few_devices", "mig_slice", "wrong_partition"}
)
_FAIL: Any = "fail"


@dataclass
class GateResult:
    """The gate's typed output: what it checked, where, the verdict, and the full report.

    :ivar verdict: ``pass``, ``warn`` or ``fail``.
    :ivar expected: the spec the pod was placed for (``$ACCELERATORS_PLACED_SPEC``, else the
        declared one).
    :ivar checked: the spec the gate judged against (``anything`` when none).
    :ivar local: the gate ran outside a cluster.
    :ivar expected_present: the visible devices are the expected accelerator.
    :ivar node: the Kubernetes node (``$NODE_NAME``), empty outside Kubernetes.
    :ivar host: the host name.
    :ivar device: ``"<count> x <name>"`` of what was benchmarked.
    :ivar matched: the alternative of a fallback spec the devices matched.
    :ivar reasons: ``"[severity] code: message"`` lines.
    :ivar note: how the local-run rule applied, if it did.
    :ivar report_json: the whole :class:`~accelerators.bench.BenchReport` as JSON.
    :ivar declared: the spec the task was declared with, when a node override placed it on
        another (``expected``); empty otherwise.
    :ivar headline: the verdict in one line, saying what was checked
        (:func:`accelerators.bench.gate_headline`): ``not checked: this machine has no L40S``
        when a local run checked only the health of what was there.
    """

    verdict: str
    expected: str
    checked: str
    local: bool
    expected_present: bool
    node: str = ""
    host: str = ""
    device: str = ""
    matched: str = ""
    elapsed_s: float = 0.0
    reasons: list[str] = field(default_factory=list)
    note: str = ""
    report_json: str = ""
    declared: str = ""
    headline: str = ""

    @property
    def passed(self) -> bool:
        """True unless the verdict is ``fail``."""
        return self.verdict != "fail"

    def report(self) -> BenchReport:
        """The full report, parsed back."""
        from accelerators.bench import BenchReport

        return BenchReport.model_validate_json(self.report_json)

    def summary(self) -> str:
        """One line: the headline (verdict, device), node, expectation and the local note."""
        where = self.node or self.host or "?"
        head = self.headline or f"{self.verdict.upper()}: {self.device}"
        line = f"gate {head} on {where}, expected {self.expected}"
        if self.declared:
            line += f" (placed by a node override; declared {self.declared})"
        if self.checked != self.expected:
            line += f" (checked: {self.checked})"
        return line + (f"; {self.note}" if self.note else "")


def is_local_execution() -> bool:
    """True unless flytekit runs this task in a cluster (``pyflyte-execute``)."""
    from flytekit import FlyteContextManager
    from flytekit.core.context_manager import ExecutionState

    state = FlyteContextManager.current_context().execution_state
    cluster = {
        ExecutionState.Mode.TASK_EXECUTION,
        ExecutionState.Mode.DYNAMIC_TASK_EXECUTION,
        ExecutionState.Mode.EAGER_EXECUTION,
    }
    return state is None or state.mode not in cluster


def check_gate_options(policy: str, profile: str, *, where: str = "gate") -> None:
    """Refuse an unknown policy or bench profile when the task is written, not in the pod.

    :raises AcceleratorError: naming the value, the valid ones and the closest.
    """
    from accelerators.bench import PROFILES

    for what, value, valid in (("policy", policy, POLICIES), ("profile", profile, PROFILES)):
        if value not in valid:
            hint = close_matches(str(value), valid)
            raise AcceleratorError(
                f"{where}: unknown gate {what} {value!r}: expected one of {', '.join(valid)}"
                + (f"; did you mean {hint[0]!r}?" if hint else "")
            )


def placed_spec(declared: Any, *, local: bool) -> tuple[AcceleratorSpec, str]:
    """``(spec the pod was placed for, declared text if a node override changed it else "")``.

    In a cluster, ``$ACCELERATORS_PLACED_SPEC`` (set by ``task_args``' pod template) wins over
    the declared spec; locally there is no placement, so the declared one stands.

    :raises AcceleratorError: the variable holds no valid spec (named in the message).
    """
    spec = AcceleratorSpec.coerce(declared)
    placed = "" if local else os.environ.get(PLACED_SPEC_ENV, "").strip()
    if not placed:
        return spec, ""
    try:
        found = AcceleratorSpec.parse(placed)
    except AcceleratorError as exc:
        raise AcceleratorError(f"${PLACED_SPEC_ENV}={placed!r} is not a spec: {exc}") from exc
    return found, "" if found == spec else str(spec)


#: ``$ACCELERATORS_GATE_EXPECT`` value for "no expectation": health and speed of whatever
#: device is there, against its own datasheet. (``any`` is a spec like any other: Modal's
#: any-of, docs/grammar.md.)
NO_EXPECTATION = "none"


def _expectation(spec: AcceleratorSpec, local: bool) -> tuple[AcceleratorSpec | None, str]:
    """``(spec to check or None for anything, note)`` per the module's rule."""
    if not local:
        return spec, ""
    override = os.environ.get(LOCAL_EXPECT_ENV, "").strip()
    if override:
        note = f"local run: expectation {override!r} from ${LOCAL_EXPECT_ENV}"
        if override.lower() == NO_EXPECTATION:
            return None, note + " (no expectation: health and speed only)"
        try:
            return AcceleratorSpec.parse(override), note
        except AcceleratorError as exc:
            raise AcceleratorError(
                f"${LOCAL_EXPECT_ENV}={override!r} is neither a spec nor {NO_EXPECTATION!r}: {exc}"
            ) from exc
    from accelerators import current

    visible = [d for d in current().devices if d.kind != "cpu"]
    if visible:
        return spec, ""
    return None, (
        f"local run: {spec} is not on this machine (no accelerator visible), so the gate "
        "checked the CPU's health and speed only"
    )


def run_gate(
    expect: SpecLike,
    *,
    profile: str = "quick",
    policy: str = "fail",
    local: bool | None = None,
    run: Any = None,
) -> GateResult:
    """Run the benchmark gate for ``expect`` and apply the failure policy.

    :param expect: the spec the guarded tasks run on.
    :param profile: the bench profile (``quick`` for a gate).
    :param policy: ``"fail"`` or ``"retry"`` (see the module docstring).
    :param local: force the local-run rule on or off; default :func:`is_local_execution`.
    :param run: ``accelerators.bench.run`` or a stand-in with its signature (tests).
    :raises AcceleratorGateError: the verdict is ``fail`` and the policy is ``fail``.
    :raises FlyteRecoverableException: the verdict is ``fail`` and the policy is ``retry``.
    """
    check_gate_options(policy, profile)
    return settle(measure_gate(expect, profile=profile, local=local, run=run), policy)


def measure_gate(
    expect: SpecLike, *, profile: str = "quick", local: bool | None = None, run: Any = None
) -> GateResult:
    """:func:`run_gate` without the policy: the result, passed or failed, never raised.

    For a gate run in another process (a child process, a Ray node), whose result the caller
    settles with :func:`settle`. Arguments as for :func:`run_gate`.
    """
    check_gate_options("fail", profile)
    is_local = is_local_execution() if local is None else local
    spec, declared = placed_spec(expect, local=is_local)
    checked, note = _expectation(spec, is_local)
    if run is None:
        from accelerators.bench import run
    # history=None: the report goes to the bench history ACCELERATORS_BENCH_HISTORY names.
    report = run(checked, profile, history=None)
    result = gate_result(report, spec, checked, is_local, note)
    result.declared = declared
    return result


def settle(result: GateResult, policy: str, *, prefix: str = "") -> GateResult:
    """Record ``result`` (:func:`last_gate_result`) and apply ``policy`` to a failed one.

    :param prefix: said before the report's message (where the gate ran).
    :raises AcceleratorGateError: the verdict is ``fail`` and the policy is ``fail``.
    :raises FlyteRecoverableException: the verdict is ``fail`` and the policy is ``retry``.
    """
    _LAST[result.expected] = result
    if result.declared:
        _LAST[result.declared] = result
    _LAST[""] = result
    if result.passed:
        return result
    error = AcceleratorGateError(result.report())
    if result.note:  # a local override (or the local rule) caused this failure: say so
        error.args = (f"{error.args[0]}\n({result.note})",)
    if prefix:
        error.args = (f"{prefix}{error.args[0]}",)
    if policy == "retry":
        from flytekit.exceptions.user import FlyteRecoverableException

        raise FlyteRecoverableException(f"{error}\n(retrying on a new pod)") from error
    raise error


def gate_result(
    report: BenchReport,
    spec: AcceleratorSpec,
    checked: AcceleratorSpec | None,
    local: bool,
    note: str,
) -> GateResult:
    from accelerators.bench import gate_headline

    device = report.device
    return GateResult(
        verdict=str(report.verdict),
        expected=str(spec),
        checked=str(checked) if checked is not None else "anything",
        local=local,
        expected_present=checked is not None
        and not any(str(r.code) in _IDENTITY_CODES for r in report.reasons_at_least(_FAIL)),
        node=report.node or "",
        host=report.host,
        device=f"{device.count} x {device.accelerator or device.name}",
        matched=report.matched or "",
        elapsed_s=report.elapsed_s,
        reasons=[f"[{r.severity}] {r.code}: {r.message}" for r in report.reasons],
        note=note,
        report_json=report.model_dump_json(),
        headline=gate_headline(report, asked=str(spec) if checked is None else None),
    )


def chosen_alternative(spec: SpecLike, result: GateResult) -> AcceleratorSpec:
    """The alternative of a guarded task's ``spec`` the gate's device serves, with the task's
    own count (``spec`` itself when a local gate saw no accelerator).

    :raises AcceleratorError: the gate's device is none of ``spec``'s alternatives.
    """
    from accelerators.bench import alternative_on

    parsed = AcceleratorSpec.coerce(spec)
    device = result.report().device if result.report_json else _device_of(result)
    if device.accelerator is None and result.local:
        return parsed
    return alternative_on(parsed, device)


def _device_of(result: GateResult) -> Any:
    """A result without its report (built by hand): the device its matched alternative names."""
    from accelerators.bench import DeviceSummary

    found = AcceleratorSpec.parse(result.matched or result.expected).alternatives[0]
    entry = found.candidates[0] if found.candidates else None
    return DeviceSummary(
        kind="gpu" if entry is not None else "cpu",
        name=entry.name if entry is not None else "?",
        accelerator=entry.name if entry is not None else None,
        count=found.devices_needed,
        is_mig=found.mig_profile is not None,
        mig_profile=found.partition if found.mig_profile is not None else None,
    )


def last_gate_result(spec: SpecLike | None = None) -> GateResult | None:
    """The last gate result in this process (for ``spec``, or any): for the guarded code.

    :param spec: the spec the gate checked; ``None`` for the latest of all.
    """
    key = "" if spec is None else str(AcceleratorSpec.coerce(spec))
    return _LAST.get(key)


def render_deck(result: GateResult) -> None:
    """Show ``result`` as the task's first Deck tab, "Accelerator gate" (``enable_deck=True``)."""
    from flytekitplugins.accelerators._deck import render_deck as render

    render(result)
