"""The person's side of the table: what is drawn (80 columns) and how answers are read.

Plain lines on stdout and answers read a line at a time with ``input()``: a turn asks a
few short questions (a face, stop or roll on, a claim), so a line editor or a full-screen
library buys little, while plain lines work the same in a terminal, through a pipe, in a
notebook (``input()`` is the notebook's own prompt there), under a screen reader, and in
tests driven through a real pseudo-terminal. The only terminal feature used is colour,
written with click (already a dependency) and only when stdout is a terminal, ``TERM``
is not ``dumb`` and ``NO_COLOR`` is unset (https://no-color.org).

Everything drawn fits 80 columns: the grill as one row of tiles (``xx`` face down, ``--``
on a stack) with their worms below, one line per seat for the stacks, the roll grouped by
face, what is set aside. Pure formatting (:func:`board_lines` and friends) is apart from
the :class:`Console` that writes and reads, so a notebook or a test can use it alone.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import click

from harness.errors import printable
from harness.game.rules import DICE, FACE_POINTS, TILES, face_name, worms

WIDTH = 80
RULE = "=" * WIDTH
MAX_ANSWER = 200
"""Characters of an answer kept (the longest word an answer can be is "threes"): a
longer line is read on to its end without being held, so a megabyte pasted or piped
costs a linear read, never a quadratic wrap or a megabyte echoed."""
_DRAIN = 1 << 16  # characters read at a time from the rest of an over-long line


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def colour_wanted(stream: TextIO) -> bool:
    """Colour only for a terminal that can show it, and never under NO_COLOR."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM", "") == "dumb":
        return False
    return _isatty(stream)


