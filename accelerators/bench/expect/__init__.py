"""What a device should reach: efficiency bands, datasheet peaks, a CPU's peak and clock.

The sourced bands and CPU rules of ``accelerators/data/bench_bands.toml`` (``_bands``), the
catalog's peaks scaled to one torch device (``_peaks``), where a CPU peak's clock and ISA come
from (``_cpu_peak``) and the clock a CPU sustains, measured (``_cpu_clock``).

Above :mod:`.report` and :mod:`.measure`; below everything that judges or records.
"""
