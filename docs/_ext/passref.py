"""Sphinx extension: pages made at build time from the code itself (docs/_generated/).

The pass reference is a compiler course's handout that cannot drift from the compiler: one page
per pass that `tistudio/passes/pipeline.py` runs, with the pass module's docstring and the IR
before and after it, taken from a small real kernel (`pass_examples.py`) compiled with
`kernel.compile_report` while the site builds. The tutorials are copied from `notebooks/`
(kept once, in the repository) so that MyST-NB can render them inside the source folder, and
the studio's pictures (docs/screenshots/, taken by the browser tests) make a gallery page.
Everything written here lands in `docs/_generated/`, which ignores itself in git.
"""

from __future__ import annotations

import difflib
import inspect
import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pass_examples
from sphinx.util import logging

from tistudio.ir.lineage import OPERAND, statements_of
from tistudio.passes import pipeline
from tistudio.passes.simplify import SIMPLIFY_PASSES

DOCS = Path(__file__).resolve().parent.parent
GENERATED = DOCS / "_generated"
NOTEBOOKS = DOCS.parent / "notebooks"
logger = logging.getLogger(__name__)


def pipeline_passes() -> dict[str, ModuleType]:
    """Every pass module the pipeline names (imported there or in its tables), by short name."""
    modules = [
        value
        for value in vars(pipeline).values()
        if isinstance(value, ModuleType)
        and value.__name__.startswith("tistudio.passes.")
        and callable(getattr(value, "run", None))
    ]
    modules += SIMPLIFY_PASSES
    return {module.__name__.rsplit(".", 1)[-1]: module for module in modules}


def pass_of(record_name: str) -> str:
    """`cse (simplify I)` -> `cse`; `demote_atomics II` -> `demote_atomics`."""
    name = record_name.split(" (", 1)[0]
    return name.removesuffix(" II")


def where_it_runs(module: ModuleType) -> str:
    if module in SIMPLIFY_PASSES:
        return "in every *simplify* group, round after round until nothing changes"
    for table, what in ((pipeline.LOWERING_PASSES, "lowering"), (pipeline.BACKEND_PASSES, "last")):
        arches = [arch.upper() for arch, passes in table.items() if module in passes]
        if arches:
            return f"on the {' and '.join(arches)} only, among the back end's {what} passes"
    return "on every back end (some only when the kernel needs them: see the docstring)"


# In the pipeline's source: a pass run, a simplify group, a table of passes, a helper's call
STEP = re.compile(
    r"runner\.run\((\w+)|runner\.(simplify)\(|(LOWERING_PASSES|BACKEND_PASSES)"
    r"|(?<!def )\b(_\w+)\(runner"
)


def pipeline_order(function: Any = pipeline.compile_to_final_ir) -> list[str]:
    """The passes in the order `compile_to_final_ir`'s source names them (helpers followed)."""
    order: list[str] = []
    for run, simplify, table, helper in STEP.findall(inspect.getsource(function)):
        if run:  # `runner.run(module)` in a loop over a table: the table names them
            found = getattr(pipeline, run, None)
            modules = [found] if isinstance(found, ModuleType) else []
        elif simplify:
            modules = list(SIMPLIFY_PASSES)
        elif table:
            modules = [m for passes in getattr(pipeline, table).values() for m in passes]
        else:
            order += [
                name for name in pipeline_order(getattr(pipeline, helper)) if name not in order
            ]
            continue
        order += [name for m in modules if (name := m.__name__.rsplit(".", 1)[-1]) not in order]
    return order


def collect_examples(passes: dict[str, ModuleType]) -> dict[str, dict[str, Any]]:
    """For each pass, the first example in which it changed the IR."""
    found: dict[str, dict[str, Any]] = {}
    for example in pass_examples.EXAMPLES:
        kernel, args = example()
        records = kernel.compile_report(*args).passes
        for index, record in enumerate(records):
            name = pass_of(record.name)
            if name in passes and record.changed and name not in found and index > 0:
                found[name] = {"example": example, "before": records[index - 1], "after": record}
    return found


def stable_text(record: Any) -> str:
    """The record's IR with each statement named by its stable id (`ir/lineage.py`) instead of
    its print number, which changes whenever a statement before it comes or goes: so that the
    diff shows what the pass did, not the renumbering."""
    numbers = statements_of(record).numbers  # print number -> stable id
    return OPERAND.sub(lambda m: f"${numbers.get(int(m[1]), m[1])}", record.ir_text)


