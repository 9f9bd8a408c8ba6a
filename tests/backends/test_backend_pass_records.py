"""The back ends' passes show in `compile_report` (the pass explorer's records) with what they
changed: `vectorize` on a GPU stencil, `jam` on a CPU row reduction."""

from __future__ import annotations

import os

import tistudio as ti


def _record(report, name: str) -> tuple[str, str]:
    """(IR before, IR after) the pass `name` in the report's records."""
    names = [record.name for record in report.passes]
    at = names.index(name)
    return report.passes[at - 1].ir_text, report.passes[at].ir_text


def test_the_gpu_stencil_shows_a_vectorize_pass_that_changed_its_task():
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    ti.init(arch=ti.vulkan, fallback_to_cpu=False, offline_cache=False)
    try:
        a = ti.field(ti.f32, shape=(256, 256))
        b = ti.field(ti.f32, shape=(256, 256))

        @ti.kernel
        def stencil():
            for i, j in ti.ndrange((1, 255), (1, 255)):
                b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

        report = stencil.compile_report()
        before, after = _record(report, "vectorize")
        assert before != after
        assert "vectorize(4, loads [" in after and "vectorize(" not in before
        assert "vec4<f32>" in report.wgsl  # the emitter printed what the pass chose
        assert [r.name for r in report.passes][-2:] == ["vectorize", "unroll"]
    finally:
        ti.reset()


def test_a_cpu_row_reduction_shows_a_jam_pass_that_changed_its_task():
    ti.init(arch=ti.cpu, offline_cache=False)
    try:
        m = ti.field(ti.f32, shape=(16, 128))
        r = ti.field(ti.f32, shape=16)

        @ti.kernel
        def row_sums():
            for i in r:
                t = 0.0
                for j in range(128):
                    t += m[i, j]
                r[i] = t

        report = row_sums.compile_report()
        before, after = _record(report, "jam")
        assert before != after and " jam(4) body {" in after
        assert "jam_end" in report.llvm_ir_unoptimized  # the code generator jammed it
        assert [r.name for r in report.passes][-1] == "jam"
    finally:
        ti.reset()
