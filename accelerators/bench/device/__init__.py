"""Device state and vendors: what a run knows about each device besides its figures.

What the phases share, the devices' states and the progress (``_context``), NVIDIA's power,
clocks, PCIe and NVLink through NVML (``_config``) and AMD's through AMD SMI
(``_amd_config``), telemetry under load (``_telemetry``), other processes on a GPU
(``_gpu_processes``) and how busy the host's CPUs were during a run (``_contention``: other
processes' CPU time, steal, load).

Above :mod:`.expect`; beside :mod:`.history`.
"""
