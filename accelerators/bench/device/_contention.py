"""Is the node too busy to judge? CPU time used by other processes, steal, unstable samples.

:func:`snapshot` reads ``/proc/stat`` (every CPU's busy, idle and steal ticks) and this
process's own CPU time (all its threads) before and after a run; :func:`conditions` turns two
snapshots into shares of the machine:

* ``others_cpu``: CPU time *other* processes used during the run, over ``wall x cpus``;
* ``steal``: ticks the hypervisor gave to other guests, over all ticks;
* ``load_1m``: the 1-minute load average at the end.

:func:`busy_reasons` then rewrites the verdict: where a figure is slow and the node was busy
(or that figure's samples were unstable, median far below best), the ``gemm_slow`` /
``memory_slow`` reason becomes ``node_busy`` ("inconclusive: node busy", or "inconclusive:
timings unsteady, no other work seen on the node" when only the samples were unstable) at the
policy's severity. A busy node whose figures were fine gets an ``info`` ``node_busy`` reason, so the
report still says the run was disturbed.
"""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Sequence
from dataclasses import dataclass

from accelerators.bench.expect._bands import ContentionPolicy
from accelerators.bench.report._models import (
    GemmResult,
    MemoryResult,
    Reason,
    ReasonCode,
    Severity,
)

__all__ = ["CpuSnapshot", "busy_reasons", "conditions", "snapshot"]

_SLOW = (ReasonCode.GEMM_SLOW, ReasonCode.MEMORY_SLOW)


@dataclass(frozen=True)
class CpuSnapshot:
    wall_s: float
    busy_s: float
    """CPU seconds all processes spent (user, nice, system, irq, softirq), every CPU."""
    steal_s: float
    total_s: float
    own_s: float
    """CPU seconds this process spent (every thread)."""


def snapshot(stat_path: str = "/proc/stat", *, children: bool = False) -> CpuSnapshot | None:
    """The machine's and this process's CPU time now; ``None`` without ``/proc/stat``.

    :param children: count the CPU time of this process's finished (waited-for) children as
        its own too: a script that measures commands it runs is not "other processes".
    """
    try:
        with open(stat_path, encoding="ascii") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(v) for v in fields[1:]] + [0] * 10
    user, nice, system, idle, iowait, irq, softirq, steal = ticks[:8]
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    usage = resource.getrusage(resource.RUSAGE_SELF)
    own = usage.ru_utime + usage.ru_stime
    if children:
        waited = resource.getrusage(resource.RUSAGE_CHILDREN)
        own += waited.ru_utime + waited.ru_stime
    return CpuSnapshot(
        wall_s=time.monotonic(),
        busy_s=(user + nice + system + irq + softirq) / hz,
        steal_s=steal / hz,
        total_s=(user + nice + system + idle + iowait + irq + softirq + steal) / hz,
        own_s=own,
    )


def conditions(before: CpuSnapshot | None, after: CpuSnapshot | None) -> dict[str, float]:
    """Shares of the machine between two snapshots (empty when either is missing)."""
    if before is None or after is None:
        return {}
    cpus = float(os.cpu_count() or 1)
    wall = max(after.wall_s - before.wall_s, 1e-6)
    total = max(after.total_s - before.total_s, 1e-6)
    others = (after.busy_s - before.busy_s) - (after.own_s - before.own_s)
    found = {
        "cpus": cpus,
        "others_cpu": round(min(1.0, max(0.0, others / (wall * cpus))), 4),
        "steal": round(max(0.0, (after.steal_s - before.steal_s) / total), 4),
    }
    with contextlib.suppress(OSError):
        found["load_1m"] = round(os.getloadavg()[0], 2)
    return found


