"""When the diff's answer is settled: a group-sequential rule on B's gain per game.

Without ``--deals``, the diff plays up to :data:`MAX_DEALS` deals but looks at what it has
at fixed deal counts (:func:`looks`: 20, 40, 80, 160, 320, then every 320, and the
maximum) and stops at the first look where the answer is settled:

* **separated**: the interval of B's gain per game (clustered by deal, Student t on
  deals - 1 degrees of freedom) at the level ``1 - ALPHA / K`` excludes 0, where K is
  the number of looks: B (or A) is better;
* **equivalent**: that interval lies within +-:data:`DELTA` worms of swing per game: A and
  B are alike to within :data:`DELTA` (a bot against itself, or two versions that part
  only where it hardly matters);
* otherwise it goes on, and at the maximum says what the same interval says there
  (separated, or not separated).

Either answer before the maximum needs :data:`MIN_PARTED` deals where the bots parted:
with fewer, the interval's spread is not known well enough (a handful of deals carry
every gain; in the extreme, none yet: two bots that never part play every deal to say
they are identical on them).

The error rates (Bonferroni over the K looks, so they hold however the looks are
correlated, as far as each interval is right): it says *separated* when the true gain
is 0 with probability at most ALPHA (5%); it says *equivalent* when the true gain is
DELTA or more (either way) at most ALPHA / 2 each way. Where the partings are rare and
their gains of one sign, the t interval of a few deals leans to one side, so the 5% of a
false separation is not split evenly between naming A and naming B.
``benchmarks/diff_stopping.py`` checks them by simulation from the deals of real diffs
(resampled, each parting's gain moved to a chosen true gain): at a true 0, 2.2 to 4.4%
separated over six pairs of bots (at most 4.4% on one side); at +-DELTA, at most 1.8%
equivalent; as played, the answer of the full 500 deals every time (docs/coach.md).

A fixed ``--deals N`` plays N deals and looks once, with the report's plain 95% interval.
Pure: plain values in, plain values out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.stats import Moments
from harness.stats.intervals import t_quantile

MAX_DEALS = 500  # the most a diff plays without --deals
FIRST_LOOK = 20
EVERY = 320  # looks after the doubling ones: every this many deals
ALPHA = 0.05  # the rule's error rate of a separation at a true gain of 0, over all looks
DELTA = 0.05  # worms of swing per game: a difference smaller than this is no difference
#: The same in chances to win: 0.2 points of win share per game (one worm of swing moves a
#: two-player chance by about 0.04 at a game's start: 0.05 worm ~ 0.002).
WIN_DELTA = 0.002
DELTAS = {"worms": DELTA, "win": WIN_DELTA}
#: What a figure per game is, by unit, in the rule's words.
PER_GAME = {"worms": "worms", "win": "points of win share"}
MIN_PARTED = 20  # deals with a parting before the rule may stop early


def looks(max_deals: int = MAX_DEALS) -> list[int]:
    """The deal counts at which the rule looks, the last one ``max_deals``."""
    found, n = [], FIRST_LOOK
    while n < max_deals:
        found.append(n)
        n = n * 2 if n < EVERY else n + EVERY
    return [*found, max_deals]


@dataclass(frozen=True)
class Look:
    """What the rule saw at one look: the deals, B's gain per game and its interval at
    the rule's level, and the answer (``separated``, ``equivalent``, ``identical``, ``not
    separated`` at the maximum, or None: not yet)."""

    deals: int
    estimate: float
    low: float
    high: float
    level: float
    settled: str | None


def look(
    gains: Sequence[float],
    games: Sequence[float],
    count: int,
    last: bool,
    parted: int,
    delta: float = DELTA,
) -> Look:
    """The rule at one of ``count`` looks, from B's gain and the games per deal and the
    number of deals with a parting (``last``: the maximum, where it says what it sees);
    ``delta``: the indifference zone in the gain's unit (:data:`DELTAS`)."""
    m = Moments.of(gains, games)
    level = 1 - ALPHA / count
    estimate = m.estimate
    if parted == 0 and m.deals >= 1:  # not one parting: identical so far
        low = high = 0.0
    else:
        se = m.se
        if se != se:  # fewer than two deals with games
            return Look(len(gains), estimate, float("nan"), float("nan"), level, None)
        t = t_quantile(level, m.deals - 1)
        low, high = estimate - t * se, estimate + t * se
    settled = None
    if not last and parted < MIN_PARTED:
        settled = None  # too few deals where they parted to judge the spread
    elif parted == 0:
        settled = "identical"
    elif low > 0 or high < 0:
        settled = "separated"
    elif low > -delta and high < delta:
        settled = "equivalent"
    elif last:
        settled = "not separated"
    return Look(len(gains), estimate, low, high, level, settled)


def says(found: Look, unit: str = "worms") -> str:
    """The rule's answer in words, for the report's verdict."""
    if found.settled == "separated":
        better = "B" if found.low > 0 else "A"
        return (
            f"{better} is better (sequential rule: at most {ALPHA:.0%} error over all looks; "
            f"stopped at {found.deals:,} deals)"
        )
    if found.settled == "identical":
        return f"identical: A and B never decide differently on these {found.deals:,} deals"
    if found.settled == "equivalent":
        delta = DELTAS[unit] * (100 if unit == "win" else 1)
        return (
            f"alike: within {delta:g} {PER_GAME[unit]} per game of each other (sequential "
            f"rule; stopped at {found.deals:,} deals)"
        )
    return f"not separated after {found.deals:,} deals (sequential rule)"


__all__ = [
    "ALPHA",
    "DELTA",
    "DELTAS",
    "PER_GAME",
    "WIN_DELTA",
    "MAX_DEALS",
    "MIN_PARTED",
    "Look",
    "look",
    "looks",
    "says",
]
