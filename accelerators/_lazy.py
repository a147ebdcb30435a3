"""A package's public names in one table, each imported on first use (PEP 562).

>>> from accelerators._lazy import lazy_exports
>>> __getattr__, __dir__, __all__ = lazy_exports(
...     "accelerators.bench",
...     {".report._errors": "AcceleratorGateError", ".report._models": "BenchReport Verdict"},
...     own="gate",
... )
>>> __all__
['AcceleratorGateError', 'BenchReport', 'Verdict', 'gate']
>>> __getattr__("BenchReport").__module__
'accelerators.bench.report._models'
>>> __getattr__("gat")
Traceback (most recent call last):
    ...
AttributeError: module 'accelerators.bench' has no attribute 'gat'; did you mean 'gate'?

The table maps a module to the names it defines, separated by spaces: a module that starts
with ``.`` is inside the package, and the module ``"."`` lists subpackages or submodules that
are themselves the public names (``"." : "catalog kinds"``). ``own`` names what the package
defines itself. :func:`lazy_exports` returns the three module attributes: ``__getattr__``
imports a name's module the first time the name is read and keeps the value in the package's
namespace (later reads cost nothing), and ``__dir__`` and ``__all__`` list the public names,
sorted (as ``dir()`` shows them).

An unknown name raises :class:`AttributeError` with the close matches among the public names,
as above.

Type checkers do not run ``__getattr__``: a package that uses this helper also imports the
same names under ``if TYPE_CHECKING:`` (``tests/test_lazy.py`` checks that every package's
imports there and its table agree, and that its docstring names each public name).

The Airflow provider and the Flyte plugin use this module too. Importing it imports only the
standard library's ``sys`` (already loaded), so it costs next to nothing; an unknown name
imports :mod:`accelerators.errors` (for the close matches) and :mod:`importlib.util`, and a
name listed twice :mod:`accelerators.errors`, when they happen.
"""

from __future__ import annotations

import sys

# Not `from typing import ...`: typing costs milliseconds that a lazy package need not pay.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

__all__ = ["LazyExports", "lazy_exports"]


class LazyExports:
    """The public names of ``package``: where each lives, and its loader (see module docstring).

    :param package: the package's ``__name__``.
    :param table: module -> the names it defines, separated by spaces.
    :param own: names the package defines itself, separated by spaces.
    """

    def __init__(self, package: str, table: Mapping[str, str], own: str = "") -> None:
        self.package = package
        #: name -> (module, attribute), attribute ``None`` for a submodule that is the name.
        self.where: dict[str, tuple[str, str | None]] = {}
        for module, names in table.items():
            for name in names.split():
                if name in self.where:
                    from accelerators.errors import AcceleratorError

                    raise AcceleratorError(f"{package}: {name!r} is listed twice")
                if module == ".":
                    self.where[name] = (f"{package}.{name}", None)
                else:
                    target = package + module if module.startswith(".") else module
                    self.where[name] = (target, name)
        self.names: tuple[str, ...] = tuple(sorted({*own.split(), *self.where}))

    def load(self, name: str) -> Any:
        """The value of ``name``, imported now and kept in the package's namespace."""
        found = self.where.get(name)
        if found is None:
            raise AttributeError(self.no_attribute(name))
        module_name, attribute = found
        __import__(module_name)
        module = sys.modules[module_name]
        value = module if attribute is None else getattr(module, attribute)
        vars(sys.modules[self.package])[name] = value
        return value

    def no_attribute(
        self, name: str, known: Iterable[str] | Callable[[], Iterable[str]] = ()
    ) -> str:
        """The message for an unknown ``name``, with the close matches among ``known`` (or
        what calling it returns) and the public names.

        None for private and dunder names, nor for a submodule not imported yet: the import
        system probes those here (``from package import _module``) before importing them, and
        ``known`` is not called, so a costly list of names is not built for nothing.
        """
        message = f"module {self.package!r} has no attribute {name!r}"
        if name.startswith("_") or self._is_submodule(name):
            return message
        from accelerators.errors import close_matches

        names = known() if callable(known) else known
        hints = close_matches(name, [*self.names, *names])
        if hints:
            message += f"; did you mean {' or '.join(repr(h) for h in hints)}?"
        return message

    def _is_submodule(self, name: str) -> bool:
        from importlib.util import find_spec

        try:
            return find_spec(f"{self.package}.{name}") is not None
        except (ImportError, ValueError):
            return False

    def dir(self) -> list[str]:
        return list(self.names)


def lazy_exports(
    package: str, table: Mapping[str, str], own: str = ""
) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` for ``package`` (see module docstring).

    :param package: the package's ``__name__``.
    :param table: module -> the names it defines, separated by spaces.
    :param own: names the package defines itself, separated by spaces.
    """
    exports = LazyExports(package, table, own)
    return exports.load, exports.dir, list(exports.names)
