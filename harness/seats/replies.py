"""What the parent makes of an isolated seat's replies: plain data, decoded, never unpickled.

The child (:mod:`harness.seats.isolation`) sends JSON; :func:`decode` turns a reply into
the value handed to the engine (or the plugin's exception, as a :class:`RemoteError`),
in the shapes the protocol allows, and raises :class:`SeatProtocolError` for anything
else. The exceptions a seat process raises in the parent live here too.
"""

from __future__ import annotations

import json
from typing import Any

from harness.errors import safe_text

TRACEBACK_LIMIT = 8000
"""Characters of a plugin's traceback kept (the end, where the error is)."""


# -- what the parent makes of a child's answers --------------------------------------------
# An answer crosses the pipe as plain JSON data with the same meaning for the engine's
# checks (engine.plain_int and friends) and the same repr in its messages, so that a
# forfeit reads the same in-process and isolated:
#   5, true, 4.5, null             exactly that (an exact int, a bool, a float, None)
#   [tile, victim]                 a Claim
#   {"int": 5, "repr": "..."}      an int-like (int subclass, numpy int) by its real value
#   {"big": bits, "neg": false}    an int too large to send (only its size is ever shown)
#   {"pair": [a, b], "repr": ...}  another 2-tuple (each element as above)
#   {"refused": "..."}             no int, bool or claim at all: only its repr
#   {"bad": [type, text, tb]}      reading the answer raised (its __index__, say)
class Refused:
    """An answer with no plain value: the engine refuses it, showing the plugin's repr."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


class _ShownInt(int):
    """An int-like answer by its real value, with the repr the plugin's object had."""

    shown = ""

    def __repr__(self) -> str:
        return self.shown


class _ShownTuple(tuple):  # type: ignore[type-arg]
    """A 2-tuple answer to claim() (not a Claim), with the plugin's repr."""

    shown = ""

    def __repr__(self) -> str:
        return self.shown


class _Unreadable:
    """An answer whose reading raised in the child: reading it here raises the same."""

    __slots__ = ("error",)

    def __init__(self, error: RemoteError) -> None:
        self.error = error

    def __index__(self) -> int:
        raise self.error

    def __repr__(self) -> str:
        return "<unreadable answer>"


class RemoteError(Exception):
    """An exception a plugin raised in its process, re-raised in the parent.

    Its type name is the plugin's exception type name (a subclass is made per name), so
    the engine's StrategyFailed reads as in-process; ``remote_traceback`` is the
    plugin's traceback as text (``harness play --traceback`` prints it).
    """

    remote_traceback: str = ""


_REMOTE_TYPES: dict[str, type[RemoteError]] = {}


def remote_error(name: str, message: str, tb: str) -> RemoteError:
    """A RemoteError whose type is named ``name`` (bounded), carrying message and traceback."""
    name = safe_text(name, 100) or "Exception"
    cls = _REMOTE_TYPES.get(name)
    if cls is None:
        cls = type(name, (RemoteError,), {"__module__": "harness.seats.isolation.remote"})
        if len(_REMOTE_TYPES) < 1000:  # a child inventing names must not grow memory
            _REMOTE_TYPES[name] = cls
    exc = cls(message)
    # Lone surrogates (which JSON can carry) cannot be printed or stored as UTF-8.
    exc.remote_traceback = tb[-TRACEBACK_LIMIT:].encode("utf-8", "backslashreplace").decode()
    return exc


class SeatTimeout(Exception):
    """The child did not answer within the time allowed."""


class SeatDied(Exception):
    """The child's process ended (or closed its socket); ``str()`` says how."""


class SeatProtocolError(Exception):
    """The child sent something that is not a message of the protocol."""


_MAX_BITS = 1 << 20


def _texts(value: Any, n: int) -> bool:
    return type(value) is list and len(value) == n and all(type(v) is str for v in value)


def _decode_scalar(value: Any) -> Any:
    kind = type(value)
    if kind is int or kind is bool or kind is float or value is None:
        return value
    if kind is dict:
        keys = value.keys()
        if keys == {"int", "repr"} and type(value["int"]) is int and type(value["repr"]) is str:
            shown = _ShownInt(value["int"])
            shown.shown = safe_text(value["repr"], 200)
            return shown
        if keys == {"big", "neg"} and type(value["big"]) is int:
            bits = value["big"]
            if 0 < bits <= _MAX_BITS and type(value["neg"]) is bool:
                big = 1 << (bits - 1)
                return -big if value["neg"] else big
        if keys == {"refused"} and type(value["refused"]) is str:
            return Refused(safe_text(value["refused"], 200))
    raise SeatProtocolError("an answer that is not plain data")


def _decode_value(value: Any) -> Any:
    """An answer in the shapes the protocol allows, as the parent hands it to the engine."""
    kind = type(value)
    if kind is list and len(value) == 2:
        tile, victim = _decode_scalar(value[0]), _decode_scalar(value[1])
        if type(tile) is int and (victim is None or type(victim) is int):
            from harness.game.view import Claim

            return Claim(tile, victim)
        raise SeatProtocolError("a claim that is not two plain ints")
    if kind is dict and value.keys() == {"pair", "repr"} and type(value["repr"]) is str:
        pair = value["pair"]
        if type(pair) is list and len(pair) == 2:
            shown = _ShownTuple((_decode_scalar(pair[0]), _decode_scalar(pair[1])))
            shown.shown = safe_text(value["repr"], 200)
            return shown
    if kind is dict and value.keys() == {"bad"} and _texts(value["bad"], 3):
        name, text, tb = value["bad"]
        return _Unreadable(remote_error(name, safe_text(text), tb[-TRACEBACK_LIMIT:]))
    return _decode_scalar(value)


_SIMPLE = {b"true": True, b"false": False, b"null": None}


def decode(body: bytes, seq: int) -> tuple[str, Any]:
    """("ok", value) or ("err", RemoteError) from a child's reply; protocol errors raise."""
    # The usual reply, b'[7,"ok",5]', read without the json module (a third of its cost).
    head = b'[%d,"ok",' % seq
    if body.startswith(head) and body.endswith(b"]"):
        value = body[len(head) : -1]
        if value in _SIMPLE:
            return "ok", _SIMPLE[value]
        if 0 < len(value) < 16 and value.isdigit():
            return "ok", int(value)
    try:
        message = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise SeatProtocolError(f"unreadable JSON ({type(exc).__name__})") from None
    if type(message) is not list or len(message) < 2 or message[0] != seq:
        raise SeatProtocolError("a reply out of sequence")
    status = message[1]
    if status == "ok" and len(message) == 3:
        return "ok", _decode_value(message[2])
    if status == "err" and len(message) == 5 and all(type(m) is str for m in message[2:]):
        name, text, tb = message[2:]
        return "err", remote_error(name, safe_text(text), tb[-TRACEBACK_LIMIT:])
    raise SeatProtocolError("a reply the harness does not know")
