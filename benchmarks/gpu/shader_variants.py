"""Text rewrites of an emitted WGSL shader, for the probes (`nbody_probe.py`, `stencil_probe.py`):
other workgroup sizes, a serial loop unrolled, the grid-stride loop unrolled, and a timer that
runs a shader on the buffers of the kernel it came from.

These rewrite tistudio's own output, so they rely on its shape: a grid-stride loop
`for (var k: u32 = gid.x; k < count; k = k + groups.x * 256u) {` around the body, serial loops
`for (var sN_i: i32 = A; sN_i < B; sN_i = sN_i + 1) {`. WGSL lets a declaration in an inner
block shadow an outer one, so each copy of a body goes into its own `{ }` with its index
declared as a `let` of the same name.
"""

from __future__ import annotations

import re
import time

GRID = "for (var k: u32 = gid.x; k < count; k = k + groups.x * 256u) {"


def _block(text: str, header: str) -> tuple[int, int]:
    """(start of `header`, index just past the `}` that closes its block) in `text`."""
    start = text.index(header)
    depth = 0
    for at in range(start + len(header) - 1, len(text)):
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        if depth == 0:
            return start, at + 1
    raise ValueError("unbalanced braces")


def workgroup_size(text: str, size: int) -> str:
    """The shader with `size` invocations per workgroup instead of 256."""
    assert "@workgroup_size(256)" in text and "groups.x * 256u" in text
    out = text.replace("@workgroup_size(256)", f"@workgroup_size({size})")
    return out.replace("groups.x * 256u", f"groups.x * {size}u")


def unroll_serial(text: str, factor: int) -> str:
    """The first serial loop with a constant trip count divisible by `factor`, unrolled."""
    m = re.search(r"for \(var (s\d+_i): i32 = (-?\d+)i; \1 < (-?\d+)i; \1 = \1 \+ 1\) \{", text)
    assert m and (int(m[3]) - int(m[2])) % factor == 0, "no serial loop to unroll"
    start, end = _block(text, m[0])
    body = text[start + len(m[0]) : end - 1]
    var = m[1]
    head = f"for (var {var}v: i32 = {m[2]}i; {var}v < {m[3]}i; {var}v = {var}v + {factor}i) {{"
    copies = "".join(f"{{ let {var}: i32 = {var}v + {u}i;{body}}}\n" for u in range(factor))
    return text[:start] + head + "\n" + copies + "}" + text[end:]


def unroll_grid(text: str, factor: int) -> str:
    """The grid-stride loop taking `factor` indices `stride` apart per step, then the rest one
    at a time: more loads in flight per invocation, each still coalesced across a warp."""
    return unroll_strided(text, GRID, "k", "count", factor)


def unroll_strided(text: str, header: str, var: str, count: str, factor: int) -> str:
    """The loop opened by `header` (index `var` from `gid.x` below `count`, by the grid's
    invocations) taking `factor` indices per step, each copy of its body in its own block."""
    start, end = _block(text, header)
    body = text[start + len(header) : end - 1]
    size = re.search(r"@workgroup_size\((\d+)\)", text)[1]
    base, stride = f"{var}_base", f"{var}_stride"
    copies = "".join(
        f"{{ let {var}: u32 = {base} + {u}u * {stride};{body}}}\n" for u in range(factor)
    )
    new = (
        f"let {stride}: u32 = groups.x * {size}u;\n"
        f"var {base}: u32 = gid.x;\n"
        f"for (; {base} + {factor - 1}u * {stride} < {count}; "
        f"{base} = {base} + {factor}u * {stride}) {{\n"
        f"{copies}}}\n"
        f"for (; {base} < {count}; {base} = {base} + {stride}) {{ let {var}: u32 = {base};{body}}}"
    )
    return text[:start] + new + text[end:]


def unroll_contiguous(text: str, factor: int) -> str:
    """Each step of the grid-stride loop takes `factor` consecutive indices (a count divisible
    by `factor`): neighbouring cells share loads in one invocation, warps load strided."""
    start, end = _block(text, GRID)
    body = text[start + len(GRID) : end - 1]
    size = re.search(r"@workgroup_size\((\d+)\)", text)[1]
    copies = "".join(f"{{ let k: u32 = kk * {factor}u + {u}u;{body}}}\n" for u in range(factor))
    new = (
        f"for (var kk: u32 = gid.x; kk < count / {factor}u; kk = kk + groups.x * {size}u) {{\n"
        f"{copies}}}"
    )
    return text[:start] + new + text[end:]


_ADDRESS = re.compile(r"let (s\d+): u32 = ([^;]*);")
_TERM = re.compile(r"^(?:(s\d+)|(\d+)u|u32\((s\d+)\) \* (\d+)u)$")


def word_indices(text: str) -> str:
    """The shader with its addresses computed in 4-byte words instead of bytes: each address
    `let` made of byte offsets, constants and `u32(x) * size` terms (all multiples of 4, as
    in a tree of 32-bit fields) divided by 4, and the `(offset >> 2u)` of every access
    dropped. Tests whether the byte arithmetic (which the driver cannot fold, as a u32 byte
    offset may wrap) costs the stencil its last few per cent."""
    words: set[str] = set()

    def rewrite(m: re.Match) -> str:
        terms = m[2].split(" + ")
        out = []
        for term in terms:
            t = _TERM.match(term)
            if t is None:
                return m[0]
            name, const, factor_of, factor = t.groups()
            if name is not None:
                if name not in words:
                    return m[0]
                out.append(name)
            elif const is not None:
                if int(const) % 4:
                    return m[0]
                out.append(f"{int(const) // 4}u")
            else:
                if int(factor) % 4:
                    return m[0]
                scale = int(factor) // 4
                out.append(f"u32({factor_of})" + (f" * {scale}u" if scale != 1 else ""))
        words.add(m[1])
        return f"let {m[1]}: u32 = {' + '.join(out)};"

    out = _ADDRESS.sub(rewrite, text)
    for name in words:  # (a byte offset used any other way would show in the probe's check)
        out = out.replace(f"({name} >> 2u)", name)
    return out


def timed(device, pipeline, group, groups: int, reps: int) -> float:
    """ms per dispatch: 3 warm-ups, then `reps` dispatches and one sync."""
    for _ in range(3):
        device.dispatch(pipeline, group, b"", groups)
    device.sync()
    start = time.perf_counter()
    for _ in range(reps):
        device.dispatch(pipeline, group, b"", groups)
    device.sync()
    return (time.perf_counter() - start) / reps * 1e3


def pipeline_for(device, exe, shader, text: str, checks: bool = True):
    """(pipeline, bind group) of `text` on the buffers of `exe`'s first task, its shader
    module made with naga's runtime checks or without."""
    before, device.runtime_checks = device.runtime_checks, checks
    try:
        tag = "\n// naga checks" if checks else "\n// no naga checks"  # keys the pipeline cache
        pipeline, layout = device.pipeline(text + tag, shader.bindings, exe.args.size)
    finally:
        device.runtime_checks = before
    return pipeline, exe._bind_group(0, shader, layout, {})
