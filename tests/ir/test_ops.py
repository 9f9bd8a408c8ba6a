"""Operator enums: looked up by name as Taichi spells them, hashed by identity."""

from __future__ import annotations

import pickle

import pytest

from tistudio.ir.ops import AtomicOpType, BinaryOpType, TaskType, TernaryOpType, UnaryOpType


@pytest.mark.parametrize("enum", [BinaryOpType, UnaryOpType, TernaryOpType, AtomicOpType, TaskType])
def test_members_hash_by_identity_and_survive_pickling(enum) -> None:
    """Passes and code generation hash operators in every table lookup; Enum's own hash is a
    Python function of the name (about half as fast again)."""
    for member in enum:
        assert hash(member) == object.__hash__(member)
        assert enum(member.value) is member
        assert pickle.loads(pickle.dumps(member)) is member
        assert {member: 1}[enum[member.name]] == 1
