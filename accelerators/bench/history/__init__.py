"""The bench history: where reports are kept, and what the fleet's past says.

The store interface and its SQLite file (``_store``), the S3 store (``_s3``), opening one by
location (``_open``: a path, ``s3://``, ``ACCELERATORS_BENCH_HISTORY``), what a stored record
must be (``_check``), trends per node and device (``_fleet``), fleet baselines where no
sourced band exists (``_baseline``) and a run's recording into the history (``_record``).

Above :mod:`.expect`; beside :mod:`.device` (neither imports the other).
"""
