"""How the bench measures, on any backend: the lowest floor.

The :class:`~accelerators.bench.measure._backend.Backend` interface the algorithms run on
(``_backend``), timing (``_timing``), the GEMM shape search and its geometry (``_gemm``,
``_gemm_shapes``), the STREAM/BabelStream kernels (``_stream``), the CPU thread count
(``_threads``), correctness tolerances (``_correctness``), statistics that do not flap
(``_stable``) and the profiles' budgets (``_profiles``).

Imports nothing else of the bench; torch lives in :mod:`accelerators.bench.torch_backend`.
"""
