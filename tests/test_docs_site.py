"""The docs site: ``mkdocs build --strict`` from ``docs/``, its API reference, and its pages in a
real browser.

The site is built once per module into a temporary folder, exactly as CI builds it (``.ci/run``);
a warning of any kind (a broken link or anchor, a docstring that names a parameter its signature
lacks, a page left out of the navigation) fails the build. The API pages must list every public
name of the modules they render, and headless Chromium must show the home page and an API page
with their titles, their text and no raw markup.
"""

from __future__ import annotations

import html
import importlib
import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api"
#: Text that must never reach a reader: raw mathtext, reST roles, unrendered autorefs.
RAW = ("\\mathdefault", "$\\", ":func:`", ":class:`", ":meth:`", ":mod:`", "<autoref", ":param ")


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(page: str) -> str:
    """The readable text of a page's article (tags dropped, entities decoded)."""
    found = re.search(r"<article[^>]*>(.*?)</article>", page, re.S)
    assert found, "no <article> in the page"
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", found[1])))


def _title(page: str) -> str:
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found, "no <title>"
    return html.unescape(found[1]).strip()


# ---------------------------------------------------------------------------- the extensions
# Fast checks of the site's own code (docs/mkdocs_ext/), without a build.
griffe = pytest.importorskip("griffe")
griffe_rst = _load("griffe_rst", ROOT / "docs" / "mkdocs_ext" / "griffe_rst.py")
hooks = _load("mkdocs_hooks", ROOT / "docs" / "mkdocs_ext" / "hooks.py")


def test_roles_become_code_linked_where_they_resolve() -> None:
    loader = griffe.GriffeLoader(search_paths=[str(ROOT)])
    bench = loader.load("accelerators.bench")
    out = griffe_rst.to_markdown(
        ":func:`gate` and :class:`~accelerators.errors.AcceleratorError`, "
        ":meth:`the parser <accelerators.spec.AcceleratorSpec.parse>`, :mod:`nowhere_at_all`",
        bench,
    )
    assert '<autoref identifier="accelerators.bench.gate" optional><code>gate()</code>' in out
    assert (
        'identifier="accelerators.errors.AcceleratorError" optional><code>AcceleratorError<' in out
    )
    assert (
        'identifier="accelerators.spec.AcceleratorSpec.parse" optional><code>the parser</code>'
        in out
    )
    assert out.endswith("<code>nowhere_at_all</code>")  # unresolved: plain code, no link
    assert ":func:" not in out


def test_doctests_and_literal_blocks_become_fenced_code() -> None:
    text = (
        "Intro::\n\n    a | b\n      c\n\nAfter.\n\n"
        ">>> x = 1  # doctest: +SKIP\n>>> x\n1\n\nEnd ::\n\n    plain\n"
    )
    out = griffe_rst.to_markdown(text)
    assert out.split("\n") == [
        "Intro:",
        "",
        "```text",
        "a | b",
        "  c",
        "```",
        "",
        "After.",
        "",
        "```pycon",
        ">>> x = 1",
        ">>> x",
        "1",
        "```",
        "",
        "End",
        "",
        "```text",
        "plain",
        "```",
        "",
    ]


def test_lazy_packages_export_their_runtime_names() -> None:
    """``accelerators.bench`` computes ``__all__`` at import: the extension gives griffe that
    list, so the API page renders BenchReport and the rest, not just ``gate``."""
    loader = griffe.GriffeLoader(
        search_paths=[str(ROOT)], extensions=griffe.load_extensions(griffe_rst.ReSTDocstrings)
    )
    bench = loader.load("accelerators.bench")
    assert bench.exports is not None
    assert {"gate", "run", "BenchReport", "AcceleratorGateError"} <= set(bench.exports)


def test_links_outside_the_site_point_at_the_repository(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "dags").mkdir()
    (tmp_path / "dags" / "README.md").write_text("x", encoding="utf-8")
    (docs / "make_outputs.py").write_text("x", encoding="utf-8")
    (docs / "grammar.md").write_text("x", encoding="utf-8")
    config = {
        "config_file_path": str(tmp_path / "mkdocs.yml"),
        "docs_dir": str(docs),
        "repo_url": "https://github.com/o/r",
    }
    site = {"grammar.md"}
    files = SimpleNamespace(
        get_file_from_path=lambda path: (
            SimpleNamespace(inclusion=SimpleNamespace(is_excluded=lambda: False))
            if path in site
            else None
        )
    )
    page = SimpleNamespace(file=SimpleNamespace(src_uri="flyte.md"))
    markdown = (
        "[a](grammar.md#counts) [b](../dags/README.md) [c](make_outputs.py) [d](../dags/) "
        "[e](missing.md) [f](https://x.org/y) [g](#here)\n"
        "```text\n[h](../dags/README.md)\n```\n"
    )
    out = hooks.on_page_markdown(markdown, page=page, config=config, files=files)
    assert out == (
        "[a](grammar.md#counts) [b](https://github.com/o/r/blob/main/dags/README.md) "
        "[c](https://github.com/o/r/blob/main/docs/make_outputs.py) "
        "[d](https://github.com/o/r/tree/main/dags) "
        "[e](missing.md) [f](https://x.org/y) [g](#here)\n"
        "```text\n[h](../dags/README.md)\n```\n"
    )


