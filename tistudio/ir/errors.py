"""The compiler's own error: a broken invariant is a tistudio bug, not the user's mistake.

It lives apart from the verifier so that the IR's lowest modules (`stmt.py`) can raise it.
"""

from __future__ import annotations


class InternalCompilerError(AssertionError):
    """A broken compiler invariant: a tistudio bug, not a mistake in the user's kernel."""
