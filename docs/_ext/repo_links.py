"""Sphinx extension: the README's and CHANGELOG's links, made right for the pages including them.

The site includes sections of README.md rather than copying them (so that they cannot drift),
but the README's links are relative to the repository's root: `docs/compiler-contract.md`,
`docs/screenshots/panel.png`, `CHANGELOG.md`, `benchmarks/...`. When a page under docs/
includes that text, this rewrites each such link: into docs/ it becomes a link within the
site, CHANGELOG.md the changelog page, and any other file of the repository a link to it on
GitHub (the site does not hold the source).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

REPOSITORY = "https://github.com/tistudio/tistudio/blob/HEAD/"
ROOT_FILES = ("README.md", "CHANGELOG.md")
LINK = re.compile(r"(\]\()([^)\s]+)(\))")
ALIASES = {"CHANGELOG.md": "changelog.md", "README.md": "index.md"}


def rewrite(target: str) -> str:
    """A link target written relative to the repository's root, as seen from docs/."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
        return target  # a URL, an anchor, or already absolute
    path, _, anchor = target.partition("#")
    if path in ALIASES:
        path = ALIASES[path]
    elif path.startswith("docs/"):
        path = path.removeprefix("docs/")
    else:
        return REPOSITORY + target
    return f"{path}#{anchor}" if anchor else path


def rewrite_links(app: Any, relative_path: Path, parent_docname: str, content: list[str]) -> None:
    if Path(relative_path).name in ROOT_FILES and Path(relative_path).parent == Path(".."):
        content[0] = LINK.sub(lambda m: m[1] + rewrite(m[2]) + m[3], content[0])


def setup(app: Any) -> dict[str, Any]:
    app.connect("include-read", rewrite_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
