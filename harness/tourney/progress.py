"""Progress of a run: a redrawn bar on a terminal or in a notebook, log lines otherwise.

A notebook's output is not a terminal (``isatty()`` is false) but is watched by a person:
there the bar is one text line redrawn in place with IPython's display (or, without
IPython, a line written to the stream every ``every`` seconds). Elsewhere (a pipe, a
log file) a line goes to the log every ``every`` seconds.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

log = logging.getLogger("harness.tourney")

# The mark of the stderr handlers ``-v`` adds to the "harness" logger (the commands'
# console_log): a run's own log, which does not propagate, takes them on too.
CONSOLE_MARK = "harness_console"


def console_handlers() -> list[logging.Handler]:
    """The stderr handlers of ``-v`` now in place (for a log that does not propagate)."""
    return [h for h in logging.getLogger("harness").handlers if getattr(h, CONSOLE_MARK, 0)]


def duration(seconds: float) -> str:
    """``75`` -> ``1m15s``; short and readable."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


PLANNING_EVERY = 2.0  # seconds between two lines saying how far the planning is


def planning_teller(say: Callable[[str], None]) -> Callable[[int, int, str], None]:
    """A plan's progress for people: nothing for a plan made in under two seconds, then a
    line every two seconds (tables listed, then keyed, of all), and one at the end."""
    start = time.monotonic()
    last = [start]

    def tell(done: int, total: int, what: str = "keyed") -> None:
        now = time.monotonic()
        end = done >= total and what == "keyed"
        if now - last[0] < PLANNING_EVERY and not (end and last[0] != start):
            return
        last[0] = now
        if end:
            say(f"Planned {total:,} tables in {now - start:.0f} s.")
        else:
            share = done / total if total else 1.0
            say(f"Planning: {done:,} of {total:,} tables {what} ({share:.0%}) ...")

    return tell


def in_notebook() -> bool:
    """Whether this process is a Jupyter (IPython) kernel: a notebook, or a console on it."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", None)
    try:
        return shell is not None and getattr(shell(), "kernel", None) is not None
    except Exception:  # noqa: BLE001 - a half-torn-down IPython: no notebook to draw in
        return False


def watched(stream: TextIO | None, bar: bool | None) -> bool:
    """Whether a person watches a run's progress on ``stream`` (None: stderr, or the
    notebook's output): a terminal, a notebook, or a bar forced on. Where
    :class:`Progress` draws a bar or a notebook line, notes for people go too."""
    if bar is False:
        return False
    return (
        bool(bar)
        or _isatty(stream if stream is not None else sys.stderr)
        or (stream is None and in_notebook())
    )


class NotebookLine:
    """One text line in a notebook's output, replaced in place (IPython display_id)."""

    def __init__(self) -> None:
        from IPython.display import Pretty, display

        self._text = Pretty
        self._handle: Any = display(Pretty(""), display_id=True)

    def show(self, text: str) -> None:
        self._handle.update(self._text(text))


class Progress:
    """Counts games as chunks land and shows games done, games/s and the ETA.

    On a terminal the bar is redrawn in place (at most 5 times a second); in a notebook
    (:func:`in_notebook`) it is a line redrawn in place (at most twice a second) through
    IPython, or without IPython a line on ``stream`` every ``every`` seconds; otherwise a
    line goes to the log every ``every`` seconds. ``bar`` forces the bar on (True: the
    terminal's or the notebook's) or off (False: log lines). Rates count only games
    played now, not chunks that were already done or reused. ``pending``: games played
    of chunks not stored yet (the backend's ``in_flight()``), shown as done. ``lines``:
    where there is no bar, the lines go to ``stream`` instead of the log (a command with
    no log of its own: the coach and the diff).
    """

    def __init__(
        self,
        total: int,
        done: int = 0,
        *,
        stream: TextIO | None = None,
        bar: bool | None = None,
        every: float = 10.0,
        lines: bool = False,
    ) -> None:
        self.total = total
        self.done = done
        self.played = 0
        self.pending = 0
        self.slowest = ""  # what to add to the line: the strategy slowest to decide
        self.stream = stream if stream is not None else sys.stderr
        tty = _isatty(self.stream)
        # Not a terminal but a notebook: a person watches, so a bar (never for a stream
        # the caller chose that is not the notebook's own output).
        notebook = not tty and bar is not False and stream is None and in_notebook()
        self.bar = (tty if bar is None else bar) and not notebook
        self.line_out: NotebookLine | None = None
        # No IPython display (or ``lines``): a line on the stream now and then.
        self.notebook_lines = lines and not self.bar
        if notebook:
            try:
                self.line_out = NotebookLine()
            except Exception:  # noqa: BLE001 - no IPython.display (or a broken one)
                self.notebook_lines = True
        self.every = every
        self.start = time.monotonic()
        self._drawn = 0.0
        self._logged = self.start
        self._width = 0
        self._ended_early = False  # a note ended the bar's line (end_line)
        if self.line_out is not None:
            self.show(force=True)  # the bar at 0 (or at what was stored) from the start

    def add(self, games: int) -> None:
        self.done += games
        self.played += games
        self.show()

    def shown(self) -> int:
        """Games to show as done: stored, and played of chunks still in play."""
        return min(self.total, self.done + max(0, self.pending))

    def rate(self) -> float:
        elapsed = time.monotonic() - self.start
        played = self.played + self.shown() - self.done
        return played / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        rate = self.rate()
        done = self.shown()
        left = self.total - done
        eta = duration(left / rate) if rate > 0 else "?"
        share = done / self.total if self.total else 1.0
        line = f"{done:,}/{self.total:,} games ({share:.0%}), {_rate(rate)}, ETA {eta}"
        return f"{line}; {self.slowest}" if self.slowest else line

    def bar_text(self) -> str:
        share = self.shown() / self.total if self.total else 1.0
        filled = int(share * 30)
        return f"[{'#' * filled}{'.' * (30 - filled)}] {self.line()}"

    def show(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.line_out is not None:
            if force or now - self._drawn >= 0.5:
                self._drawn = now
                try:
                    self.line_out.show(self.bar_text())
                except Exception:  # noqa: BLE001 - the display went away: lines from now on
                    self.line_out, self.notebook_lines = None, True
                    self.show(force=True)
        elif self.bar:
            if force or now - self._drawn >= 0.2:
                self._drawn = now
                text = "\r" + self.bar_text()
                pad = max(0, self._width - len(text))
                self._width = len(text)
                self.stream.write(text + " " * pad)
                self.stream.flush()
        elif force or now - self._logged >= self.every:
            self._logged = now
            if self.notebook_lines:
                self.stream.write(f"progress: {self.line()}\n")
                self.stream.flush()
            else:
                log.info("progress: %s", self.line())

    def end_line(self) -> None:
        """End the line of a bar drawn in place (a note is written next: on a line of its
        own); the bar is drawn again below it at the next count."""
        if self.bar and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width, self._drawn = 0, 0.0  # drawn again at the next count, or finish
            self._ended_early = True

    def finish(self) -> None:
        """End the bar's line (the bar is left showing the last count)."""
        if self.line_out is not None or self.notebook_lines:
            self.show(force=True)
        elif self.bar and (self._width or self._ended_early):
            self.show(force=True)
            self.stream.write("\n")
            self.stream.flush()


def _rate(rate: float) -> str:
    """Games per second, readable however slow: ``1,234 games/s``, ``0.35 games/s``."""
    if rate >= 10 or rate == 0:
        return f"{rate:,.0f} games/s"
    return f"{rate:.2g} games/s"


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False
