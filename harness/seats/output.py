"""Plugin output, contained: what plugins write (sys.stdout, logging, file descriptors 1
and 2) as labelled, escaped lines, at most :data:`OUTPUT_LIMIT` characters per unit of
work (a tourney's chunk, a coach's block, one game of ``harness play``).

Every command that runs a bot holds its output here: the tourney's workers and its serial
backend (to run.log), the coach's and the diff's worker processes (to their output.log)
and ``harness play`` (to stderr). :class:`Playing` is the game in play, written by
whoever plays it and read only when a plugin writes something.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from harness.errors import MESSAGE_LIMIT, safe_text, type_name
from harness.runfolder.manifest import OUTPUT_KEPT, UNLABELLED

OUTPUT_LIMIT = OUTPUT_KEPT  # characters of plugin output stored per chunk
OUTPUT_LOGGER = "harness.tourney.output"


class Playing:
    """The game in play: what labels a plugin's output.

    Whoever plays makes one and hands it to both sides: to the code that plays (a chunk,
    a coach's block, one game), which writes it (a few attribute stores per game), and to
    its :class:`PluginOutput`, which reads it only when a plugin writes something.
    ``spec`` is what is played (anything with a ``table``: a tourney's chunk spec, a
    coach's table; None for a lone game), ``seats`` the strategy instances by seat (a
    plugin's ``self``), ``names`` their names; ``others`` strategies asked beside the
    seats, as (instance, name) (the diff's shadow): their output is theirs, by name.
    """

    __slots__ = ("spec", "deal", "order", "row", "names", "seats", "others")

    def __init__(self) -> None:
        self.spec: Any = None
        self.deal = -1
        self.order = -1  # the seat order's index in the design
        self.row = -1
        self.names: list[str] = []
        self.seats: list[Any] = []  # the instances by seat: a plugin's ``self``
        self.others: list[tuple[Any, str]] = []

    def clear(self) -> None:
        self.spec, self.deal, self.order, self.row = None, -1, -1, -1
        self.names, self.seats, self.others = [], [], []


class PluginOutput:
    """What plugins write, as labelled lines for run.log, at most :data:`OUTPUT_LIMIT`
    characters per chunk (then one "output truncated" line); each line at most
    :data:`~harness.errors.MESSAGE_LIMIT` characters.

    A line is labelled with the game being played (``now``: whoever plays hands the same
    :class:`Playing` to the code that plays) and, found at write time from the writer's
    stack, the seat whose strategy wrote it. Every line is escaped
    (:func:`~harness.errors.safe_text`: no terminal control character gets through).
    """

    def __init__(self, emit: Callable[[str], None], now: Playing) -> None:
        self.emit = emit
        self.now = now
        self.used = 0
        self.truncated = False
        self.lock = threading.Lock()
        self.written: dict[str, int] = {}  # characters written this chunk, by strategy

    def begin(self) -> None:
        """A new chunk: a new allowance, and nothing written yet."""
        with self.lock:
            self.used, self.truncated = 0, False
            self.written = {}

    def count(self, chars: int, frame: Any = None) -> None:
        """``chars`` written by the strategy running in ``frame`` (its seat's strategy;
        UNLABELLED when no seat's code wrote it), kept or not: what the run tells at its
        end (the chunk's ``output``)."""
        if chars <= 0:
            return
        seat = self.seat_of(frame) if frame is not None else None
        who = self.name_of(seat) or UNLABELLED
        with self.lock:
            self.written[who] = self.written.get(who, 0) + chars

    def line(self, text: str, frame: Any = None, *, raw: bool = False) -> None:
        """One line; ``raw``: written to a file descriptor, read a moment later (so
        labelled with the table only: the game may have moved on)."""
        with self.lock:
            if self.truncated:
                return
            text = text.rstrip("\r")
            if len(text) > MESSAGE_LIMIT:
                text = text[:MESSAGE_LIMIT] + f"... ({len(text) - MESSAGE_LIMIT} more characters)"
            if self.used + len(text) > OUTPUT_LIMIT:
                self.truncated = True
                where = self.label(None)
                self.emit(f"{where}: ... output truncated (more than {OUTPUT_LIMIT:,} characters)")
                return
            self.used += len(text)
            where = self.label(frame) if not raw else self.raw_label()
            self.emit(f"{where}: {safe_text(text, MESSAGE_LIMIT + 40)}")

    def seat_of(self, frame: Any) -> int | None:
        """The seat whose strategy instance is running in ``frame`` or a caller of it
        (from ``len(seats)`` on: one of the ``others``, in their order)."""
        now = self.now
        seats = [*now.seats, *(instance for instance, _ in now.others)]
        depth = 0
        while frame is not None and seats and depth < 40:
            try:
                owner = frame.f_locals.get("self")
            except Exception:
                owner = None
            for i, instance in enumerate(seats):
                if owner is instance:
                    return i
            frame, depth = frame.f_back, depth + 1
        return None

    def name_of(self, seat: int | None) -> str | None:
        """The name of what :meth:`seat_of` found (None: nothing)."""
        now = self.now
        if seat is None:
            return None
        if seat < len(now.seats):
            return now.names[seat] if seat < len(now.names) else None
        other = seat - len(now.seats)
        return now.others[other][1] if other < len(now.others) else None

    def raw_label(self) -> str:
        spec = self.now.spec
        where = f", table {spec.table}" if spec is not None else ""
        return f"plugin output (file descriptor 1 or 2){where}"

    def label(self, frame: Any) -> str:
        """How a line of plugin output is labelled: strategy, seat, table, deal."""
        now = self.now
        spec = now.spec
        if spec is not None and now.deal < 0:
            return f"plugin output, table {spec.table} (loading its strategies)"
        # A lone game (no spec) is labelled by its seat alone.
        where = "" if spec is None else f", table {spec.table} deal {now.deal} seating {now.order}"
        seat = self.seat_of(frame) if frame is not None else None
        name = self.name_of(seat)
        if seat is None or name is None:
            return f"plugin output{where}"
        if seat >= len(now.seats):  # asked beside the seats: by its name alone
            return f"output of {name}{where}"
        return f"output of {name} (seat {seat}){where}"


class Lines(io.TextIOBase):
    """A text stream (sys.stdout, sys.stderr) whose lines go to a :class:`PluginOutput`."""

    def __init__(self, output: PluginOutput, name: str) -> None:
        super().__init__()
        self.output = output
        self.name = name
        self.buffer_text = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: Any) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type_name(text)}")
        self.output.count(len(text), sys._getframe(1))
        if self.output.truncated:
            return len(text)
        pending = self.buffer_text + text
        if "\n" not in pending:
            # One unending line: keep what a stored line may hold, and no more.
            self.buffer_text = pending[: MESSAGE_LIMIT + 100]
            return len(text)
        *lines, rest = pending.split("\n")
        self.buffer_text = rest[: MESSAGE_LIMIT + 100]
        frame = sys._getframe(1)
        for line in lines:
            self.output.line(line, frame)
            if self.output.truncated:
                break
        return len(text)

    def flush(self) -> None:
        if self.buffer_text:
            text, self.buffer_text = self.buffer_text, ""
            self.output.line(text, sys._getframe(1))


class PluginRecords(logging.Handler):
    """Log records of anyone but harness (a plugin's logging) become plugin output."""

    def __init__(self, output: PluginOutput) -> None:
        super().__init__(logging.DEBUG)
        self.output = output

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.split(".")[0] == "harness":
            return
        try:
            text = f"{record.levelname} {record.name}: {safe_text(record.getMessage())}"
        except Exception:
            text = f"{record.levelname} {record.name}: <unprintable log record>"
        self.output.count(len(text) + 1, sys._getframe(1))
        self.output.line(text, sys._getframe(1))


class Outside:
    """While serial play has file descriptors 1 and 2 in a pipe (plugin output), a way
    out for harness's own writes: :meth:`outside` puts them back for a moment."""

    def __init__(self, kept: tuple[int, int] | None = None) -> None:
        self.kept = kept

    @contextlib.contextmanager
    def outside(self) -> Iterator[None]:
        """File descriptors 1 and 2 as they were before the block, for the block."""
        if self.kept is None:
            yield
            return
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                stream and stream.flush()  # what plugin code left there goes to the pipe
        pipe = os.dup(1)
        try:
            os.dup2(self.kept[0], 1)
            os.dup2(self.kept[1], 2)
            yield
        finally:
            for stream in (sys.__stdout__, sys.__stderr__):
                with contextlib.suppress(Exception):
                    stream and stream.flush()
            os.dup2(pipe, 1)
            os.dup2(pipe, 2)
            os.close(pipe)


@contextlib.contextmanager
def contained(output: PluginOutput) -> Iterator[Outside]:
    """Within the block (serial play), sys.stdout, sys.stderr, file descriptors 1 and 2
    and log records of non-harness loggers go to ``output``; the block gets an
    :class:`Outside` (harness's own progress line writes through it).

    ``breakpoint()`` still reaches the terminal: serial play is for debuggers, so the
    debugger is given the real stdout (on a copy of the original descriptor).
    """
    saved = sys.stdout, sys.stderr
    saved_hook = sys.breakpointhook
    handler = PluginRecords(output)
    root = logging.getLogger()
    with contextlib.ExitStack() as stack:
        terminal, way_out = stack.enter_context(_fds_to(output))

        def debugger(*args: Any, **kwargs: Any) -> Any:
            inner = sys.stdout
            sys.stdout = terminal or saved[0]
            try:
                return saved_hook(*args, **kwargs)
            finally:
                sys.stdout = inner

        sys.stdout, sys.stderr = Lines(output, "<stdout>"), Lines(output, "<stderr>")
        sys.breakpointhook = debugger
        root.addHandler(handler)
        try:
            yield way_out
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            sys.stdout, sys.stderr = saved
            sys.breakpointhook = saved_hook
            root.removeHandler(handler)


@contextlib.contextmanager
def _fds_to(output: PluginOutput) -> Iterator[tuple[Any, Outside]]:
    """File descriptors 1 and 2 into ``output`` for the block, then back as they were;
    yields a text stream on a copy of the original stdout (None if fds cannot be moved)
    and the way out for harness's own writes."""
    try:
        sys.__stdout__ and sys.__stdout__.flush()
        sys.__stderr__ and sys.__stderr__.flush()
        kept = os.dup(1), os.dup(2)
    except (OSError, ValueError):
        yield None, Outside()
        return
    capture = FdCapture(output)
    terminal = open(os.dup(kept[0]), "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    try:
        yield terminal, Outside(kept)
    finally:
        with contextlib.suppress(OSError, ValueError):
            terminal.close()
        os.dup2(kept[0], 1)  # the pipe's last write end closes: its reader ends
        os.dup2(kept[1], 2)
        os.close(kept[0])
        os.close(kept[1])
        capture.thread.join(timeout=5)


_SYNC = b"\x00harness-output-sync "


class FdCapture:
    """File descriptors 1 and 2 into a pipe whose lines become plugin output (C code,
    subprocesses, whatever bypasses sys.stdout), read by a thread of its own."""

    def __init__(self, output: PluginOutput) -> None:
        read_end, write_end = os.pipe()
        os.dup2(write_end, 1)
        os.dup2(write_end, 2)
        os.close(write_end)
        self.output = output
        self.synced = threading.Condition()
        self.seen = 0
        self.thread = threading.Thread(
            target=self._read, args=(read_end,), name="harness-output", daemon=True
        )
        self.thread.start()

    def _read(self, read_end: int) -> None:
        output, pending = self.output, b""
        with open(read_end, "rb", buffering=0) as pipe:
            while True:
                data = pipe.read(65536)
                if not data:
                    break
                pending += data
                *lines, pending = pending.split(b"\n")
                pending = pending[: MESSAGE_LIMIT * 4]
                for line in lines:
                    if line.startswith(_SYNC):
                        with self.synced:
                            self.seen = int(line[len(_SYNC) :] or 0)
                            self.synced.notify_all()
                        continue
                    output.count(len(line) + 1)  # below Python: no seat to tell
                    if not output.truncated:
                        output.line(line.decode("utf-8", "replace"), raw=True)
        if pending:
            output.count(len(pending))
            if not output.truncated:
                output.line(pending.decode("utf-8", "replace"), raw=True)

    def sync(self, timeout: float = 2.0) -> None:
        """Wait until everything written to fds 1 and 2 so far has been read (so that a
        chunk's output is sent before the chunk's end)."""
        with self.synced:
            token = self.seen + 1
        try:
            os.write(1, _SYNC + str(token).encode() + b"\n")
        except OSError:  # a plugin closed fd 1
            return
        with self.synced:
            self.synced.wait_for(lambda: self.seen >= token, timeout)
