"""The print buffer: where kernels put what `print` writes, until the host writes it out.

Kernels never format text and never call C's `printf`, which would write to file descriptor 1
behind Python's back (Jupyter would never see it). Each `Print` appends one record (format id
and raw value words, see `ir/printing.py`) at an atomically advanced cursor; when the launch is
over, `drain` decodes the records in cursor order and writes the text through `sys.stdout`, so a
notebook shows it under the cell that launched the kernel, in launch order. Threads of one
parallel loop never garble each other's lines: each reserves its whole record with one atomic
add. A full buffer drops records (counting them) instead of waiting, so nothing can deadlock,
and the text ends with a line saying how many were dropped.

Layout, in 32-bit words: `[cursor, dropped, capacity, end]`, then `capacity` words of records.
A record that does not fit is dropped: the kernel counts it in `dropped` and lowers `end` (at
first `capacity`) to where that record would have started, so the host decodes only the whole
records before it.
The CPU back end hands kernels the buffer's address; the WebGPU back end keeps the same layout
in a storage buffer and reads it back after the dispatch.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence

import numpy as np

from tistudio.ir.printing import PrintFormat, decode_records

HEADER_WORDS = 4
CURSOR, DROPPED, CAPACITY, END = 0, 1, 2, 3
DEFAULT_CAPACITY = 1 << 20  # words: 4 MiB, ~500k one-value records per launch


def overflow_line(dropped: int) -> str:
    return f"[tistudio] print buffer overflowed: {dropped} records dropped\n"


def decode_buffer(words: np.ndarray, formats: Sequence[PrintFormat]) -> str:
    """The text of a print buffer's contents (`words` starts with the header)."""
    used = min(int(words[CURSOR]), int(words[END]))
    text = decode_records(words[HEADER_WORDS : HEADER_WORDS + used].tolist(), list(formats))
    dropped = int(words[DROPPED])
    return text + overflow_line(dropped) if dropped else text


class PrintBuffer:
    """A host-memory print buffer for CPU kernels, shared by the kernels of one back end.

    Launches of printing kernels hold `lock` from the start of the launch until the records are
    written out, so two threads launching kernels never mix their records."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.words = np.zeros(HEADER_WORDS + capacity, dtype=np.uint32)
        self.words[CAPACITY] = self.words[END] = capacity
        self.address = self.words.ctypes.data
        self.lock = threading.Lock()

    def drain(self, formats: Sequence[PrintFormat]) -> None:
        """Write out the records of the launch that just ended, then empty the buffer."""
        text = decode_buffer(self.words, formats)
        self.words[CURSOR] = self.words[DROPPED] = 0
        self.words[END] = self.words[CAPACITY]
        if text:
            sys.stdout.write(text)

    def wrap(self, run: Callable[[], None], formats: Sequence[PrintFormat]) -> Callable[[], None]:
        """`run` (one launch), followed by writing out what it printed."""

        def run_and_print() -> None:
            with self.lock:
                try:
                    run()
                finally:
                    self.drain(formats)

        return run_and_print
