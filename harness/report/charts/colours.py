"""The strategies' colours in charts: apart from each other, from black and from white.

A run's charts (and a comparison's) colour every strategy by :func:`colours_for` the set
of names they show, so that **no two of them share a colour or a near-colour**: the
distance between two colours is CIEDE2000 (:func:`delta_e`, the CIE's colour-difference
formula of 2000, on CIELAB of sRGB under D65), and

* built-ins keep their fixed colours (:data:`BUILTIN_COLOURS`) in every run;
* any other name takes a colour of :data:`PALETTE` picked by a stable hash of its name
  (:func:`strategy_colour`), so it keeps that colour from run to run, unless another
  name of the same set came first (in name order) to it: then the next free colour of
  its own hash order. Versions of one bot (``bot-v1``, ``bot-v2``) thus never share one.

Every colour of :data:`BUILTIN_COLOURS` and :data:`PALETTE` is at least
:data:`MIN_DISTANCE` from every other one, at least :data:`FROM_BLACK` from black (the
error bars and caps are black) and :data:`FROM_WHITE` from white (the background), with
a WCAG contrast of 3:1 on white; tests/report/test_report_colours.py checks all of it. That
holds for any set of the 9 built-ins and up to 15 other names (the palette's 16th
colour became ``win-optimal``'s: no 17th colour is that far from all 24); a set with more other
names (a run may have 64 entrants) goes on with :data:`MORE_COLOURS`, each still
:data:`MORE_DISTANCE` from every colour before it. The palettes were chosen by a
farthest-point search over the sRGB colours that meet the black, white and contrast
bounds (a 32-step grid), 24 then 40 more.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable

# Built-in strategies keep these colours in every chart of every run (contract 8).
BUILTIN_COLOURS = {
    "random": "#767676",
    "greedy": "#1f6fb4",
    "threshold": "#d55e00",
    "worm-first": "#2e8b3a",
    "simple": "#7b3fa0",
    "env-heuristic": "#8c5a2b",
    "tactician": "#c2185b",
    "optimal": "#00838f",
    "win-optimal": "#c08800",  # taken from PALETTE when it became a built-in (issue 32)
}
# Every other name: one of these, by a stable hash of its display name.
PALETTE = (
    "#d040f8",
    "#c07870",
    "#8888f8",
    "#80a000",
    "#585800",
    "#9878a0",
    "#805858",
    "#006040",
    "#e80028",
    "#2000a8",
    "#30a088",
    "#3048f8",
    "#888050",
    "#f858a0",
    "#900000",
)
# Beyond 15 other names in one set: these, in this order.
MORE_COLOURS = (
    "#0098d0",
    "#606088",
    "#607860",
    "#c810a0",
    "#b08058",
    "#804068",
    "#286000",
    "#f86040",
    "#b83800",
    "#f82060",
    "#8860d8",
    "#7080a0",
    "#b06080",
    "#886800",
    "#9800f8",
    "#a84040",
    "#3888f8",
    "#2048a0",
    "#607818",
    "#786850",
    "#a09000",
    "#789860",
    "#206880",
    "#b080d8",
    "#28a800",
    "#008068",
    "#907878",
    "#c060b0",
    "#880078",
    "#a86048",
    "#006868",
    "#587070",
    "#608898",
    "#b06800",
    "#38a868",
    "#806078",
    "#5868c0",
    "#980030",
    "#588880",
    "#686840",
)
MIN_DISTANCE = 16.0  # CIEDE2000, between any two of BUILTIN_COLOURS and PALETTE
MORE_DISTANCE = 10.0  # CIEDE2000, from each of MORE_COLOURS to every colour listed before it
FROM_BLACK = 33.0  # CIEDE2000, every colour from black (the error bars)
FROM_WHITE = 35.0  # CIEDE2000, every colour from white (the background)


def _order(name: str) -> list[int]:
    """The palette's indices in the order ``name`` tries them (a sha256, not Python's
    ``hash``, which is salted per process): the first is its own colour."""
    key = name.encode("utf-8", "surrogatepass")
    first = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % len(PALETTE)
    return [(first + step) % len(PALETTE) for step in range(len(PALETTE))]


def strategy_colour(name: str) -> str:
    """The colour (hex) a strategy takes when no other strategy of its chart claims it.

    Built-ins have fixed colours; any other name is hashed onto :data:`PALETTE`. Charts
    use :func:`colours_for`, which keeps names of one set apart.
    """
    fixed = BUILTIN_COLOURS.get(name)
    return fixed if fixed is not None else PALETTE[_order(name)[0]]


def colours_for(names: Iterable[str]) -> dict[str, str]:
    """Each name's colour within one set (a run's entrants, or every run of a comparison):
    no two names share a colour, and every pair is at least :data:`MIN_DISTANCE` apart
    for up to 15 names that are not built-ins (:data:`MORE_DISTANCE` beyond)."""
    unique = sorted(set(names))
    out = {n: BUILTIN_COLOURS[n] for n in unique if n in BUILTIN_COLOURS}
    taken: set[str] = set()
    spill = iter(MORE_COLOURS)
    for name in (n for n in unique if n not in BUILTIN_COLOURS):
        free = next((PALETTE[i] for i in _order(name) if PALETTE[i] not in taken), None)
        if free is None:  # all 16 taken: the next of the longer list (or grey, past 64)
            free = next(spill, "#767676")
        taken.add(free)
        out[name] = free
    return out


# -- CIEDE2000 -----------------------------------------------------------------------------
def lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65 white) of an sRGB colour ``#rrggbb``."""
    rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """The CIEDE2000 colour difference of two CIELAB colours (kL = kC = kH = 1), as
    Sharma, Wu and Dalal (2005) give it."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh) / 2)
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if not c1p * c2p:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_c = 2 * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
    r_t = -math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))) * r_c
    return math.sqrt(
        (d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h)
    )


def delta_e(a: str, b: str) -> float:
    """CIEDE2000 between two sRGB colours ``#rrggbb``: the distance every bound here uses."""
    return ciede2000(lab(a), lab(b))
