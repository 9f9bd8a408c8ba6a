"""Sphinx configuration of tistudio's documentation site (built by scripts/docs.sh).

Sphinx with the PyData theme and MyST-NB, as JupyterLab and ipywidgets build theirs: the pages
are Markdown (the existing docs/*.md are pages as they stand), the tutorials are the notebooks
of notebooks/ (executed at build with `scripts/docs.sh --execute`, the default), and the pass
reference and the API reference are made from the code while the site builds.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

import tistudio  # noqa: E402

project = "tistudio"
author = "the tistudio authors"
copyright = "the tistudio authors"  # noqa: A001 (Sphinx's name)
release = version = tistudio.__version__

extensions = [
    "myst_nb",  # MyST Markdown pages and notebooks (it loads myst_parser itself)
    "sphinx.ext.autodoc",
    "passref",  # docs/_ext/passref.py: the pass reference and the tutorials' copies
    "repo_links",  # docs/_ext/repo_links.py: the included README's links, made right here
]

root_doc = "index"
exclude_patterns = ["_build", "screenshots", "**/.ipynb_checkpoints"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # the existing pages link to each other's sections by their slugs

# Notebooks: not run unless scripts/docs.sh asks (`-D nb_execution_mode=cache`); a cell that
# fails then fails the build, and jupyter-cache keeps results while a notebook is unchanged.
nb_execution_mode = "off"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_in_temp = True  # as the tests run them: whatever a notebook writes goes away
nb_execution_cache_path = str(Path(__file__).resolve().parent / "_build" / ".jupyter_cache")

nitpicky = True  # a reference to a name that does not exist (in a docstring too) is an error
autodoc_default_options = {"members": True, "undoc-members": False}
autodoc_typehints = "none"  # docstrings say what a parameter is; the signatures show the names

html_theme = "pydata_sphinx_theme"
html_title = f"tistudio {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}


def setup(app: object) -> None:
    """Code blocks in languages Pygments does not know, shown with the nearest lexer it has."""
    from pygments.lexers import JavascriptLexer, TextLexer

    app.add_lexer("jsonc", JavascriptLexer)  # JSON with comments (docs/aot-format.md)
    app.add_lexer("mermaid", TextLexer)  # the layer diagram's source (docs/architecture.md)
