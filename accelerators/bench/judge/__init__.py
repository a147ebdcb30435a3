"""Judging: from what a run observed to reasons, and from reasons to a verdict.

Whether the visible devices are the ones asked for (``_identity``: SKU, MIG, count), whether
the driver's devices are the ones torch benchmarked (``_reconcile``), each figure against its
band, correctness, telemetry and the spread between devices (``_verdict``, which also lists
every reason code), and a device's report, the slowest device and a busy node
(``_judge``). The verdict is the worst severity among the reasons.

Above :mod:`.device`, :mod:`.history` (the fleet baseline) and :mod:`.expect`.
"""
