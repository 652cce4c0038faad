"""Numbers as the report's text: percentages, intervals, points and counts.

One format per kind of number, shared by the report files, the terminal's tables and the
summary's messages, so a number reads alike wherever it is shown. None (an undefined
number) is always a dash, :data:`DASH`. A number that rounds to zero is written without
a sign (``0.00``, never ``-0.00``: a minus would read as a loss), and an interval is
written with the sign style of its estimate (``+3.78 (+3.34 to +4.22)``).
"""

from __future__ import annotations

import math

DASH = "—"


def _undefined(value: float | None) -> bool:
    return value is None or math.isnan(value)


def _shown(value: float | None, digits: int, sign: bool, scale: float = 1.0) -> str:
    """``value`` x ``scale`` as :func:`fixed` writes it; a dash when undefined."""
    if value is None or math.isnan(value):
        return DASH
    return fixed(value * scale, digits, sign)


def fixed(value: float, digits: int, sign: bool = False) -> str:
    """``value`` with ``digits`` decimals (a sign on request); a value that rounds to zero
    as plain zero, whatever its sign (``-0.0001`` is ``0.00``, not ``-0.00`` or
    ``+0.00``)."""
    text = f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"
    if float(text) == 0:
        return f"{0.0:.{digits}f}"
    return text


# -- number formatting: None (an undefined number) is always a dash ----------------------
def pct(value: float | None, digits: int = 1) -> str:
    return DASH if _undefined(value) else f"{_shown(value, digits, False, 100)}%"


def num(value: float | None, digits: int = 2, sign: bool = False) -> str:
    return _shown(value, digits, sign)


# Every interval of every table (files and terminal) is written one way: ``low to high``,
# with the digits and sign of its estimate (``79.1 to 82.5%``, ``11.50 to 12.00``,
# ``+265 to +301``): a dash between two signed numbers (``-917–-884``) reads as a sign.
def span(
    low: float | None,
    high: float | None,
    fmt: str = "pct",
    digits: int | None = None,
    sign: bool = False,
) -> str:
    """An interval as ``low to high`` (``pct``: ``79.1 to 82.5%``; ``num``: ``11.50 to
    12.00``); a dash when undefined. ``sign``: each end signed (``+3.34 to +4.22``), for
    the interval of a signed estimate."""
    if _undefined(low) or _undefined(high):
        return DASH
    if fmt == "pct":
        d = 1 if digits is None else digits
        return f"{_shown(low, d, sign, 100)} to {_shown(high, d, sign, 100)}%"
    d = 2 if digits is None else digits
    return f"{num(low, d, sign)} to {num(high, d, sign)}"


def signed_span(low: float | None, high: float | None, scale: float, digits: int) -> str:
    """An interval of a signed figure (a difference, a rating), signs shown: ``-1.2 to
    +3.4``."""
    if _undefined(low) or _undefined(high):
        return DASH
    return f"{_shown(low, digits, True, scale)} to {_shown(high, digits, True, scale)}"


def estimate(
    value: float | None,
    low: float | None,
    high: float | None,
    fmt: str = "num",
    digits: int | None = None,
    sign: bool = False,
) -> str:
    """An estimate with its interval in brackets, both in one style: ``80.8% (79.1 to
    82.5%)``, ``+3.78 (+3.34 to +4.22)``."""
    if fmt == "pct":
        shown = pct(value, 1 if digits is None else digits)
        if sign and shown != DASH and not shown.startswith(("-", "0.")):
            shown = "+" + shown
    else:
        shown = num(value, 2 if digits is None else digits, sign)
    return f"{shown} ({span(low, high, fmt, digits, sign)})"


def los_text(value: float | None) -> str:
    """A likelihood of superiority; never shown as a flat 0% or 100%."""
    if value is None or math.isnan(value):
        return DASH
    if value > 0.999:
        return ">99.9%"
    if value < 0.001:
        return "<0.1%"
    return pct(value)


def points(share: float | None) -> str:
    """A difference of shares in percentage points, signed: ``+1.2 pts``; a dash if undefined."""
    return DASH if _undefined(share) else f"{_shown(share, 1, True, 100)} pts"


def count(value: float | None) -> str:
    return DASH if value is None else f"{int(value):,}"
