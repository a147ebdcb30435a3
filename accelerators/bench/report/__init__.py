"""The report: what a run returns and writes, the lowest floor beside :mod:`.measure`.

Frozen, versioned pydantic models (``_models``: :class:`BenchReport`, :class:`Reason`,
:class:`Verdict`...), the records of the configuration and sustained checks (``_config``),
writing report files (``_files``) and the gate's error (``_errors``).

Imports nothing else of the bench. Its views (HTML, roofline, history chart) are in
:mod:`accelerators.bench.render`.
"""
