"""Progress of a run: a redrawn bar on a terminal, periodic log lines otherwise."""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO

log = logging.getLogger("harness.tourney")


def duration(seconds: float) -> str:
    """``75`` -> ``1m15s``; short and readable."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    """Counts games as chunks land and shows games done, games/s and the ETA.

    On a terminal the bar is redrawn in place (at most 5 times a second); otherwise a
    line goes to the log every ``every`` seconds. Rates count only games played now,
    not chunks that were already done or reused.
    """

    def __init__(
        self,
        total: int,
        done: int = 0,
        *,
        stream: TextIO | None = None,
        bar: bool | None = None,
        every: float = 10.0,
    ) -> None:
        self.total = total
        self.done = done
        self.played = 0
        self.stream = stream if stream is not None else sys.stderr
        self.bar = self.stream.isatty() if bar is None else bar
        self.every = every
        self.start = time.monotonic()
        self._drawn = 0.0
        self._logged = self.start
        self._width = 0

    def add(self, games: int) -> None:
        self.done += games
        self.played += games
        self.show()

    def rate(self) -> float:
        elapsed = time.monotonic() - self.start
        return self.played / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        rate = self.rate()
        left = self.total - self.done
        eta = duration(left / rate) if rate > 0 else "?"
        share = self.done / self.total if self.total else 1.0
        return f"{self.done:,}/{self.total:,} games ({share:.0%}), {rate:,.0f} games/s, ETA {eta}"

    def show(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.bar:
            if force or now - self._drawn >= 0.2:
                self._drawn = now
                share = self.done / self.total if self.total else 1.0
                filled = int(share * 30)
                text = f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.line()}"
                pad = max(0, self._width - len(text))
                self._width = len(text)
                self.stream.write(text + " " * pad)
                self.stream.flush()
        elif force or now - self._logged >= self.every:
            self._logged = now
            log.info("progress: %s", self.line())

    def finish(self) -> None:
        """End the bar's line (the bar is left showing the last count)."""
        if self.bar and self._width:
            self.show(force=True)
            self.stream.write("\n")
            self.stream.flush()
