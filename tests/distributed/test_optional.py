"""Dask stays optional: `import tistudio` (and its AOT loader) never imports it."""

from __future__ import annotations

import subprocess
import sys


def test_importing_tistudio_does_not_import_dask():
    code = (
        "import sys, tistudio, tistudio.aot\n"
        "tistudio.aot.Module\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


def test_without_dask_the_import_error_says_what_to_install():
    code = (
        "import sys\n"
        "sys.modules['distributed'] = None  # as if it were not installed\n"
        "try:\n"
        "    import tistudio.distributed\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert 'pip install "tistudio[dask]"' in done.stdout, done.stdout
