"""The documentation site builds with every warning an error (issue #33).

`scripts/docs.sh --no-execute` (the site without running the tutorials) must exit 0 under `-W`
with `nitpicky`, so that a docstring naming a function that does not exist, a page linking to a
missing one, or a pass without an example fails CI. The pass reference is made by
`docs/_ext/passref.py` while the site builds: each pass of the pipeline gets a page with its
docstring and the IR diff from a real kernel. A copy of the sources with a broken reference
shows that the build does fail.
"""

from __future__ import annotations

import html
import importlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_nb")
pytest.importorskip("pydata_sphinx_theme")

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "docs.sh"


def build(root: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(root / "scripts" / "docs.sh"), "--no-execute", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def text_of(page: Path) -> str:
    """A built page's text, tags removed (what a reader sees)."""
    text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
    return text.translate(str.maketrans("\u2019\u2018\u201c\u201d", "''\"\""))  # smartquotes


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "html"
    result = build(ROOT, out)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    assert "build succeeded" in result.stdout + result.stderr
    return out


def pipeline_pass_names() -> list[str]:
    """Independently of the generator: the pass modules pipeline.py imports, and simplify's."""
    from tistudio.passes.simplify import SIMPLIFY_PASSES

    source = (ROOT / "tistudio" / "passes" / "pipeline.py").read_text()
    block = re.search(r"from tistudio\.passes import \(([^)]*)\)", source)
    assert block is not None
    names = [name.strip() for name in block[1].split(",") if name.strip()]
    return names + [m.__name__.rsplit(".", 1)[-1] for m in SIMPLIFY_PASSES]


def test_every_pass_has_a_page_with_its_docstring_and_an_ir_diff(site: Path) -> None:
    names = pipeline_pass_names()
    assert len(names) >= 20, names
    for name in names:
        page = site / "_generated" / "passes" / f"{name}.html"
        assert page.exists(), name
        text = " ".join(text_of(page).split())
        doc = importlib.import_module(f"tistudio.passes.{name}").__doc__
        first_line = " ".join(doc.strip().splitlines()[0].replace("`", "").split())  # as code
        assert first_line in text, (name, first_line)
        assert "def " in text and "ti.init(" in text, name  # the kernel it came from
        markup = page.read_text()
        diff = re.search(r'class="highlight-diff.*?</pre>', markup, re.S)  # IR before -> after
        assert diff is not None, name
        assert "--- before" in html.unescape(diff[0]), name
        assert 'class="gi"' in diff[0] or 'class="gd"' in diff[0], name  # lines it changed
    index = text_of(site / "_generated" / "passes" / "index.html")
    assert index.index("lower_ast") < index.index("offload") < index.index("lower_access")


def test_pages_include_the_repository_documents_and_the_api(site: Path) -> None:
    for page in ("architecture", "compiler-contract", "aot-format", "sparse-design", "changelog"):
        assert (site / f"{page}.html").exists(), page
    start = text_of(site / "getting-started.html")
    readme = (ROOT / "README.md").read_text()
    command = next(ln for ln in readme.splitlines() if ln.startswith("pip install -e"))
    assert command.split("#")[0].strip() in start  # included from the README, not copied
    api = text_of(site / "api.html")
    for name in ("compile_report", "tistudio.studio", "tistudio.aot", "tistudio.init"):
        assert name in api, name
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert (site / "_generated" / "tutorials" / f"{notebook.stem}.html").exists()
    for picture in sorted((ROOT / "docs" / "screenshots").glob("*.png")):  # the studio's gallery
        assert (site / "_images" / picture.name).exists(), picture.name
    for name in ("Vector", "Module", "Tape"):  # ti.Vector, ti.aot.Module, ti.ad.Tape
        assert name in api, name


def copy_sources(target: Path) -> Path:
    """The files the site is built from, in a fresh folder that can be broken on purpose."""
    ignore = shutil.ignore_patterns("_build", "_generated", "__pycache__")
    shutil.copytree(ROOT / "docs", target / "docs", ignore=ignore)
    shutil.copytree(ROOT / "notebooks", target / "notebooks", ignore=ignore)
    (target / "scripts").mkdir()
    shutil.copy(SCRIPT, target / "scripts" / "docs.sh")
    for name in ("README.md", "CHANGELOG.md"):
        shutil.copy(ROOT / name, target / name)
    (target / "tistudio").symlink_to(ROOT / "tistudio")  # docs.sh puts the copy's root first
    return target


def test_a_broken_docstring_reference_fails_the_build(tmp_path: Path) -> None:
    root = copy_sources(tmp_path / "repo")
    # a module whose docstring names a function that does not exist (docs/_ext is on the path)
    (root / "docs" / "_ext" / "broken_doc.py").write_text(
        '"""Calls :func:`tistudio.no_such_function` for you."""\n'
    )
    api = root / "docs" / "api.md"
    api.write_text(api.read_text() + "\n```{eval-rst}\n.. automodule:: broken_doc\n```\n")
    result = build(root, tmp_path / "html")
    assert result.returncode != 0
    warnings = [line for line in result.stderr.splitlines() if "WARNING" in line]
    assert warnings, result.stderr[-3000:]
    assert all("tistudio.no_such_function" in line for line in warnings), warnings
