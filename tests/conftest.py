"""Test-wide settings: every compile in the test suite verifies the IR after every pass."""

from __future__ import annotations

import os

os.environ.setdefault("TISTUDIO_VERIFY_IR", "1")
# nothing on the user's disk: tests of the offline cache turn it on in a temporary folder
os.environ.setdefault("TISTUDIO_OFFLINE_CACHE", "0")
