"""A one-line progress bar on stderr for the training's phases."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Bar:
    """``phase [#####.....] done/total`` redrawn at most five times a second."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.what = ""
        self.total = 1
        self.done = 0
        self._shown = 0.0

    def phase(self, what: str, total: int) -> None:
        self.end()
        self.what, self.total, self.done = what, max(total, 1), 0
        self._draw(force=True)

    def tick(self, n: int = 1) -> None:
        self.done += n
        self._draw()

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._shown < 0.2 and self.done < self.total:
            return
        self._shown = now
        full = min(self.width, self.width * self.done // self.total)
        bar = "#" * full + "." * (self.width - full)
        self.stream.write(f"\r{self.what:<28} [{bar}] {self.done:,}/{self.total:,}")
        self.stream.flush()

    def end(self) -> None:
        if self.what:
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
            self.what = ""

    def say(self, text: str) -> None:
        self.end()
        self.stream.write(text + "\n")
        self.stream.flush()
