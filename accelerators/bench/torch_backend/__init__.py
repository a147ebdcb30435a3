"""The torch backend: the one :class:`~accelerators.bench.measure._backend.Backend` that runs
kernels on hardware (CUDA, ROCm, Intel XPU and the CPU).

:class:`~accelerators.bench.torch_backend._backend.TorchBackend` (``_backend``), the GEMM
dtypes torch can run on a device (``_dtypes``), GEMM pools and cases (``_gemm``), the stream
arrays (``_stream``), Blackwell's block-scaled MXFP8/MXFP4 GEMMs (``_block_scaled``) and the
on-device row checksums of every GEMM output (``_abft``, exact for int8 in ``_abft_exact``).

torch is imported when a backend is created, never by importing this package. Named
``torch_backend``, not ``torch``, so that no import inside the bench can mistake it for torch.
Above :mod:`.measure` only.
"""
