"""What one GEMM shape search is given and hands back (:mod:`._gemm` runs it)."""

from __future__ import annotations

from dataclasses import dataclass

from accelerators.bench.measure._backend import GemmCase, Shape
from accelerators.bench.measure._timing import Measurement

__all__ = ["SearchResult", "SearchSettings", "Trial"]


@dataclass(frozen=True)
class SearchSettings:
    """Budget and statistics of one shape search.

    :param budget_s: wall-clock budget of the whole search, in seconds.
    :param final_fraction: share of the budget kept to re-measure the best shapes.
    :param min_reps: fewest timed calls per candidate.
    :param trial_reps: timed calls an exploratory trial aims for (fewer when its share of
        the budget runs out first); enough to rank shapes, not to report them.
    :param remeasure: spend the reserved final share re-measuring the two best shapes; off
        when the caller re-measures the winner itself (a CPU's thread windows).
    """

    budget_s: float
    final_fraction: float = 0.3
    min_reps: int = 3
    trial_reps: int = 20
    remeasure: bool = True


@dataclass(frozen=True)
class Trial:
    """One shape's measurement."""

    shape: Shape
    measurement: Measurement

    @property
    def best_tflops(self) -> float:
        return self.shape.flops / self.measurement.best_s / 1e12

    @property
    def median_tflops(self) -> float:
        return self.shape.flops / self.measurement.median_s / 1e12


@dataclass(frozen=True)
class SearchResult:
    """Outcome of :class:`ShapeSearch` for one dtype on one device.

    :param best: the winning shape with every sample it got.
    :param trials: every shape tried, in order.
    :param elapsed_s: wall-clock time of the search (pool allocation included).
    :param stopped: ``"budget"`` or ``"converged"``.
    :param case: the winning shape's case, still open, for the correctness check.
    :param cut: the hard deadline cut the winner's last measurement short (fewer calls than
        planned); a cut trial of another shape only ends the search, as a budget does.
    """

    dtype: str
    best: Trial
    trials: tuple[Trial, ...]
    elapsed_s: float
    stopped: str
    case: GemmCase
    cut: bool = False