class Console:
    """Writes lines and reads answers for a person (stdout and ``input()`` by default).

    ``write(text)`` and ``read(prompt)`` can be replaced (a notebook widget, a test);
    ``read`` raises EOFError when the input has ended. ``colour`` None: decided from the
    output stream (:func:`colour_wanted`).
    """

    def __init__(
        self,
        write: Callable[[str], Any] | None = None,
        read: Callable[[str], str] | None = None,
        colour: bool | None = None,
        stream: TextIO | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self._write = write
        self._read = read if read is not None else input
        self.colour = colour_wanted(self.stream) if colour is None else colour

    def say(self, text: str = "", style: str | None = None) -> None:
        """A line (wrapped at 80 columns, its continuation indented), in ``style``."""
        for line in textwrap.wrap(text, WIDTH, subsequent_indent="    ") or [""]:
            shown = self.paint(line, style) if style else line
            if self._write is not None:
                self._write(shown)
            else:
                print(shown, file=self.stream, flush=True)

    def ask(self, prompt: str) -> str:
        """One answer (stripped, at most :data:`MAX_ANSWER` characters). EOFError at the
        end of the input. An answer read from a pipe or a file is echoed, so that the
        output reads as a dialogue: escaped (``\\x1b``), never acted on by the terminal."""
        shown = self.paint(prompt, "prompt")
        if self._read is input and not _isatty(sys.stdin):
            self._show_prompt(shown)
            answer, more = read_bounded(sys.stdin, MAX_ANSWER)
            self.say(printable(answer) + (f"... ({more:,} more characters)" if more else ""))
        else:
            answer = self._read(shown)[:MAX_ANSWER]
        return answer.strip()

    def _show_prompt(self, prompt: str) -> None:
        """The prompt with no line end, as ``input()`` writes it."""
        if self._write is not None:
            self._write(prompt)
            return
        self.stream.write(prompt)
        self.stream.flush()

    def paint(self, text: str, style: str) -> str:
        """``text`` in a style (prompt, title, warn, error, you, good) where colour is on."""
        if not self.colour:
            return text
        look = _STYLES.get(style, {})
        return click.style(text, **look)


def read_bounded(stream: TextIO, limit: int) -> tuple[str, int]:
    """One line of ``stream`` (its line end dropped): its first ``limit`` characters and
    how many more it had, read and let go (EOFError at the end of the input)."""
    line = stream.readline(limit + 1)
    if not line:
        raise EOFError
    if line.endswith("\n"):
        return line[:-1][:limit], max(len(line) - 1 - limit, 0)
    more = max(len(line) - limit, 0)
    if more:  # the line goes on: read it to its end, a bounded piece at a time
        while True:
            rest = stream.readline(_DRAIN)
            if not rest:
                break
            if rest.endswith("\n"):
                more += len(rest) - 1
                break
            more += len(rest)
    return line[:limit], more


_STYLES: dict[str, dict[str, Any]] = {
    "prompt": {"fg": "cyan", "bold": True},
    "title": {"bold": True},
    "warn": {"fg": "yellow", "bold": True},
    "error": {"fg": "red"},
    "you": {"fg": "green", "bold": True},
    "good": {"fg": "green"},
}


# -- drawing (pure) ------------------------------------------------------------------------
def grill_lines(grill: Sequence[int], flipped: Sequence[int]) -> list[str]:
    """The 16 tiles in one row (``xx``: face down, ``--``: on a stack) and their worms."""
    up, down = set(grill), set(flipped)
    tiles = []
    marks = []
    for t in TILES:
        if t in up:
            tiles.append(f"{t:>3}")
            marks.append(f"{worms(t):>3}")
        else:
            tiles.append(" xx" if t in down else " --")
            marks.append("   ")
    return [f"Grill {''.join(tiles)}", f"worms {''.join(marks)}".rstrip()]


def stack_lines(
    stacks: Sequence[Sequence[int]], names: Sequence[str], you: int | None
) -> list[str]:
    """One line per seat: name, worms, stack bottom to top (the top tile in brackets)."""
    width = min(24, max(len(_who(n, s, you)) for s, n in enumerate(names)))
    lines = []
    for seat, stack in enumerate(stacks):
        who = _who(names[seat], seat, you)[:width].ljust(width)
        total = sum(worms(t) for t in stack)
        tiles = [str(t) for t in stack]
        if tiles:
            tiles[-1] = f"[{tiles[-1]}]"
        shown = " ".join(tiles[-10:]) if tiles else "-"
        if len(tiles) > 10:
            shown = "... " + shown
        lines.append(f"  {who}  {total:>2} worm{'s' if total != 1 else ' '}  {shown}")
    return lines


def _who(name: str, seat: int, you: int | None) -> str:
    return f"{'you' if seat == you else name} (seat {seat})"


def dice_text(faces: Sequence[int]) -> str:
    """Dice lowest first, the worm (W) last: ``1 3 5 W W``, the order the narration's
    ``rolls`` lines use on the same screen."""
    return " ".join(face_name(f) for f in sorted(faces)) or "-"


def roll_lines(rolled: Sequence[int], counts: Sequence[int], choices: Sequence[int]) -> list[str]:
    """The roll, then each face that may be kept: its dice and the points they add."""
    keep = "  ".join(
        f"{face_name(f)} x{counts[f]} ({counts[f] * FACE_POINTS[f]})" for f in sorted(choices)
    )
    return [f"Roll: {dice_text(rolled)}", f"  may keep:  {keep}"]


def kept_line(kept: Sequence[int], total: int, left: int, worm: bool) -> str:
    """What is set aside so far."""
    if not kept:
        return f"Set aside: nothing yet; {left} dice to roll"
    need = "" if worm else " (no worm yet: a claim needs one, R7)"
    return (
        f"Set aside: {dice_text(kept)}  total {total}, {left} "
        f"{'die' if left == 1 else 'dice'} left{need}"
    )


def choice_keys(choices: Sequence[int]) -> str:
    """The keys that keep each face, in the dice's order: ``1 3 5 W``."""
    return " ".join(face_name(f) for f in sorted(choices))


FACE_WORDS = {
    "w": 6, "worm": 6, "worms": 6, "6": 6,
    "1": 1, "one": 1, "ones": 1, "2": 2, "two": 2, "twos": 2, "3": 3, "three": 3,
    "threes": 3, "4": 4, "four": 4, "fours": 4, "5": 5, "five": 5, "fives": 5,
}  # fmt: skip
STOP_WORDS = {"s": True, "stop": True, "y": True, "yes": True, "r": False, "roll": False,
              "n": False, "no": False, "go": False, "on": False}  # fmt: skip
COMMANDS = {
    "?": "help", "help": "help", "h": "hints", "hint": "hints", "hints": "hints",
    "b": "board", "board": "board", "q": "quit", "quit": "quit", "exit": "quit",
}  # fmt: skip

HELP = [
    "Keep a face: type it, W (or 6) for the worm, 1-5 for the others; all dice",
    "  showing it are set aside (R5).",
    "Stop or roll on (when a stop would take a tile): s to stop, r to roll on.",
    "Choose a claim: type its number.",
    "h: the exact value of every option now     b: the board again",
    "q: stop the game here (the record so far is saved)     ?: this help",
    f"A turn: roll the dice left ({DICE} at first), keep one new face each roll, stop",
    "with a worm set aside and a total that takes a tile: the highest grill tile",
    "at or below it, or a rival's top tile showing exactly it (R4-R7).",
]


__all__ = [
    "COMMANDS",
    "Console",
    "MAX_ANSWER",
    "FACE_WORDS",
    "HELP",
    "RULE",
    "STOP_WORDS",
    "WIDTH",
    "choice_keys",
    "colour_wanted",
    "dice_text",
    "grill_lines",
    "kept_line",
    "read_bounded",
    "roll_lines",
    "stack_lines",
]
