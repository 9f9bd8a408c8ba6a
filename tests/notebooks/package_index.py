"""Whether pip's package index answers, for the tests that install into a fresh venv.

Those tests (marked `network`) need the index that pip is configured with; on a machine that
cannot reach it they are skipped with the index's address and the error, instead of failing
after pip's long timeouts. The probe is one HTTP HEAD request with a 3 s limit: it never skips
where the index answers, whatever the answer's status below 500.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

DEFAULT_INDEX = "https://pypi.org/simple/"
# pip here waits up to 180 s for an index: a loaded machine gets more than the 3 s this was
PROBE_SECONDS = 15.0


def configured_index() -> str:
    """The index pip installs from: `PIP_INDEX_URL`, else pip's configuration, else PyPI."""
    url = os.environ.get("PIP_INDEX_URL", "").split()
    if url:
        return url[0]
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True
    ).stdout
    found = re.search(r"^(?:global|install|:env:)\.index-url='([^']+)'", listed, re.MULTILINE)
    return found.group(1).split()[0] if found else DEFAULT_INDEX


def unreachable(url: str, seconds: float = PROBE_SECONDS) -> str | None:
    """Why `url` cannot be reached, or None where it answers (a local `file:` index exists)."""
    if url.startswith("file:"):
        path = Path(urllib.request.url2pathname(url.removeprefix("file:")))
        return None if path.exists() else f"{path} does not exist"
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=seconds):
            return None
    except urllib.error.HTTPError as e:  # an answer: the index is there
        return None if e.code < 500 else f"HTTP {e.code}"
    except (OSError, ValueError) as e:  # URLError, timeouts, refused connections
        return f"{type(e).__name__}: {getattr(e, 'reason', e)}"


def skip_without_index() -> None:
    """Skip the calling test, saying why, when pip's index does not answer."""
    if os.environ.get("PIP_NO_INDEX", "").lower() in ("1", "true", "yes", "on"):
        return  # pip installs from local wheels only: nothing to reach
    url = configured_index()
    reason = unreachable(url)
    if reason is not None:
        pytest.skip(
            f"needs the package index {url}, which did not answer in "
            f"{PROBE_SECONDS:.0f} s ({reason})"
        )
