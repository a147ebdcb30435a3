"""The benchmark gate: prove in seconds that the accelerator is the one asked for, healthy and fast.

>>> from accelerators import bench
>>> report = bench.gate("H100:8")  # doctest: +SKIP
>>> report.verdict, report.gemm[0].tflops  # doctest: +SKIP

:func:`gate` runs :func:`run` and raises :class:`AcceleratorGateError` when the verdict is
``fail``; Flyte and Airflow wrappers call it as the first node of a pipeline. A run:

* identifies every device through :func:`accelerators.current` and compares it with the
  expected spec (wrong SKU, MIG slice where a whole GPU was asked for, too few devices);
* measures the maximum achievable matmul rate per dtype (fp32, tf32, bf16, fp16, fp8 on GPUs;
  fp32 and bf16 on CPUs) with a shape search guided by the SM count and caches, under a
  time budget, each winner checked against an fp64 reference;
* measures STREAM/BabelStream copy, scale, add, triad and dot bandwidth, each checked against
  its analytic value;
* compares the figures with catalog peaks and sourced efficiency bands
  (``accelerators/data/bench_bands.toml``) and returns pass, warn or fail with every reason.

torch is imported when a run starts, never by importing this package (extra ``[bench]``).
Profiles: ``quick`` (the gate: at most 15 s on a 2-core CPU, about 10 s on one H100),
``standard``, ``full``. Method, thresholds and measured performance: ``docs/benchmark.md``.

Public names: :func:`gate`, :func:`run`, :class:`AcceleratorGateError`,
:class:`BenchReport`, :class:`DeviceReport`, :class:`DeviceSummary`, :class:`GemmResult`,
:class:`MemoryResult`, :class:`Reason`, :class:`ReasonCode`, :class:`Severity`,
:class:`Verdict`, :class:`Profile`, :data:`PROFILES` (their names :data:`PROFILE_NAMES`,
checked without importing them by :func:`profile_name`), :data:`SCHEMA_VERSION`,
:func:`alternative_on` (which alternative of a task's spec the gate's device serves),
:func:`write_json`, :func:`plot_report` (a roofline PNG), :func:`html_report` (a
self-contained HTML page for Flyte Decks and Airflow views), :func:`gate_headline` (the
verdict in one line, saying when the accelerator asked for was not checked), :func:`open_store` and
:class:`HistoryStore` (the bench history a gate appends to: ``gate(history=...)``, or for a
whole deployment the environment variable :data:`HISTORY_ENV`,
``ACCELERATORS_BENCH_HISTORY``; a path, ``postgresql://`` or ``s3://``) and :class:`Query`
(which summaries to read back from it, newest first).

Where things live: ten subpackages on five floors, read top-down. A floor imports only the
floors below it, and the parts of one floor do not import each other (the ``bench-layers``
contract in ``pyproject.toml``; ``tests/bench/test_bench_layering.py`` checks lazy and
``TYPE_CHECKING`` imports too)::

    runner/ | render/ | testing/   the run and its phases | charts, HTML | fakes (public)
       v
    judge/                         identity, coverage, each figure's reasons, the verdict
       v
    device/ | history/             device state and vendors | the stored history, baselines
       v
    expect/ | torch_backend/       bands, peaks, CPU clock | torch kernels on hardware
       v
    measure/ | report/             backend interface, timing, search | the report's model
"""

from __future__ import annotations

from accelerators._lazy import lazy_exports

# Not `from typing import TYPE_CHECKING`: typing costs milliseconds the package need not pay.
TYPE_CHECKING = False

# The public names: where each lives, imported on first use (PEP 562), so that importing this
# package costs neither pydantic nor torch. Type checkers read the same imports below.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        ".report._errors": "AcceleratorGateError",
        ".judge._choose": "alternative_on",
        ".report._models": "SCHEMA_VERSION BenchReport DeviceReport DeviceSummary GemmResult "
        "MemoryResult Reason ReasonCode Severity Verdict write_json",
        ".measure._profiles": "PROFILES Profile",
        ".measure._profile_names": "PROFILE_NAMES profile_name",
        ".runner._run": "run",
        ".render._html": "html_report",
        ".render._headline": "gate_headline",
        ".render._plot": "plot_report",
        ".history._store": "HistoryStore Query",
        ".history._open": "HISTORY_ENV open_store",
    },
    own="gate",
)

