"""Load the provider once in Airflow's DAG-processor manager, so that no parse pays for it.

Airflow 3's DAG processor parses each DAG file in a child process that the manager forks
(``airflow/dag_processing/manager.py`` calls ``gc.freeze()`` first; the child is a bare
``os.fork`` on Linux). Before a parse the manager imports the ``airflow.*`` modules the file
names (``[dag_processor] parsing_pre_import_modules``), but nothing else: a DAG file that
uses this provider would import ``accelerators_provider`` and the ``accelerators`` core again
in every child, load the catalog and build its name index again.

**Nothing to configure.** Airflow imports the provider's cluster policy
(:mod:`accelerators_provider.policy`, the ``airflow.policy`` entry point) in every process
while ``import airflow`` runs. In the DAG processor it registers :func:`preload_before_fork`
with ``os.register_at_fork``: the manager runs :func:`preload` once, right before it forks
its first parse, and every child inherits what it loaded. Nothing else happens at import, in
that process or any other.

Only the DAG processor gains from it, so :func:`preload` does its work only there (the
process was started as ``airflow dag-processor``; ``airflow standalone`` starts it so too):
the scheduler, the API server, the triggerer, workers and every ``airflow`` command would
otherwise each pay its seconds at start-up. The environment variable ``ACCELERATORS_PRELOAD``
overrides that: ``always``, ``never`` (no preload anywhere, the policy's included), or
``auto`` (the default).

Calling :func:`preload` in ``airflow_local_settings`` (what earlier versions asked for) still
works, and does the same work earlier, while ``import airflow`` runs::

    # $AIRFLOW_HOME/config/airflow_local_settings.py
    from accelerators_provider.preload import preload
    preload()

:func:`preload` imports the operators, decorators and executor helpers (and with them
``KubernetesPodOperator`` and the ``kubernetes`` client), loads the catalog, builds its name
index by parsing a spec, imports every platform adapter of :mod:`accelerators.kubernetes` and
places that spec with each (reading the instance table for the largest node per cloud and
importing the resource and gate checks), and resolves the catalog's own names (SKUs, models,
constants, aliases) once, so that a child finds ``H100`` among the resolved names instead of
running the resolution code for the first time (in a forked child, a first run of any code pays
copy-on-write page faults for what it touches).
It starts no thread and keeps no file or socket open, so forking after it is safe; what it
builds is only read afterwards, so ``gc.freeze()`` keeps it shared between the children.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import time

__all__ = ["ENV", "MODULES", "in_dag_processor", "preload", "preload_before_fork", "warm_up"]

#: ``always``, ``never`` or ``auto`` (the default: only in the DAG processor).
ENV = "ACCELERATORS_PRELOAD"

#: The modules :func:`preload` imports: what a DAG file that uses the provider touches.
MODULES = (
    "accelerators",
    "accelerators.spec",
    "accelerators.kubernetes",
    "accelerators_provider.operators",
    "accelerators_provider.decorators",
    "accelerators_provider.executors",
)


_done: list[bool] = []  # non-empty once preload() has run in this process
_tried: list[bool] = []  # non-empty once preload_before_fork() has run preload()
TYPE = "node.kubernetes.io/instance-type"


def in_dag_processor(argv: list[str] | None = None) -> bool:
    """Whether this process is Airflow's DAG processor: ``airflow dag-processor ...`` (or
    ``python -m airflow dag-processor ...``), judged from its command line."""
    args = list(sys.argv if argv is None else argv)
    if args[:1] == ["-m"]:  # python -m airflow ..., while the airflow package is imported
        original = list(getattr(sys, "orig_argv", ()))
        start = original.index("-m") + 1 if "-m" in original else len(original)
        args = original[start:]
    if not args:
        return False
    program = os.path.basename(args[0])
    if program != "airflow" and not args[0].endswith(os.path.join("airflow", "__main__.py")):
        return False
    command = next((a for a in args[1:] if not a.startswith("-")), None)
    return command == "dag-processor"


def _wanted() -> bool:
    choice = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if choice not in ("always", "never", "auto"):
        # Never raise here: airflow_local_settings runs in every Airflow process.
        logging.getLogger(__name__).warning(
            "%s=%r: expected always, never or auto; using auto", ENV, choice
        )
        choice = "auto"
    return choice == "always" or (choice == "auto" and in_dag_processor())


def preload() -> float | None:
    """In the DAG processor: import the provider and the core, load the catalog and build
    its name index. Elsewhere (``ACCELERATORS_PRELOAD`` aside) it does nothing.

    Calling it again costs nothing. Every step uses the core's public API. It never raises:
    a failure (the core missing or older than this provider) is logged once and it does
    nothing.

    :returns: the seconds it took (for a log line; about 1-3 s the first time in a
        process that had not imported ``kubernetes`` yet, most of it that client), or
        ``None`` where it did nothing.
    """
    if not _wanted():
        return None
    start = time.perf_counter()
    if _done:
        return time.perf_counter() - start
    try:
        _load()
    except Exception as exc:  # airflow_local_settings runs in every Airflow process
        import accelerators_provider

        if accelerators_provider.CORE_PROBLEM is None:  # else warned when it was imported
            logging.getLogger(__name__).warning(
                "accelerators: preload() did nothing: %s: %s", type(exc).__name__, exc
            )
        return None
    _done.append(True)
    return time.perf_counter() - start


def _load() -> None:
    """What :func:`preload` does."""
    for module in MODULES:
        importlib.import_module(module)
    from accelerators import AcceleratorError, AcceleratorSpec, catalog
    from accelerators.bench import profile_name
    from accelerators.kubernetes import (
        check_node_count,
        check_resources,
        get_platform,
        guard_problems,
        placement_conflicts,
        platforms,
        to_pod_fragment,
    )

    catalog.all()  # reads the data file (validated once, then from the cache)
    # Resolving a name that is not a SKU name builds the spelling index of every entry.
    spec = AcceleratorSpec.parse("nvidia-tesla-t4:1")
    for name in platforms():  # imports each platform's adapter
        get_platform(name)
        # and keeps the instance to_pod_fragment reuses (a TPU or Neuron platform refuses a T4)
        with contextlib.suppress(AcceleratorError):
            to_pod_fragment(spec, platform=name)
        # reads the instance table: the largest node of each accelerator, per cloud
        with contextlib.suppress(AcceleratorError):
            check_node_count(spec, platform=name)
    guard_problems(spec, spec)  # imports what checking a task against its gate needs
    check_resources({"containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}}}]})
    # what checking the user's selectors reads: instance types and every platform's labels
    selector = {TYPE: "g4dn.xlarge", "karpenter.k8s.aws/instance-gpu-name": "t4"}
    placement_conflicts(spec, {"containers": [{}], "nodeSelector": selector}, platform="generic")
    profile_name("quick")  # a gate's profile, checked when its DAG is parsed
    for acc in catalog.all():  # the catalog's own names, resolved here once for every parse
        for text in (acc.name, acc.model, acc.constant, *acc.aliases):
            if text:  # an entry without a constant has None there: nothing to resolve
                with contextlib.suppress(AcceleratorError):  # a name that is no spec alone
                    AcceleratorSpec.parse(text)
        for platform in ("gke", "karpenter"):  # the largest node of each model, per cloud
            with contextlib.suppress(AcceleratorError):
                check_node_count(acc.model, platform=platform)


def preload_before_fork() -> None:
    """:func:`preload` once, in a process about to fork (``os.register_at_fork(before=...)``),
    then ``gc.freeze()``, as the DAG processor's manager does before its loop, so that the
    children share what it loaded. Later forks cost a list lookup. Never raises."""
    if _tried:
        return
    _tried.append(True)
    if preload() is not None:
        import gc

        gc.freeze()


def warm_up() -> bool:
    """Register :func:`preload_before_fork` when this process wants the preload (the DAG
    processor, or ``ACCELERATORS_PRELOAD=always``); the cluster policy calls it at import.

    :returns: whether it registered. Cheap: reads the environment and ``sys.argv``.
    """
    if _done or not _wanted():
        return False
    os.register_at_fork(before=preload_before_fork)
    return True
