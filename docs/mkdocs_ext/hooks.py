"""mkdocs hooks of the docs site (``hooks:`` in ``mkdocs.yml``).

The pages in ``docs/`` are read in two places: on GitHub, where a relative link to
``../dags/README.md`` or ``make_outputs.py`` opens that file, and on the site, which carries
only the pages and their images. Here every relative link whose target is not part of the site
(outside ``docs/``, or a file the site excludes, such as the scripts beside the pages) becomes
a link to that file in the repository (``repo_url``), so that the same Markdown works in both
and ``mkdocs build --strict`` still fails on a link to a file that does not exist anywhere.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

#: ``[text](target "title")`` and ``![alt](target)``; the target without spaces.
_LINK = re.compile(r"(?P<head>!?\[[^\]\n]*\])\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#|/)", re.I)


def on_page_markdown(markdown: str, /, *, page: Any, config: Any, files: Any) -> str:
    """Point the page's links to files outside the site at the repository (see above)."""
    root = Path(config["config_file_path"]).resolve().parent
    docs = Path(config["docs_dir"]).resolve()
    repo = str(config["repo_url"]).rstrip("/")
    page_dir = posixpath.dirname(page.file.src_uri)

    def rewrite(match: re.Match[str]) -> str:
        target = match["target"]
        if _REMOTE.match(target):
            return match[0]
        path, _, anchor = target.partition("#")
        in_docs = posixpath.normpath(posixpath.join(page_dir, path))
        site_file = files.get_file_from_path(in_docs)
        if site_file is not None and not site_file.inclusion.is_excluded():
            return match[0]
        on_disk = (docs / in_docs).resolve()
        if not on_disk.exists() or not on_disk.is_relative_to(root):
            return match[0]  # mkdocs reports it: a link to nothing stays broken
        where = on_disk.relative_to(root).as_posix()
        kind = "tree" if on_disk.is_dir() else ("raw" if match["head"].startswith("!") else "blob")
        url = f"{repo}/{kind}/main/{where}" + (f"#{anchor}" if anchor else "")
        return f"{match['head']}({url}{match['title'] or ''})"

    parts: list[str] = []
    last = 0
    for fence in _FENCE.finditer(markdown):
        parts.append(_LINK.sub(rewrite, markdown[last : fence.start()]))
        parts.append(fence[0])
        last = fence.end()
    parts.append(_LINK.sub(rewrite, markdown[last:]))
    return "".join(parts)
