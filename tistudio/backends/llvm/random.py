"""`Rand` on the CPU: the hash of `ir/random.py`, written with an LLVM IR builder.

A task that draws keeps two things: its task key, hashed once in the entry block from the
launch's key (a slot of the argument buffer), and a call counter in a local variable, which
the emitter sets to 0 at the start of each iteration of the task's loop.
"""

from __future__ import annotations

from tistudio.backends.llvm import llir as ir
from tistudio.backends.llvm.lltypes import I32
from tistudio.ir import random as rng


def mix32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """`rng.mix32`: i32 arithmetic wraps modulo 2**32, and `lshr` is the logical shift."""
    first, second, third = rng.SHIFTS
    x = b.xor(x, b.lshr(x, ir.Constant(I32, first)))
    x = b.mul(x, ir.Constant(I32, _signed(rng.MUL_1)))
    x = b.xor(x, b.lshr(x, ir.Constant(I32, second)))
    x = b.mul(x, ir.Constant(I32, _signed(rng.MUL_2)))
    return b.xor(x, b.lshr(x, ir.Constant(I32, third)))


def task_key(b: ir.IRBuilder, launch_key: ir.Value, task: int) -> ir.Value:
    """`rng.task_key` of task number `task` (its inner hash is a constant)."""
    return mix32(b, b.xor(launch_key, ir.Constant(I32, _signed(rng.mix32(task + rng.TASK_SALT)))))


def draw(b: ir.IRBuilder, key: ir.Value, index: ir.Value, counter: ir.Value) -> ir.Value:
    """`rng.draw(rng.stream(key, index), counter)`."""
    stream = mix32(b, b.xor(key, index))
    return mix32(b, b.add(stream, b.mul(counter, ir.Constant(I32, _signed(rng.GOLDEN)))))


def _signed(value: int) -> int:
    """A u32 constant as the i32 LLVM prints."""
    return value - (1 << 32) if value >= 1 << 31 else value