# ---------------------------------------------------------------------------- the built site
@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly as CI builds it, into a temporary folder."""
    pytest.importorskip("mkdocs")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    elapsed = time.perf_counter() - start
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed ({elapsed:.1f} s):\n{log}"
    assert "WARNING" not in log, log
    return out


@pytest.mark.slow
def test_every_page_is_built(site: Path) -> None:
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")} - {"index"}
    missing = [name for name in sorted(pages) if not (site / name / "index.html").is_file()]
    assert not missing, missing
    api = [p.stem for p in API.glob("*.md") if p.stem != "index"]
    assert len(api) >= 10
    assert all((site / "api" / name / "index.html").is_file() for name in api)
    assert (site / "index.html").is_file()
    # The scripts beside the pages and the site's own code are not published.
    assert not list(site.rglob("*.py"))


def _rendered_modules() -> list[tuple[str, str]]:
    """(API page, module) for every ``::: module`` the API pages render with its members."""
    found = []
    for page in sorted(API.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for module in re.findall(r"^::: (\S+)\n(?!    options:\n      members: false)", text, re.M):
            found.append((page.stem, module))
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("page", "module"), _rendered_modules())
def test_the_api_reference_lists_every_public_name(site: Path, page: str, module: str) -> None:
    """Each name in the module's ``__all__`` has its entry (its anchor) on the page."""
    pytest.importorskip(module.split(".")[0])
    names = list(getattr(importlib.import_module(module), "__all__", ()))
    if module == "accelerators.constants":  # the catalog constants are data, not API entries
        names = [n for n in names if not (n.isupper() or (n[:1].isupper() and "_" in n))]
    assert names, f"{module} has no __all__"
    built = (site / "api" / page / "index.html").read_text(encoding="utf-8")
    missing = [n for n in names if f'id="{module}.{n}"' not in built]
    assert not missing, f"api/{page}: no entry for {missing}"


@pytest.mark.slow
def test_no_page_shows_raw_markup(site: Path) -> None:
    shown = []
    for page in sorted(site.rglob("index.html")):
        text = _text(page.read_text(encoding="utf-8"))
        shown.extend(f"{page.relative_to(site)}: {raw}" for raw in RAW if raw in text)
    assert not shown, shown


# ---------------------------------------------------------------------------- in Chromium
PIL_Image = pytest.importorskip("PIL.Image")


def _shows(shot: Path) -> tuple[float, int, int]:
    """(share of inked pixels, distinct colours, pixels of the theme's indigo header)."""
    image = PIL_Image.open(shot).convert("RGB")
    data = image.tobytes()
    pixels = list(zip(data[0::3], data[1::3], data[2::3], strict=True))
    ink = sum(1 for p in pixels if sum(p) < 600) / len(pixels)
    header = pixels[: image.size[0] * 40]
    indigo = sum(1 for r, g, b in header if abs(r - 64) + abs(g - 81) + abs(b - 181) < 40)
    return ink, len(set(pixels)), indigo


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "title", "expected"),
    [
        ("index.html", "accelerators", ["AcceleratorSpec", "Benchmark gate", "API reference"]),
        (
            "api/bench/index.html",
            "accelerators.bench - accelerators",
            ["BenchReport", "AcceleratorGateError", "gate", "Parameters"],
        ),
    ],
)
def test_chromium_shows_the_page(
    site: Path, chromium, tmp_path: Path, path: str, title: str, expected: list[str]
) -> None:
    url = (site / path).as_uri()
    dom = chromium.dom(url)
    assert _title(dom) == title
    text = _text(dom)
    missing = [word for word in expected if word not in text]
    assert not missing, f"{path} does not show {missing}"
    raw = [r for r in RAW if r in text]
    assert not raw, f"{path} shows raw markup {raw}"
    ink, colours, indigo = _shows(chromium.screenshot(url, tmp_path / "shot.png"))
    assert ink > 0.02, f"{path} looks blank: {ink:.2%} of pixels are not near-white"
    assert colours > 50, f"only {colours} colours: the page's styles did not load"
    assert indigo > 10_000, "no indigo header: the theme's stylesheet did not load"


@pytest.mark.slow
def test_a_page_without_its_styles_fails_the_checks(site: Path, chromium, tmp_path: Path) -> None:
    """The screenshot checks can fail: the home page with its stylesheets cut off has no header."""
    page = (site / "index.html").read_text(encoding="utf-8")
    bare = tmp_path / "index.html"
    bare.write_text(re.sub(r'<link rel="stylesheet"[^>]*>', "", page), encoding="utf-8")
    _ink, _colours, indigo = _shows(chromium.screenshot(bare.as_uri(), tmp_path / "bare.png"))
    assert indigo < 1_000
