"""Which of a plan's choices the cluster its pods run on can place (``plan(platform=...)``).

A plan that tops with an RTX A5000 on RunPod is useless to a pipeline whose pods run on an
EKS cluster through Karpenter: Karpenter rents EC2 instances, and no EC2 instance has that
card. With ``platform`` (a name from :func:`accelerators.kubernetes.platforms`) a plan
leaves out, with the reason ``not placeable on <platform>: ...``:

* a **rented** offer of another cloud than the one whose machine types make the platform's
  nodes (``Platform.cloud``: Karpenter's, EKS's and the Neuron device plugin's are EC2's,
  GKE's are GCP's): the cluster cannot rent it, and its price is not what the job would pay;
* an option whose pod the platform cannot place: every reason
  :func:`accelerators.kubernetes.placement_problems` gives (what
  :func:`~accelerators.kubernetes.to_pod_fragment` refuses: no label for the device on this
  platform, a MIG partition it cannot select...; a count no node of its cloud has), the same
  checks the Airflow operators and Flyte's ``task_args`` run when the pipeline places the
  spec. An option of several instances runs one pod per instance; each pod is judged.

:func:`joins` says whether a fallback chain (:meth:`Plan.fallbacks`) is still placeable as
one pod with one more alternative. Results are kept per (spec, platform): a plan asks about
a few dozen distinct specs, and the next plan asks about the same ones.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from accelerators.errors import AcceleratorError
from accelerators.sizing._plan_inputs import one_of

if TYPE_CHECKING:
    from collections.abc import Iterable

    from accelerators.sizing._choices import Choice
    from accelerators.spec import AcceleratorSpec

__all__ = ["REASON", "joins", "platform_cloud", "platform_of", "unplaceable"]

#: The head of an exclusion's reason (the "left out" counts group by it).
REASON = "not placeable on {platform}"

#: ``placement_problems`` per (spec text, platform name): a spec is placed the same way on a
#: platform every time (built-in or registered: a name is never registered twice).
_PROBLEMS: dict[tuple[str, str], tuple[str, ...]] = {}
_CANNOT = re.compile(r"^Cannot place '[^']*' on platform '[^']*'(?: as one pod)?: ")


def platform_of(platform: object) -> str | None:
    """``platform`` checked against :func:`~accelerators.kubernetes.platforms` (``None``: any).

    :raises SizingError: an unknown name, with the known ones and the close match.
    """
    if platform is None:
        return None
    from accelerators.kubernetes import platforms

    return one_of(platform, platforms(), "platform")


def platform_cloud(platform: str) -> str | None:
    """The cloud whose machine types make ``platform``'s nodes, or ``None`` (any)."""
    from accelerators.kubernetes import get_platform

    return get_platform(platform).cloud


def unplaceable(choice: Choice, platform: str) -> str | None:
    """Why ``platform`` cannot run ``choice``'s pods (``not placeable on ...: why``), else
    ``None``."""
    head = REASON.format(platform=platform)
    cloud = platform_cloud(platform)
    if choice.ownership == "rent" and cloud is not None and choice.cloud != cloud:
        return f"{head}: its nodes are {cloud} instances, this offer is on {choice.cloud}"
    problems = _problems(_per_pod(choice.spec, choice.instances), platform)
    return f"{head}: {_CANNOT.sub('', problems[0])}" if problems else None


def joins(chosen: Iterable[AcceleratorSpec], spec: AcceleratorSpec, platform: str) -> bool:
    """Whether one pod on ``platform`` can ask for ``chosen`` then ``spec`` as fallbacks."""
    from accelerators.spec import AcceleratorSpec

    chain = AcceleratorSpec.coerce([*chosen, spec])
    return not _problems(chain, platform)


def _per_pod(spec: AcceleratorSpec, instances: int) -> AcceleratorSpec:
    """The spec of one pod of an option spread over ``instances`` nodes (one pod per node)."""
    if instances <= 1:
        return spec
    return spec.model_copy(update={"count": math.ceil(spec.count / instances)})


def _problems(spec: AcceleratorSpec, platform: str) -> tuple[str, ...]:
    key = (str(spec), platform)
    found = _PROBLEMS.get(key)
    if found is None:
        from accelerators.kubernetes import placement_problems

        try:
            found = placement_problems(spec, platform=platform)
        except AcceleratorError as exc:  # a spec the platform cannot even read
            found = (str(exc),)
        _PROBLEMS[key] = found
    return found