def _unstable(result: GemmResult | MemoryResult, policy: ContentionPolicy) -> str | None:
    """Why ``result``'s samples were too unstable to judge, ``None`` when they were not."""
    if result.unjudged is not None:
        again = f" after {result.reruns} rerun(s)" if result.reruns else ""
        return f"its timed calls stayed too spread to judge{again} ({result.unjudged})"
    if isinstance(result, GemmResult):
        best, median = result.tflops, result.median_tflops
    else:
        best, median = result.gbps, result.median_gbps
    if not best or not median:
        return None
    ratio = median / best
    if ratio < policy.spread_below:
        return f"its timed calls were unstable (median {ratio:.0%} of best)"
    return None


def busy_reasons(
    reasons: Sequence[Reason],
    found: dict[str, float],
    results: Sequence[GemmResult | MemoryResult],
    policy: ContentionPolicy,
    *,
    cause: str | None = None,
) -> list[Reason]:
    """``reasons`` with slow findings on a busy node turned into ``node_busy``.

    :param cause: contention found on the device itself (another process on a GPU), named
        instead of the host's CPU shares.
    """
    others, steal = found.get("others_cpu", 0.0), found.get("steal", 0.0)
    busy = cause is not None or _over_the_lines(found, policy)
    why = cause or (
        f"other processes used {others:.0%} of the {found.get('cpus', 0):.0f} CPUs, "
        f"steal {steal:.0%}, load {found.get('load_1m', float('nan')):.2f}"
    )
    by_metric: dict[tuple[int, str], GemmResult | MemoryResult] = {}
    for r in results:
        key = f"gemm.{r.dtype}" if isinstance(r, GemmResult) else f"memory.{r.kernel}"
        by_metric[(r.device_index, key)] = r
    out: list[Reason] = []
    named = False
    slow = {(r.device_index or 0, r.metric or "") for r in reasons if r.code in _SLOW}
    for (index, metric), measured in sorted(by_metric.items(), key=lambda item: item[0]):
        if measured.unjudged is not None and (index, metric) not in slow:
            # Not slow, or nothing to judge it against: the disturbance is still named.
            out.append(
                Reason(
                    code=ReasonCode.NODE_BUSY,
                    severity=Severity.INFO,
                    device_index=index,
                    metric=metric,
                    message=f"device {index}: {metric} not judgeable: {_unstable(measured, policy)}"
                    + (f" ({why})" if busy else ""),
                )
            )
            named = True
    for reason in reasons:
        result = by_metric.get((reason.device_index or 0, reason.metric or ""))
        spread = _unstable(result, policy) if result is not None else None
        if reason.code not in _SLOW or not (busy or spread is not None):
            out.append(reason)
            continue
        cause = f"{why}; {spread}" if busy and spread else why if busy else str(spread)
        # Spread timings with no other work seen on the node (a VM's own jitter, a device that
        # will not settle) are not called busy: the message says what was seen.
        label = "node busy" if busy else "timings unsteady, no other work seen on the node"
        if reason.code is ReasonCode.MEMORY_SLOW and busy:
            cause = "memory bandwidth shared with other processes: " + cause
        out.append(
            reason.model_copy(
                update={
                    "code": ReasonCode.NODE_BUSY,
                    "severity": Severity(policy.severity),
                    "message": f"inconclusive: {label} - {cause}; not judged: " + reason.message,
                }
            )
        )
        named = True
    if busy and not named and cause is None:
        out.append(
            Reason(
                code=ReasonCode.NODE_BUSY,
                severity=Severity.INFO,
                unit="ratio",
                value=others,
                threshold=policy.others_busy_above,
                message=f"node busy during the run ({why}): figures may read low",
            )
        )
    return out


def busy_since(before: CpuSnapshot | None, policy: ContentionPolicy) -> bool:
    """Whether other processes or the hypervisor took more than ``policy`` allows of the
    CPUs since ``before`` (a run's start): what :func:`busy_reasons` will find at its end."""
    return _over_the_lines(conditions(before, snapshot()), policy)


def _over_the_lines(found: dict[str, float], policy: ContentionPolicy) -> bool:
    """Whether ``found`` (:func:`conditions`) shows other processes or steal above the
    policy's lines."""
    others, steal = found.get("others_cpu", 0.0), found.get("steal", 0.0)
    return others > policy.others_busy_above or steal > policy.steal_above
