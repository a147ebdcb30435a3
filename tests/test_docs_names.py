"""Every public name the docs show exists: the docs cannot name an API that is gone.

The pages are the README, CONTRIBUTING.md, docs/*.md and the READMEs of plugins/, dags/ and
benchmarks/. A name is shown by

* ``from accelerators… import X`` (or ``flytekitplugins.accelerators``, ``accelerators_provider``)
  in a code block, and ``accelerators.X`` in a code block;
* a dotted name in inline code anywhere: `` `accelerators.kubernetes.apply_to_pod` ``.

Each is imported (the longest module prefix) and its attributes read, in this process: the
plugins' packages are installed with the test environment.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(
    {
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *(ROOT / "docs").glob("*.md"),
        *ROOT.glob("plugins/*/README.md"),
        *ROOT.glob("dags/README.md"),
        *ROOT.glob("benchmarks/README.md"),
    }
)
_PACKAGES = r"(?:accelerators|flytekitplugins\.accelerators|accelerators_provider)"
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_IMPORT = re.compile(
    rf"^[ \t]*(?:>>> |\.\.\. )?from\s+({_PACKAGES}(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]+)",
    re.M,
)
_DOTTED = re.compile(rf"(?<![\w./-])({_PACKAGES}(?:\.[A-Za-z_]\w*)+)(?![\w/-])")
_INLINE = re.compile(r"`([^`\n]+)`")
#: Names a page shows on purpose as wrong (a did-you-mean example); each must stay missing.
WRONG_ON_PURPOSE = {"accelerators.H10O"}


def _names(text: str) -> set[str]:
    """The dotted public names ``text`` (one page) shows."""
    names: set[str] = set()
    for block in _FENCE.findall(text):
        for module, imported in _IMPORT.findall(block):
            for item in re.split(r"[,()\s]+", imported.split("#")[0]):
                if item and item != "as" and not item.endswith("\\"):
                    names.add(f"{module}.{item}")
        names.update(_DOTTED.findall(block))
    for span in _INLINE.findall(_FENCE.sub("", text)):
        names.update(_DOTTED.findall(span))
    # `from x import a as b`: drop the aliases the split above kept as names
    return {n for n in names if not _is_alias(n, text)}


def _is_alias(name: str, text: str) -> bool:
    return re.search(rf"\bas\s+{re.escape(name.rsplit('.', 1)[1])}\b", text) is not None


def _resolve(name: str) -> object:
    """Import the longest module prefix of ``name`` and read the rest as attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ModuleNotFoundError(name)


SHOWN = {page.relative_to(ROOT).as_posix(): _names(page.read_text("utf-8")) for page in PAGES}


def test_the_docs_show_names_of_every_part() -> None:
    everything = set().union(*SHOWN.values())
    for package in ("accelerators.kubernetes.", "accelerators.bench.", "accelerators.sizing."):
        assert any(n.startswith(package) for n in everything), package
    assert any(n.startswith("flytekitplugins.accelerators.") for n in everything)
    assert any(n.startswith("accelerators_provider.") for n in everything)
    assert len(everything) > 50, sorted(everything)


@pytest.mark.parametrize("page", sorted(SHOWN))
def test_every_name_a_page_shows_exists(page: str) -> None:
    missing = []
    for name in sorted(SHOWN[page] - WRONG_ON_PURPOSE):
        try:
            _resolve(name)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not missing, f"{page} shows names that do not exist:\n" + "\n".join(missing)


def test_the_wrong_names_shown_on_purpose_stay_wrong() -> None:
    shown = set().union(*SHOWN.values())
    for name in WRONG_ON_PURPOSE:
        assert name in shown, f"{name} is no longer shown: drop it from WRONG_ON_PURPOSE"
        with pytest.raises(AttributeError):
            _resolve(name)


def test_a_name_that_is_gone_is_reported() -> None:
    text = "```python\nfrom accelerators.kubernetes import merge_fragment, apply_to_pods\n```\n"
    names = _names(text)
    assert names == {
        "accelerators.kubernetes",
        "accelerators.kubernetes.merge_fragment",
        "accelerators.kubernetes.apply_to_pods",
    }
    with pytest.raises(AttributeError):
        _resolve("accelerators.kubernetes.apply_to_pods")
    assert _resolve("accelerators.kubernetes.merge_fragment") is not None