if TYPE_CHECKING:
    import os
    from collections.abc import Callable

    from accelerators.bench.history._open import HISTORY_ENV as HISTORY_ENV
    from accelerators.bench.history._open import open_store as open_store
    from accelerators.bench.history._store import HistoryStore as HistoryStore
    from accelerators.bench.history._store import Query as Query
    from accelerators.bench.judge._choose import alternative_on as alternative_on
    from accelerators.bench.measure._backend import Backend
    from accelerators.bench.measure._profile_names import PROFILE_NAMES as PROFILE_NAMES
    from accelerators.bench.measure._profile_names import profile_name as profile_name
    from accelerators.bench.measure._profiles import PROFILES as PROFILES
    from accelerators.bench.measure._profiles import Profile as Profile
    from accelerators.bench.render._headline import gate_headline as gate_headline
    from accelerators.bench.render._html import html_report as html_report
    from accelerators.bench.render._plot import plot_report as plot_report
    from accelerators.bench.report._errors import AcceleratorGateError as AcceleratorGateError
    from accelerators.bench.report._models import SCHEMA_VERSION as SCHEMA_VERSION
    from accelerators.bench.report._models import BenchReport as BenchReport
    from accelerators.bench.report._models import DeviceReport as DeviceReport
    from accelerators.bench.report._models import DeviceSummary as DeviceSummary
    from accelerators.bench.report._models import GemmResult as GemmResult
    from accelerators.bench.report._models import MemoryResult as MemoryResult
    from accelerators.bench.report._models import Reason as Reason
    from accelerators.bench.report._models import ReasonCode as ReasonCode
    from accelerators.bench.report._models import Severity as Severity
    from accelerators.bench.report._models import Verdict as Verdict
    from accelerators.bench.report._models import write_json as write_json
    from accelerators.bench.runner._run import DeviceSelection, ProgressCallback
    from accelerators.bench.runner._run import run as run
    from accelerators.detect import Detected
    from accelerators.spec import SpecLike


def gate(
    expect: SpecLike | None = None,
    profile: str | Profile = "quick",
    *,
    devices: DeviceSelection = None,
    backend: Backend | None = None,
    detected: Detected | None = None,
    sample: Callable[[], Detected] | None = None,
    progress: ProgressCallback | None = None,
    baseline: str | os.PathLike[str] | HistoryStore | None = None,
    history: str | os.PathLike[str] | HistoryStore | bool | None = None,
) -> BenchReport:
    """Benchmark the visible accelerators and raise unless they pass.

    :param expect: what the pipeline needs: anything :meth:`AcceleratorSpec.coerce` accepts
        (``"H100:8"``, ``"A100@1g.5gb"``, ``accelerators.A100``, a fallback list), or
        ``None`` to accept whatever is there.
    :param profile: ``"quick"`` (default), ``"standard"``, ``"full"`` or a :class:`Profile`.
    :param devices: device indices to benchmark, ``"cpu"``, or ``None`` for all.
    :param backend: a backend to use instead of torch (tests).
    :param detected: what :func:`accelerators.current` would return (tests).
    :param sample: reads telemetry under load (tests).
    :param progress: called with ``(fraction done, phase)``.
    :param baseline: a bench history (store, path, ``postgresql://`` or ``s3://`` URL): where
        a band or peak is unconfirmed, the fleet median of the same SKU there is the expected
        figure.
    :param history: where the report is appended (also the baseline unless ``baseline`` is
        given): a store, a path, a ``postgresql://`` or ``s3://`` URL or ``"default"``;
        ``None`` (the default) reads ``ACCELERATORS_BENCH_HISTORY`` from the environment, so
        a platform team turns on a fleet history for every pipeline's gate by setting it in
        the pods; ``False`` records nothing. A failed gate is recorded too, before it raises.
    :return: the report; its verdict is ``pass`` or ``warn``.
    :raises AcceleratorGateError: the verdict is ``fail``; ``.report`` holds the report.
    :raises AcceleratorError: ``expect`` or ``devices`` is invalid.
    """
    from accelerators.bench.report._errors import AcceleratorGateError
    from accelerators.bench.report._models import Verdict
    from accelerators.bench.runner._run import run

    report = run(
        expect,
        profile,
        devices=devices,
        backend=backend,
        detected=detected,
        sample=sample,
        progress=progress,
        baseline=baseline,
        history=history,
    )
    if report.verdict is Verdict.FAIL:
        raise AcceleratorGateError(report)
    return report
