"""Every `text/html` the studio builds in Python, fed hostile names: no markup comes through.

A saved notebook keeps each output's `text/html` fallback, and whoever opens it later renders that
HTML (issue #34, item 3). Field names, kernel names, the `repr` of template arguments, paths and
error messages are text from code we do not control, so each output is rendered twice, once with
plain names and once with hostile ones, and read back with `html.parser`: the hostile rendering
must have exactly the elements and attribute names of the plain one (no `img`, `script` or `on*`
smuggled in), and the hostile strings must read back as text, character for character.
"""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import tistudio as ti
from tistudio.studio.cache_view import CacheView
from tistudio.studio.export import ExportPanel
from tistudio.studio.field_view import view
from tistudio.studio.markup import element, escape
from tistudio.studio.panel import Panel
from tistudio.studio.passes_view import PassExplorer

IMG = 'x"><img src=x onerror=alert(document.domain)>'
SCRIPT = "</td></summary><script>alert(1)</script>"
QUOTES = "' onmouseover='alert(2)' &amp; &"


@dataclasses.dataclass(frozen=True)
class Names:
    kernel: str
    field: str
    arg: str  # the repr of an object passed as a template argument
    path: str  # a folder name in the export's path
    unknown: str  # a kernel name the export does not know


PLAIN = Names("kern", "fld", "obj", "folder", "nope")
HOSTILE = Names(IMG, IMG + QUOTES, SCRIPT + QUOTES, IMG, SCRIPT)


class Reprs:
    """A template argument whose `repr` is chosen by the test."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class Reader(HTMLParser):
    """The elements with their attribute names, the attribute values and the text of a page."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.shape: list[tuple] = []
        self.values: list[str] = []
        self.text = ""
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.shape.append(("<", tag, tuple(name for name, _ in attrs)))
        self.values += [value for _, value in attrs if value is not None]

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.shape.append((">", tag))

    def handle_data(self, data: str) -> None:
        self.text += data


def render_all(names: Names, tmp_path: Path) -> dict[str, str]:
    """Each HTML-making output of the studio, with `names` in every place a name can go."""
    x = ti.field(ti.f32, shape=(6, 4), name=names.field)

    def fill(f: ti.template(), t: ti.template()):
        for i, j in f:
            f[i, j] = i + j

    fill.__name__ = fill.__qualname__ = names.kernel
    kernel = ti.kernel(fill)
    kernel(x, Reprs(names.arg))
    entry = kernel.instances()[0]

    explorer = PassExplorer()
    explorer.add(kernel, entry)

    def plain():  # what the export writes: hostile names may be refused by the AOT builder
        pass

    export = ExportPanel({names.kernel: kernel, "plain": ti.kernel(plain)}, {names.field: x})
    export.export([names.unknown], [], "cpu", str(tmp_path / "m.tcm"))
    unknown = export.static_html()
    export.export([names.kernel], [], "cpu", str(tmp_path / f"{names.path}.zip"))
    suffix = export.static_html()
    export.export(["plain"], [], "cpu", str(tmp_path / names.path / "m.tcm"))
    assert export.status == "done", export.message

    panel = Panel({names.field: x}, show=("passes", "cache", "fields", "export"))
    panel.add_kernel(kernel)
    panel.finish()
    outputs = {
        "field view": view(x)._repr_mimebundle_()[0]["text/html"],
        "array view": view(np.ones((3, 3), np.float32), title=names.arg).static_html(),
        "pass explorer": explorer.static_html(),
        "cache view": CacheView([kernel]).static_html(),
        "export, unknown name": unknown,
        "export, bad suffix": suffix,
        "export, done": export.static_html(),
        "panel": panel._repr_mimebundle_()["text/html"],
    }
    panel.close()
    return outputs


# what each output must show as text (the rest of `Names` need not appear in it)
SHOWN = {
    "field view": ("field",),
    "array view": ("arg",),
    "pass explorer": ("kernel", "field", "arg"),
    "cache view": ("kernel", "field", "arg"),
    "export, unknown name": ("unknown",),
    "export, bad suffix": ("path",),
    "export, done": ("path",),
    "panel": ("kernel", "field", "arg"),
}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[Names, dict[str, str]]:
    ti.init(arch=ti.cpu, record_passes=True)
    try:
        return {
            names: render_all(names, tmp_path_factory.mktemp("export"))
            for names in (PLAIN, HOSTILE)
        }
    finally:
        ti.reset()


def test_every_output_is_rendered(rendered):
    assert set(rendered[HOSTILE]) == set(SHOWN)


@pytest.mark.parametrize("output", sorted(SHOWN))
def test_hostile_names_bring_no_elements_or_attributes(rendered, output):
    plain, hostile = Reader(rendered[PLAIN][output]), Reader(rendered[HOSTILE][output])
    assert plain.shape, "the plain rendering made no elements"
    assert hostile.shape == plain.shape
    attributes = {name for item in hostile.shape if item[0] == "<" for name in item[2]}
    assert not {name for name in attributes if name.startswith("on")}


@pytest.mark.parametrize("output", sorted(SHOWN))
def test_hostile_names_read_back_as_text(rendered, output):
    markup = rendered[HOSTILE][output]
    page = Reader(markup)
    for part in SHOWN[output]:
        text = getattr(HOSTILE, part)
        assert text in page.text, f"{part} {text!r} is not in the text of {output}"
        assert text not in markup, f"{part} {text!r} went into {output} unescaped"


def test_a_field_name_in_an_attribute_stays_inside_it(rendered):
    page = Reader(rendered[HOSTILE]["field view"])
    assert HOSTILE.field in page.values  # the picture's alt text, whole


# --- the helper itself -----------------------------------------------------------------------


def test_element_escapes_text_once_and_keeps_markup_it_built():
    cell = element("td", "a < b & 'c'")
    assert cell == "<td>a &lt; b &amp; &#x27;c&#x27;</td>"
    row = element("tr", cell, element("td", escape("&amp;")))
    assert row == "<tr><td>a &lt; b &amp; &#x27;c&#x27;</td><td>&amp;amp;</td></tr>"
    assert element("img", alt='"x"', class_="c", data_ready=1) == (
        '<img alt="&quot;x&quot;" class="c" data-ready="1">'
    )


def test_element_refuses_event_handlers_and_odd_names():
    with pytest.raises(ValueError, match="onerror"):
        element("img", onerror="alert(1)")
    with pytest.raises(ValueError, match="not an element name"):
        element("img src=x")
    with pytest.raises(ValueError, match="no children"):
        element("img", "text")
