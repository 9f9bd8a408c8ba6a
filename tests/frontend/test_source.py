"""Reading a kernel's source: the indentation scan of `parse_function` must find exactly what
`inspect.getsourcelines` finds, or hand over to it; line numbers must stay the user's."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
import textwrap
from pathlib import Path

import pytest

from tistudio.frontend import source
from tistudio.frontend.source import parse_function

CASES = '''
import tistudio as ti


@ti.kernel
def plain() -> ti.i32:
    return 1


@ti.kernel
def with_column_zero_comment() -> ti.i32:
    x = 1
# a comment at column 0 inside the body
    x += 2

    return x  # after a blank line


@ti.kernel
def with_column_zero_string() -> ti.i32:
    s = """
text at column 0
"""
    return 4


@ti.kernel
def with_bracket_at_column_zero() -> ti.i32:
    return max(1,
2)


def outer():
    @ti.kernel
    def nested(a: ti.i32) -> ti.i32:
        return a + 1

    return nested


def _decorate(fn):
    return fn


def _decorate_with(*_):
    return _decorate


@_decorate_with(
    1,
)
@ti.kernel
def multi_line_decorator() -> ti.i32:
    return 5


@_decorate
@ti.kernel
def two_decorators() -> ti.i32:
    return 6
# the last line of the file is a comment'''


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201 — the imported module
    path = Path(tmp_path_factory.mktemp("src")) / "kernels_for_source.py"
    path.write_text(textwrap.dedent(CASES).lstrip("\n"))
    spec = importlib.util.spec_from_file_location("kernels_for_source", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    yield mod
    del sys.modules[spec.name]


NAMES = [
    "plain",
    "with_column_zero_comment",
    "with_column_zero_string",
    "with_bracket_at_column_zero",
    "nested",
    "multi_line_decorator",
    "two_decorators",
]


@pytest.mark.parametrize("name", NAMES)
def test_the_same_function_and_lines_as_inspect(module, name: str) -> None:  # noqa: ANN001
    kernel = module.outer() if name == "nested" else getattr(module, name)
    fn = kernel.fn
    parsed = parse_function(fn)
    lines, first = inspect.getsourcelines(fn)
    want = ast.parse(textwrap.dedent("".join(lines))).body[0]
    assert ast.dump(parsed.node) == ast.dump(want)
    assert parsed.line_offset == first - 1
    def_line = parsed.node.lineno + parsed.line_offset  # the file's line of `def`
    assert parsed.source_line(def_line).lstrip().startswith(f"def {fn.__name__}(")
    last = parsed.node.body[-1]
    assert parsed.source_line(last.lineno + parsed.line_offset).strip().startswith("return")


@pytest.mark.parametrize(
    ("name", "scanned"),
    [
        ("plain", True),
        ("with_column_zero_comment", True),
        ("nested", True),
        ("two_decorators", True),
        ("multi_line_decorator", True),
        ("with_column_zero_string", False),  # cut inside the string: inspect reads it
        ("with_bracket_at_column_zero", False),
    ],
)
def test_the_scan_reads_what_it_can_and_hands_over_the_rest(module, name, scanned) -> None:  # noqa: ANN001
    kernel = module.outer() if name == "nested" else getattr(module, name)
    assert (source._indented_block(kernel.fn) is not None) is scanned
