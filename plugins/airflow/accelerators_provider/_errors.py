"""Errors that say where: the user's DAG file and line, the task, the argument.

Airflow shows a DAG file's import error with only the innermost frames of its traceback
(``[core] dagbag_import_error_traceback_depth``, 2 by default), which are this provider's
and the core's, not the line of the DAG file that wrote ``accelerator="H1OO"``. :func:`step`
prefixes an :class:`~accelerators.AcceleratorError` raised while a task is defined with
``<file>:<line>: task '<id>', <argument>=<value>:``, the file and line being the innermost
frame outside this provider, the core and Airflow.

At run time, :class:`AcceleratorTaskError` is an error no retry can fix (no cluster
configured, a gate that reported no node, a task that does not fit its gate's node): it is
Airflow's ``AirflowFailException`` too, so the task fails at once instead of after every
retry and its delay. :func:`fail_fast` makes any of the core's errors such an error, keeping
its type: a templated or mapped spec that renders to ``H1OO:1`` raises an
``UnknownAcceleratorError`` (a ``ValueError``), which Airflow would retry.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from accelerators import AcceleratorError

__all__ = [
    "AcceleratorTaskError",
    "annotate",
    "fail_fast",
    "failing_fast",
    "require_cluster",
    "step",
    "user_frame",
    "warn_at_user_line",
]

_MARK = "_accelerators_where"


@functools.cache
def _library_roots() -> tuple[str, ...]:
    import accelerators
    import accelerators_provider

    roots = [Path(accelerators.__file__).parent, Path(accelerators_provider.__file__).parent]
    airflow = sys.modules.get("airflow")
    for path in getattr(airflow, "__path__", ()) or ():
        roots.append(Path(path))
    pendulum_file = getattr(sys.modules.get("pendulum"), "__file__", None)
    if pendulum_file:
        roots.append(Path(pendulum_file).parent)
    roots.append(Path(contextlib.__file__).parent)  # the standard library
    return tuple(str(root.resolve()) + "/" for root in roots)


def user_frame() -> str | None:
    """``file:line`` of the innermost frame outside this provider, the core, Airflow and the
    standard library: the DAG file line that defined the task (``None`` if there is none)."""
    found = _user_location()
    return f"{found[0]}:{found[1]}" if found else None


def _user_location() -> tuple[str, int] | None:
    roots = _library_roots()
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith("<"):
            resolved = str(Path(name).resolve())
            if not resolved.startswith(roots):
                return name, frame.f_lineno
        frame = frame.f_back
    return None


def warn_at_user_line(message: str, category: type[Warning]) -> None:
    """Warn at the DAG file line that defined the task (:func:`user_frame`), where Airflow's
    ``DagBag`` records it as a DAG import warning of that file and line."""
    found = _user_location()
    if found is None:
        warnings.warn(message, category, stacklevel=2)
        return
    filename, lineno = found
    warnings.warn_explicit(message, category, filename, lineno)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def annotate(
    exc: AcceleratorError,
    task_id: str,
    argument: str | None = None,
    value: Any = None,
    *,
    where: bool = True,
) -> AcceleratorError:
    """``exc`` with its message prefixed by where it comes from, once; returns it.

    The exception keeps its type and attributes (``suggestions``, ``span``); only its message
    gains ``<file>:<line>: task '<task_id>', <argument>=<value>: ``. ``where=False`` (at run
    time, where the stack holds no DAG file line) leaves the file and line out.
    """
    if not getattr(exc, _MARK, False):
        origin = user_frame() if where else None
        what = f"task {task_id!r}" + (f", {argument}={_shown(value)}" if argument else "")
        prefix = f"{origin}: {what}: " if origin else f"{what}: "
        exc.args = (prefix + str(exc), *exc.args[1:])
        setattr(exc, _MARK, True)
    return exc


@contextlib.contextmanager
def step(
    task_id: str, argument: str | None = None, value: Any = None, *, where: bool = True
) -> Iterator[None]:
    """Prefix an :class:`AcceleratorError` raised inside with where it comes from
    (:func:`annotate`)."""
    try:
        yield
    except AcceleratorError as exc:
        annotate(exc, task_id, argument, value, where=where)
        raise


@functools.cache
def _fail_base() -> type[Exception]:
    """Airflow's ``AirflowFailException``: in ``airflow.sdk.exceptions``, else in
    ``airflow.exceptions`` (Airflow 3.0 keeps it there only)."""
    for module_name in ("airflow.sdk.exceptions", "airflow.exceptions"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        found = getattr(module, "AirflowFailException", None)
        if isinstance(found, type) and issubclass(found, Exception):
            return found
    raise ImportError("Airflow's AirflowFailException is in neither airflow.sdk nor airflow")


class AcceleratorTaskError(AcceleratorError, _fail_base()):  # type: ignore[misc]
    """An accelerator error at run time that no retry can fix: the task fails at once."""


_FAIL_FAST: dict[type[AcceleratorError], type[AcceleratorError]] = {}


def _fail_fast_class(cls: type[AcceleratorError]) -> type[AcceleratorError]:
    """``cls`` that is also ``AirflowFailException``, shown under ``cls``'s own name."""
    if cls not in _FAIL_FAST:
        namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        _FAIL_FAST[cls] = type(cls.__name__, (cls, _fail_base()), namespace)
    return _FAIL_FAST[cls]


def fail_fast(exc: AcceleratorError) -> AcceleratorError:
    """``exc`` as an error Airflow fails the task on at once, without its retries: the same
    type (a subclass of it that is also ``AirflowFailException``), message and attributes
    (``suggestions``, ``span``...). A spec or placement error is the DAG's, and every retry
    would meet it again."""
    if isinstance(exc, _fail_base()):
        return exc
    cls = _fail_fast_class(type(exc))
    new = cls.__new__(cls, *exc.args)
    new.__dict__.update(exc.__dict__)
    new.__cause__, new.__context__ = exc.__cause__, exc.__context__
    return new.with_traceback(exc.__traceback__)


@contextlib.contextmanager
def failing_fast() -> Iterator[None]:
    """Raise an :class:`AcceleratorError` from inside as :func:`fail_fast` makes it."""
    try:
        yield
    except AcceleratorError as exc:
        raise fail_fast(exc) from None


def require_cluster(operator: Any) -> None:
    """Raise :class:`AcceleratorTaskError` when ``operator`` has no Kubernetes cluster to use.

    Loads the client configuration as ``KubernetesPodOperator`` would (its cached ``client``:
    in-cluster service account, connection, ``config_file`` or ``~/.kube/config``); this
    sends no request. Without it, a pod task fails with a bare ``ConfigException`` after
    each retry and its delay.
    """
    from kubernetes.config.config_exception import ConfigException

    try:
        operator.client  # noqa: B018 - the cached property loads the configuration
    except ConfigException as exc:
        raise AcceleratorTaskError(
            f"Task {operator.task_id!r}: no Kubernetes cluster is configured here ({exc}): "
            "no in-cluster service account, no kubeconfig (~/.kube/config, KUBECONFIG or "
            f"config_file=) and connection {operator.kubernetes_conn_id!r} names none. To try "
            "the DAG without a cluster, run it with the DAG param local_run, e.g. airflow "
            "dags test <dag_id> -c '{\"local_run\": true}' --mark-success-pattern "
            "'<the pod tasks>': the gates check this machine and the pod tasks are marked "
            "success (docs/airflow.md, 'Running a template locally')"
        ) from None
