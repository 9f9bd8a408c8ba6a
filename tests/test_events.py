"""The event bus: what the studio listens to."""

from __future__ import annotations

import pytest

import tistudio as ti
from tistudio.events import Event, EventBus, bus


@pytest.fixture(autouse=True)
def _init() -> None:
    ti.init()


def test_compile_pass_launch_and_field_written_events() -> None:
    x = ti.field(ti.f32, shape=4)
    y = ti.field(ti.f32, shape=4)

    @ti.kernel
    def k(v: ti.f32):
        for i in x:
            x[i] = v + y[i]

    seen: list[Event] = []
    stops = [
        bus.subscribe(kind, seen.append)
        for kind in ("compiled", "pass_ran", "launched", "field_written")
    ]
    try:
        k(1.0)
        k(2.0)
    finally:
        for stop in stops:
            stop()
    kinds = [e.kind for e in seen]
    assert kinds.count("compiled") == 1
    assert kinds.count("launched") == 2 and kinds.count("field_written") == 2
    passes = [e.data["record"].name for e in seen if e.kind == "pass_ran"]
    assert passes[:3] == ["initial IR", "lower_ast", "type_check"] and "offload" in passes
    written = next(e for e in seen if e.kind == "field_written").data["snodes"]
    assert [s.id for s in written] == [x.snode.id]
    launched = [e.data["entry"] for e in seen if e.kind == "launched"]
    assert launched[-1].hits == 1 and launched[-1].misses == 1


def test_unsubscribed_listener_hears_nothing_and_errors_do_not_propagate() -> None:
    local = EventBus()
    heard: list[Event] = []
    stop = local.subscribe("launched", heard.append)

    def broken(event: Event) -> None:
        raise RuntimeError("widget bug")

    local.subscribe("launched", broken)
    local.publish("launched", n=1)
    stop()
    local.publish("launched", n=2)
    assert [e.data["n"] for e in heard] == [1]
    assert len(local.errors) == 2 and not local.wants("compiled")


def test_kinds_lists_the_kinds_somebody_listens_to() -> None:
    local = EventBus()
    assert local.kinds == frozenset()
    stop_launched = local.subscribe("launched", lambda event: None)
    stop_compiled = local.subscribe("compiled", lambda event: None)
    assert local.kinds == {"launched", "compiled"}
    stop_launched()
    assert local.kinds == {"compiled"}
    stop_compiled()
    assert not local.kinds
