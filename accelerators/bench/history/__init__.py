"""The bench history: where reports are kept, and what the fleet's past says.

The store interface, its queries and limits (``_store``); the compact summary kept beside
each report (``_summary``); the SQL stores' shared tables and statements (``_schema``,
``_sql``), SQLite (``_sqlite``) and PostgreSQL (``_postgres``, psycopg imported only there);
the S3 store (``_s3``, its keys and day reads ``_s3_days``, its deadline-bound client
``_s3_client``, boto3 imported only there); deadlines and a gate's budget (``_deadline``);
opening one by location (``_open``: a path, ``postgresql://``, ``s3://``,
``ACCELERATORS_BENCH_HISTORY``); what a stored record must be (``_check``); trends per node
and device (``_fleet``); fleet baselines where no sourced band exists (``_baseline``) and a
run's history step, its read and append (``_record``).

Above :mod:`.expect`; beside :mod:`.device` (neither imports the other).
"""
