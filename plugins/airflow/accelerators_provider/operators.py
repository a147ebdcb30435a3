"""``AcceleratorPodOperator`` and ``AcceleratorGateOperator``: pod operators placed by spec.

See :mod:`accelerators_provider._pod_operator` (placement: the template, your arguments and
the accelerator merged, then ``KubernetesPodOperator``'s own pod build and cluster policy)
and :mod:`accelerators_provider._gate_operator` (the benchmark gate, sync and deferrable).
"""

from __future__ import annotations

from accelerators_provider._gate_operator import AcceleratorGateOperator
from accelerators_provider._pod_operator import GATE_MODES, AcceleratorPodOperator

__all__ = ["GATE_MODES", "AcceleratorGateOperator", "AcceleratorPodOperator"]
