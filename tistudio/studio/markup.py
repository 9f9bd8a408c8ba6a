"""HTML built in Python, with every piece of text escaped: the one way the studio writes markup.

The studio's outputs carry a `text/html` fallback for viewers without the widgets' JavaScript,
and a saved notebook keeps it: whoever opens the notebook later renders it (issue #34). Field
names, kernel names, the `repr` of template arguments, paths and error messages are text from
code we do not control, so none of it may become markup. `element` escapes every child and
attribute value it is given, except children that are `Markup` (what `element` and `join`
return), so nesting never escapes twice and a plain `str` is always taken as text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

# elements without an end tag, among those the studio writes
VOID = frozenset({"br", "hr", "img"})
_NAME = re.compile(r"[a-z][a-z0-9-]*\Z")


class Markup(str):
    """HTML that `element` or `join` built: safe to nest as it is."""

    __slots__ = ()


def escape(value: object) -> Markup:
    """`value` as text: `&`, `<`, `>` and both quotes become character references; `Markup`
    is returned as it is."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def join(parts: Iterable[object]) -> Markup:
    """The parts one after another, each escaped unless it is `Markup`."""
    return Markup("".join(escape(part) for part in parts))


def element(tag: str, *children: object, **attributes: object) -> Markup:
    """`<tag attributes>children</tag>`, every text child and attribute value escaped.

    Attribute names are Python keywords: a trailing underscore is dropped (`class_`) and the
    other underscores become dashes (`data_ready`). Event handlers (`on...`) are refused: the
    static HTML is a picture of the panel and runs nothing.
    """
    if not _NAME.match(tag):
        raise ValueError(f"not an element name: {tag!r}")
    written = []
    for key, value in attributes.items():
        name = key.rstrip("_").replace("_", "-")
        if not _NAME.match(name) or name.startswith("on"):
            raise ValueError(f"attribute {name!r} is not allowed in the studio's static HTML")
        written.append(f' {name}="{escape(value)}"')
    opening = f"<{tag}{''.join(written)}>"
    if tag in VOID:
        if children:
            raise ValueError(f"<{tag}> has no children")
        return Markup(opening)
    return Markup(f"{opening}{join(children)}</{tag}>")
