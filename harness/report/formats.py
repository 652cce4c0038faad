"""Numbers as the report's text: percentages, intervals, points and counts.

One format per kind of number, shared by the report files, the terminal's tables and the
summary's messages, so a number reads alike wherever it is shown. None (an undefined
number) is always a dash, :data:`DASH`.
"""

from __future__ import annotations

import math

DASH = "—"


# -- number formatting: None (an undefined number) is always a dash ----------------------
def pct(value: float | None, digits: int = 1) -> str:
    return DASH if value is None or math.isnan(value) else f"{value * 100:.{digits}f}%"


def num(value: float | None, digits: int = 2, sign: bool = False) -> str:
    if value is None or math.isnan(value):
        return DASH
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


# Every interval of every table (files and terminal) is written one way: ``low to high``,
# with the digits and sign of its estimate (``79.1 to 82.5%``, ``11.50 to 12.00``,
# ``+265 to +301``): a dash between two signed numbers (``-917–-884``) reads as a sign.
def span(low: float | None, high: float | None, fmt: str = "pct", digits: int | None = None) -> str:
    """An interval as ``low to high`` (``pct``: ``79.1 to 82.5%``; ``num``: ``11.50 to
    12.00``); a dash when undefined."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return DASH
    if fmt == "pct":
        d = 1 if digits is None else digits
        return f"{low * 100:.{d}f} to {high * 100:.{d}f}%"
    d = 2 if digits is None else digits
    return f"{num(low, d)} to {num(high, d)}"


def signed_span(low: float | None, high: float | None, scale: float, digits: int) -> str:
    """An interval of a signed figure (a difference, a rating), signs shown: ``-1.2 to
    +3.4``."""
    if low is None or high is None:
        return DASH
    return f"{num(low * scale, digits, sign=True)} to {num(high * scale, digits, sign=True)}"


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
    return DASH if share is None or math.isnan(share) else f"{share * 100:+.1f} pts"


def count(value: float | None) -> str:
    return DASH if value is None else f"{int(value):,}"
