"""The errors harness raises for things users get wrong, and the bounded texts they carry.

Every one carries a message that is one clear line, fit to print as it is; the CLI
turns them into click errors (no traceback). Texts that come from plugin code (an
exception's message, the repr of an answer) go through :func:`safe_text` or
:func:`safe_repr` first: those never raise, keep one line and at most
:data:`MESSAGE_LIMIT` characters, so whatever a plugin throws, harness stores and
prints a few kB at most.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from typing import Any

from harness.interrupts import reraise_if_user

MESSAGE_LIMIT = 2000
"""The most characters of any text from a plugin that harness stores or prints."""

# Line breaks that str.splitlines() honours: a message keeps what comes before the first.
_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK = re.compile(f"[{re.escape(_BREAKS)}]")


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every character that is not printable shown escaped (``\\x1b``,
    ``\\u202e``): control characters, a terminal's escapes, bidi overrides (which turn a
    line around on screen), zero-width and unassigned characters, lone surrogates. Tabs
    stay. What a plugin or a user wrote is shown as it is, never acted on."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\t" else _escape(c) for c in text)


def type_name(obj: object) -> str:
    """The name of ``obj``'s type; never raises (a metaclass may lie about ``__name__``)."""
    try:
        name = type(obj).__name__
        if type(name) is str:
            return _bounded(name, 100)
    except BaseException as exc:
        reraise_if_user(exc)
    return "object"


def safe_text(obj: object, limit: int = MESSAGE_LIMIT) -> str:
    """``str(obj)`` that never raises: its first line, at most ``limit`` characters.

    Whatever ``__str__`` does (raises, returns a non-string, returns a megabyte), the
    result is one printable line; "<unprintable TypeName>" when there is no text.
    """
    return _convert(str, obj, limit)


def safe_repr(obj: object, limit: int = 200) -> str:
    """``repr(obj)`` that never raises, bounded like :func:`safe_text`."""
    return _convert(repr, obj, limit)


def _convert(how: Any, obj: object, limit: int) -> str:
    try:
        text = how(obj)
        if type(text) is not str:  # a str subclass could lie in its own methods
            text = str.__str__(text)
    except BaseException as exc:
        # The user's Ctrl-C may land inside a plugin's __str__: it still stops the run.
        reraise_if_user(exc)
        return f"<unprintable {type_name(obj)}>"
    return _bounded(text, limit)


def _bounded(text: str, limit: int) -> str:
    """The first line of ``text``, cut to ``limit`` characters, safe to print and encode."""
    if len(text) <= limit and text.isprintable():  # the usual case: nothing to change
        return text
    # Look for a line break only where it could matter: a 1 MB message is cut first.
    found = _BREAK.search(text, 0, limit + 1)
    if found is not None:
        head, rest = text[: found.start()], 0
    else:
        head, rest = text[:limit], max(len(text) - limit, 0)
    head = printable(head)  # lone surrogates too: they cannot be written as UTF-8
    return f"{head}... ({rest} more characters)" if rest else head


# -- a value shown in a message, at bounded cost (never its own repr: plugin code) -------
SHOWN_LIMIT = 200  # characters of a value shown in a message


