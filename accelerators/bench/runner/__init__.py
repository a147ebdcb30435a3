"""The run and its phases: the top floor of the bench.

:func:`~accelerators.bench.runner._run.run` orchestrates one run (``_run``): the expected spec
and the backend for what is visible (``_select``), the plan, deadlines and phases over the
devices of one backend (``_session``), the warm-up (``_warmup``), the GEMM shape search per
dtype (``_gemm_phase``), the bandwidth kernels (``_stream_phase``), the thread count of a CPU
workload (``_thread_phase``), a few seconds of back-to-back GEMMs (``_sustained``) and the
re-measured figures whose window was too spread to judge (``_rerun``).

Named ``runner``, not ``run``: ``accelerators.bench.run`` is the public function, and an
imported subpackage of that name would replace it as an attribute of the package.
"""
