"""One line per stage on stderr, with its duration: conversions of real models take
minutes, and a silent terminal looks hung."""

import sys
import time
from contextlib import contextmanager


class Progress:
    def __init__(self, total: int, stream=None):
        self.total = total
        self.index = 0
        self.stream = stream or sys.stderr

    @contextmanager
    def stage(self, title: str):
        self.index += 1
        start = time.monotonic()
        print(f"[{self.index}/{self.total}] {title}...", file=self.stream, flush=True)
        yield
        print(f"[{self.index}/{self.total}] {title}: done in {time.monotonic() - start:.1f}s",
              file=self.stream, flush=True)