def shown(value: Any, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)`` for a message, at most ``limit`` characters, at bounded cost.

    Builds the text itself and stops once it has enough, so a value that expands to
    gigabytes (a YAML alias bomb, a 5,000-digit number, a list of a million items) costs
    no more than a short one. Lists, tuples and mappings of any subclass are walked; other
    objects are named by type, never asked for their repr (that would run plugin code).
    """
    parts: list[str] = []
    budget = [limit + 1]
    for piece in _pieces(value, 0):
        parts.append(piece)
        budget[0] -= len(piece)
        if budget[0] <= 0:
            break
    text = "".join(parts)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _pieces(value: Any, depth: int) -> Iterator[str]:
    # The base types' own methods throughout: a subclass's overrides (plugin code) never run.
    if value is None or isinstance(value, bool):
        yield "None" if value is None else ("True" if value else "False")
    elif isinstance(value, float):
        yield float.__repr__(value)
    elif isinstance(value, int):
        bits = int.bit_length(value)
        yield int.__repr__(value) if bits <= 256 else f"<a number of {bits * 0.30103:.0f} digits>"
    elif isinstance(value, str):
        head = str.__getitem__(value, slice(0, SHOWN_LIMIT + 2))
        yield repr(head) if len(value) <= len(head) else repr(head)[:-1] + "..."
    elif isinstance(value, (bytes, bytearray)):
        yield repr(bytes(value[: SHOWN_LIMIT + 2]))
    elif isinstance(value, (list, tuple, dict)):
        opening, closing = (
            "{}" if isinstance(value, dict) else "()" if isinstance(value, tuple) else "[]"
        )
        if depth >= 4:
            yield opening + "..." + closing
            return
        yield opening
        if isinstance(value, dict):
            items: Any = dict.items(value)
        else:
            items = list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value)
        for i, item in enumerate(items):
            if i:
                yield ", "
            if isinstance(value, dict):
                yield from _pieces(item[0], depth + 1)
                yield ": "
                yield from _pieces(item[1], depth + 1)
            else:
                yield from _pieces(item, depth + 1)
        if isinstance(value, tuple) and len(value) == 1:
            yield ","
        yield closing
    else:
        yield f"<{type(value).__name__}>"


class HarnessError(Exception):
    """Base of every user-facing error: its str() is one line saying what and where."""


class RulesError(HarnessError, ValueError):
    """A rule set that RULES.md does not allow."""


class PluginError(HarnessError):
    """A strategy reference that cannot be resolved, loaded or built."""


class RecordError(HarnessError):
    """A game record that is malformed, or that breaks the rules when replayed."""


class ConfigError(HarnessError):
    """A tournament config that is invalid."""


class GameError(HarnessError):
    """Something went wrong inside a game, attributed to a seat and its strategy.

    ``turn`` is the 1-based number of the game's turn, ``seat`` the seat whose turn it
    was, ``strategy`` its display name. ``kind`` says what happened, for stored rows:
    "rule" (an illegal decision), "raised" (the strategy raised), "time" (over a time
    limit) or "crash" (its process died).
    """

    kind: str = "raised"

    def __init__(self, turn: int, seat: int, strategy: str, detail: str) -> None:
        self.turn = turn
        self.seat = seat
        self.strategy = strategy = safe_text(strategy, 200)
        self.detail = detail = safe_text(detail)
        super().__init__(f"turn {turn}, seat {seat} ({strategy}) {detail}")

    def __reduce__(self) -> tuple[Any, ...]:
        # The default pickles args (the message) and calls __init__ with it, which fails
        # for these signatures; rebuild from the attributes instead (never the cause).
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


def _rebuild(cls: type[GameError], args: tuple[Any, ...], state: dict[str, Any]) -> GameError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class IllegalMove(GameError):
    """A strategy returned a decision the rules forbid; ``rule`` is the rule id broken."""

    kind = "rule"

    def __init__(self, turn: int, seat: int, strategy: str, detail: str, rule: str) -> None:
        self.rule = rule
        super().__init__(turn, seat, strategy, f"{detail} ({rule})")


class StrategyFailed(GameError):
    """A strategy raised an exception; the original is ``__cause__``.

    ``answer=True``: the method returned, but reading its answer (its ``__index__``,
    ``__eq__``, ``__bool__``...) raised.
    """

    kind = "raised"

    def __init__(
        self,
        turn: int,
        seat: int,
        strategy: str,
        method: str,
        exc: BaseException,
        *,
        answer: bool = False,
    ) -> None:
        self.method = method
        # Room for the rest of the line, so that GameError's own bound never cuts it again.
        text = safe_text(exc, MESSAGE_LIMIT - 200)
        where = f"reading the answer of {method}()" if answer else f"in {method}()"
        detail = f"raised {type_name(exc)} {where}" + (f": {text}" if text else "")
        super().__init__(turn, seat, strategy, detail)


class TimeForfeit(GameError):
    """A seat went over a time limit (``move_time`` or ``game_time``): machine-dependent."""

    kind = "time"


class SeatCrashed(GameError):
    """A seat's strategy process died or stopped answering (``isolation: process``)."""

    kind = "crash"


class IntegrityError(HarnessError):
    """The game state broke an invariant (tile conservation, scores): a cheat or a bug."""


class RunFailed(HarnessError):
    """A run (or a command's work) cannot finish: storage, a cluster, chunks that keep
    failing. The input was fine; the CLI exits with status 1, not 2 (bad input)."""


def describe_exit(code: int | None) -> str:
    """How a process ended, for a line: ``exit code 3``, ``killed by SIGSEGV``."""
    import signal

    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 chunk``, ``2 chunks``, ``1,200 games``: a count and its noun, as people write
    it (``words``: an irregular plural; default ``word + "s"``)."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


# -- deprecated spellings -----------------------------------------------------------------
class Deprecated(FutureWarning):
    """An old spelling (``games:``, ``--games``) that still works; shown once, one line
    (``harness`` prints it as ``Deprecated: ...``: see :mod:`harness.commands.common`)."""


def deprecated(text: str) -> None:
    """Say once (per spelling, per process) that an old spelling is deprecated.

    A warning of its own category, not a print: Python shows it once on stderr, and a
    program (or a test) that embeds harness can filter or record it.
    """
    warnings.warn(text, Deprecated, stacklevel=2)


GAMES_RENAMED = "{old} is now {new} (it counts deals per table); {old} still works for now"