def diff_text(before: Any, after: Any) -> str:
    lines = difflib.unified_diff(
        stable_text(before).splitlines(),
        stable_text(after).splitlines(),
        "before",
        "after",
        n=2,
        lineterm="",
    )
    return "\n".join(lines)


def pass_page(name: str, module: ModuleType, seen: dict[str, Any] | None) -> str:
    doc = inspect.cleandoc(module.__doc__ or "(no docstring)")
    source = f"tistudio/passes/{name}.py"
    parts = [
        f"(pass-{name})=\n# `{name}`\n",
        f"Source: `{source}`. Runs {where_it_runs(module)}.\n",
        "## What it does (the module's docstring)\n",
        doc + "\n",
    ]
    if seen is None:  # generate_passes has warned (an error with -W)
        return "\n".join(parts)
    example, before, after = seen["example"], seen["before"], seen["after"]
    parts += [
        "## Example\n",
        inspect.cleandoc(example.__doc__ or "")
        + " The kernel, compiled while this page was built:\n",
        "```python\n" + inspect.getsource(example).rstrip() + "\n```\n",
        f"The IR after `{before.name}` ({before.stmt_count} statements) and after "
        f"`{after.name}` ({after.stmt_count} statements), as a diff. A statement keeps its name"
        " `$n` through the passes (its id in `ir/lineage.py`, as the pass explorer's lineage"
        " uses), so only what the pass created, rewrote or deleted shows:\n",
        "```diff\n" + diff_text(before, after) + "\n```\n",
        "<details><summary>The whole IR after this pass</summary>\n",
        "```text\n" + stable_text(after).rstrip() + "\n```\n\n</details>\n",
    ]
    return "\n".join(parts)


def index_page(order: list[str], passes: dict[str, ModuleType]) -> str:
    lines = [
        "# Pass reference\n",
        "Every pass that `tistudio/passes/pipeline.py` runs, in the order the pipeline runs them.",
        "Each page is made while the site builds: the pass module's docstring, then a small",
        "kernel compiled with `kernel.compile_report(...)` and the IR before and after the pass.",
        "The IR's words are those of Taichi's `print_ir`; `docs/compiler-contract.md` says what",
        "each stage hands to the next.\n",
        "| pass | what it does |",
        "|---|---|",
    ]
    for name in order:
        first = inspect.cleandoc(passes[name].__doc__ or "").split("\n\n", 1)[0]
        lines.append(f"| [`{name}`](pass-{name}) | {' '.join(first.split())} |")
    lines += ["", "```{toctree}", ":hidden:", "", *order, "```", ""]
    return "\n".join(lines)


def write_if_changed(path: Path, text: str) -> None:
    """Leave an unchanged page's time alone, so that Sphinx does not read it again."""
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def generate_passes() -> list[str]:
    passes = pipeline_passes()
    found = collect_examples(passes)
    order = pipeline_order()
    order += sorted(set(passes) - set(order))  # none today: the pipeline's source names them all
    folder = GENERATED / "passes"
    for name in order:
        if name not in found:
            logger.warning(
                "pass %s changed the IR of no kernel in docs/_ext/pass_examples.py: "
                "add one that it acts on",
                name,
            )
        write_if_changed(folder / f"{name}.md", pass_page(name, passes[name], found.get(name)))
    write_if_changed(folder / "index.md", index_page(order, passes))
    for stale in set(folder.glob("*.md")) - {folder / f"{n}.md" for n in (*order, "index")}:
        stale.unlink()
    return order


def copy_tutorials() -> None:
    folder = GENERATED / "tutorials"
    folder.mkdir(parents=True, exist_ok=True)
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        target = folder / notebook.name
        if not target.exists() or target.read_bytes() != notebook.read_bytes():
            shutil.copyfile(notebook, target)


def screenshot_gallery() -> None:
    """Every picture the browser tests took (docs/screenshots/), as they are now."""
    lines = [
        "# All the studio's pictures\n",
        "Taken by the browser tests in a real JupyterLab (the README says how to refresh them).\n",
    ]
    for picture in sorted((DOCS / "screenshots").glob("*.png")):
        lines += [
            f"## {picture.stem.replace('_', ' ')}\n",
            f"![{picture.stem}](../screenshots/{picture.name})\n",
        ]
    write_if_changed(GENERATED / "screenshots.md", "\n".join(lines))


def generate(app: Any) -> None:
    GENERATED.mkdir(exist_ok=True)
    write_if_changed(GENERATED / ".gitignore", "# made by docs/_ext/passref.py at build time\n*\n")
    copy_tutorials()
    screenshot_gallery()
    generate_passes()


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
