"""Test-wide settings: every compile in the test suite verifies the IR after every pass."""

from __future__ import annotations

import os

os.environ.setdefault("TISTUDIO_VERIFY_IR", "1")
