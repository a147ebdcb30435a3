"""A griffe extension for the API reference: the project's reST docstrings read as Markdown.

The docstrings of the core and the plugins are written for Sphinx (``:param x:`` fields, which
mkdocstrings parses with ``docstring_style: sphinx``, and ``:func:`gate``` roles, ``>>>``
examples, ``::`` literal blocks, which Markdown does not know). Loaded by mkdocstrings
(``mkdocs.yml``), this extension rewrites each docstring once its package is loaded:

* a role becomes inline code, linked to the object's API entry when that object is rendered
  (an ``optional`` cross-reference: a name with no entry, a private helper, stays plain code);
* a run of ``>>>`` lines becomes a ``pycon`` code block, a ``::`` literal block a code block;
* a package whose public names are lazy (PEP 562, ``__all__`` computed at import) gets the
  names its runtime ``__all__`` lists as its exports, where static analysis sees them (the
  ``if TYPE_CHECKING:`` imports), so ``::: accelerators.bench`` renders its public API.

It rewrites what the page shows and nothing in the sources; ``mkdocs build --strict`` still
fails on anything the docstrings get wrong (a documented parameter the signature lacks...).
"""

from __future__ import annotations

import html
import importlib
import inspect
import re
from typing import Any

import griffe

#: ``:func:`x```, ``:class:`~a.b.C```, ``:py:meth:`C.m``` (Sphinx's Python roles).
_ROLE = re.compile(
    r":(?:py:)?(?P<role>func|meth|class|mod|data|attr|exc|obj|const):`(?P<target>[^`]+)`"
)
_CALLABLE = {"func", "meth"}
_TITLED = re.compile(r"(?P<title>[^<]+)<(?P<target>[^>]+)>")
_DOCTEST_FLAG = re.compile(r"\s*# doctest: [^\n]*$")
_ROOTS = ("accelerators", "flytekitplugins", "accelerators_provider")


class ReSTDocstrings(griffe.Extension):
    """Rewrite reST-isms in every docstring of a loaded package (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        for obj in _walk(pkg):
            if isinstance(obj, griffe.Module):
                _export_lazy_names(obj)
                _document_made_functions(obj)
            if obj.docstring is not None:
                obj.docstring.value = to_markdown(obj.docstring.value, obj)


def _walk(obj: griffe.Object) -> list[griffe.Object]:
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias and isinstance(member, griffe.Object):
            found.extend(_walk(member))
    return found


def _export_lazy_names(module: griffe.Module) -> None:
    """A lazy module's runtime ``__all__`` as its exports, where griffe found no static one."""
    if module.exports is not None:
        return
    try:
        runtime = importlib.import_module(module.path)
    except ImportError:  # an optional dependency is missing: render what is static
        return
    if not hasattr(runtime, "__getattr__"):  # not lazy: its public names are what griffe saw
        return
    names = getattr(runtime, "__all__", None)
    if names is None:
        return
    module.exports = [name for name in names if name in module.members]


def _document_made_functions(module: griffe.Module) -> None:
    """Give a module attribute that holds a function made at import (``is_nvidia =
    _every(...)``) the docstring that function carries at runtime, as :func:`help` shows it."""
    made = [
        member
        for member in module.members.values()
        if not member.is_alias and isinstance(member, griffe.Attribute) and member.docstring is None
    ]
    if not made:
        return
    try:
        runtime = importlib.import_module(module.path)
    except ImportError:
        return
    parser = module.docstring.parser if module.docstring is not None else None
    for attribute in made:
        value = getattr(runtime, attribute.name, None)
        if not inspect.isfunction(value) or not value.__doc__:
            continue
        if value.__name__ != attribute.name and value.__name__ in module.members:
            text = f"Another name for :func:`{value.__name__}`."  # an alias: `name = function`
        else:
            text = inspect.cleandoc(value.__doc__)
        attribute.docstring = griffe.Docstring(text, parent=attribute, parser=parser)


def to_markdown(text: str, obj: griffe.Object | None = None) -> str:
    """``text`` (a reST docstring) with its roles, doctests and literal blocks as Markdown."""
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    while at < len(lines):
        line = lines[at]
        indent = line[: len(line) - len(line.lstrip())]
        if line.lstrip().startswith(">>>"):
            block = []
            while at < len(lines) and lines[at].strip():
                line = lines[at][len(indent) :] if lines[at].startswith(indent) else lines[at]
                block.append(_DOCTEST_FLAG.sub("", line))
                at += 1
            out.extend([f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"])
            continue
        if line.rstrip().endswith("::") and not _ROLE_AT_END.search(line):
            literal, after = _literal_block(lines, at + 1, len(indent))
            if literal:
                head = line.rstrip()[:-2].rstrip()
                if head.strip():
                    out.append(
                        _roles(head + (":" if not line.rstrip()[:-2].endswith(" ") else ""), obj)
                    )
                out.extend(["", f"{indent}```text", *(indent + b for b in literal), f"{indent}```"])
                at = after
                continue
        out.append(_roles(line, obj))
        at += 1
    return "\n".join(out)


_ROLE_AT_END = re.compile(r":[a-z]+::$")  # a field ending a line (``:param x::``) is no block


def _literal_block(lines: list[str], start: int, indent: int) -> tuple[list[str], int]:
    """The indented block after a ``::`` paragraph (dedented) and the index after it."""
    at = start
    while at < len(lines) and not lines[at].strip():
        at += 1
    body: list[str] = []
    while at < len(lines):
        line = lines[at]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
        at += 1
    while body and not body[-1].strip():
        body.pop()
        at -= 1
    if not body:
        return [], start
    cut = min(len(b) - len(b.lstrip()) for b in body if b.strip())
    return [b[cut:] for b in body], at


def _roles(line: str, obj: griffe.Object | None) -> str:
    return _ROLE.sub(lambda match: _role(match, obj), line)


def _role(match: re.Match[str], obj: griffe.Object | None) -> str:
    target = match["target"].strip()
    titled = _TITLED.fullmatch(target)  # :meth:`the title <the.target>`
    if titled:
        shown, target = titled["title"].strip(), titled["target"].strip()
    short = target.startswith("~")
    target = target.lstrip("~.").removesuffix("()")
    if not titled:
        shown = target.rsplit(".", 1)[-1] if short else target
        if match["role"] in _CALLABLE:
            shown += "()"
    code = f"<code>{html.escape(shown)}</code>"
    identifier = _identifier(target, obj)
    if identifier is None:
        return code
    return f'<autoref identifier="{html.escape(identifier)}" optional>{code}</autoref>'


def _identifier(target: str, obj: griffe.Object | None) -> str | None:
    """The full dotted path ``target`` names from ``obj``'s scope, or None."""
    if target.split(".", 1)[0] in _ROOTS:
        return target
    if obj is None:
        return None
    head, _, rest = target.partition(".")
    try:
        resolved = obj.resolve(head)
    except (griffe.NameResolutionError, KeyError, AttributeError):
        return None
    return f"{resolved}.{rest}" if rest else resolved
