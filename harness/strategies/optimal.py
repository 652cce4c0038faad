"""The optimal strategy: exact best play of each turn for the expected worm swing.

At the start of each turn it values every way the turn can end on the board it sees,
then plays the turn's exact dynamic programme (:mod:`harness.analysis.turn`) for those
values: which face to keep from each roll and when to stop are optimal, not estimated.

What an ending is worth (the *worm swing*: my worms against the average opponent's):

* a grill tile: its worms;
* a steal: its worms plus the victim's loss shared among the P - 1 opponents, so
  ``w * (1 + 1 / (P - 1))`` (twice the worms at two players);
* a bust (R9): minus my top tile's worms, and, with ``flip > 0``, minus ``flip`` times
  the worms of the grill tile the bust turns face down (lost to everyone; 0 by default).

End game (``endgame``): once the grill shows ``endgame`` tiles or fewer, worms gained
matter less than worms relative to the others, so an ending is worth its estimated
chance of winning the game instead: exactly 1, 1/k (a k-way shared first place) or 0
when it ends the game (R10, R11 with the highest-tile tie-break); otherwise, for each
opponent, the normal probability that my lead survives the worms still on the grill,
``Phi(lead / sqrt(spread * grill worms))``, multiplied over opponents. Leading, it
plays safe; trailing, it takes the risks that can still win. benchmarks/optimal_strength.py
measures what the refinement is worth.

Speed: a turn's programme is solved in about 0.3 ms (numpy, vectorised over the 34,395
roll outcomes of the turn's 1,293 rolling states) and cached by the values it was
solved for, shared by every instance in the process (4,096 turns, about 75 MB), so
repeated boards cost a few dictionary lookups; see benchmarks/optimal_speed.py.
Written against the public strategy API and the pure :mod:`harness.analysis.turn` only.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from math import erf, sqrt

from harness.analysis.turn import CHILD, EPS, LOOKUP, MAX_TOTAL, Payoff, solve_arrays
from harness.strategy import Bound, Claim, Rules, Strategy, View, claim_key, worms

_WORMS = [0] * 21 + [worms(t) for t in range(21, 37)] + [0] * (MAX_TOTAL - 36)
_NO = -1e300  # the value of a face that cannot be kept

# Solved turns shared by every instance: payoff -> (value per state, stop per state).
# Bounded (first in, first out): one entry is about 18 kB. The cache never changes a
# decision, only its cost: a payoff always solves to the same values.
_SOLVED: dict[tuple, tuple[array, bytes]] = {}
_SOLVED_MAX = 4096
# Boards seen -> (payoff, claim values), to skip building the payoff again. It holds
# no solved arrays, so that turns evicted from _SOLVED are freed.
_PLANS: dict[tuple, tuple] = {}
_PLANS_MAX = 16_384


def _solved(stop: tuple, bust: float) -> tuple[array, bytes]:
    key = (stop, bust)
    found = _SOLVED.get(key)
    if found is None:
        value, _, stops = solve_arrays(Payoff(stop, bust))
        found = (array("d", value.tobytes()), stops.tobytes())
        if len(_SOLVED) >= _SOLVED_MAX:
            del _SOLVED[next(iter(_SOLVED))]
        _SOLVED[key] = found
    return found


def _phi(x: float) -> float:
    return 0.5 * (1.0 + erf(x / sqrt(2.0)))


class Optimal(Strategy):
    """Plays each turn exactly optimally (dynamic programming) for the expected worm swing,
    steals and bust costs included; plays to win in the end game."""

    name = "optimal"
    bounds = {
        "endgame": Bound(0, 16),  # grill tiles (R1)
        "spread": Bound(0, 100, low_open=True),
        "flip": Bound(0, 100),
    }

    def __init__(self, endgame: int = 4, spread: float = 2.5, flip: float = 0.0) -> None:
        self.endgame = endgame
        self.spread = float(spread)
        self.flip = float(flip)
        self._value: array = array("d")
        self._stops: bytes = b""
        self._claims: dict[tuple[int, int | None], float] = {}
        self._rules = Rules()
        self._lower_any = False

    # -- decisions ---------------------------------------------------------------------
    def pick(self, view: View) -> int:
        if view.dice_left == 8:  # the first roll of a turn: plan the turn
            self._plan(view)
        value = self._value
        base = LOOKUP[view.kept_faces, view.dice_left, view.total] << 6
        counts = view.counts
        best = _NO
        face = 0
        for f in reversed(view.choices):  # higher face first: it keeps ties
            v = value[CHILD[base | f << 3 | counts[f] - 1]]
            if v > best + EPS:
                best = v
                face = f
        return face

    def stop(self, view: View) -> bool:
        return self._stops[LOOKUP[view.kept_faces, view.dice_left, view.total]] == 1

    def claim(self, view: View, choices: Sequence[Claim]) -> Claim:
        values = self._claims
        return max(choices, key=lambda c: (values.get((c.tile, c.victim), _NO), claim_key(c)))

    # -- planning a turn ---------------------------------------------------------------
    def _plan(self, view: View) -> None:
        self._rules = rules = view.rules
        self._lower_any = rules.lower_tile == "any"
        key = self._plan_key(view)
        plan = _PLANS.get(key)
        if plan is None:
            claims, bust = self._ending_values(view)
            plan = (self._stop_values(view.grill, view.tops, view.seat, claims), bust, claims)
            if len(_PLANS) >= _PLANS_MAX:
                _PLANS.clear()
            _PLANS[key] = plan
        stop, bust, self._claims = plan
        self._value, self._stops = _solved(stop, bust)

    def _plan_key(self, view: View) -> tuple:
        """What the turn's values depend on: the cache key of its plan."""
        if len(view.grill) <= self.endgame:
            return (view.grill, view.tops, view.seat, view.rules, view.scores, view.stacks,
                    self.endgame, self.spread)  # fmt: skip
        return (view.grill, view.tops, view.seat, view.rules, self.flip)

    def _ending_values(self, view: View) -> tuple[dict, float]:
        """The value of each claim ``(tile, victim)`` and of the bust, for this turn."""
        if len(view.grill) <= self.endgame:
            return self._win_values(view.grill, view.tops, view.seat, view.scores, view.stacks)
        return self._swing_values(view.grill, view.tops, view.seat)

    def _stop_values(
        self, grill: tuple[int, ...], tops: tuple, seat: int, claims: dict
    ) -> tuple[float | None, ...]:
        """The best claim's value at each total (R7), None where a stop claims nothing."""
        stop: list[float | None] = [None] * (MAX_TOTAL + 1)
        lower_any = self._lower_any
        current = None
        j = 0
        for total in range(grill[0], MAX_TOTAL + 1):
            while j < len(grill) and grill[j] <= total:  # the grill tiles <= total
                value = claims[grill[j], None]
                if not lower_any or current is None or value > current:
                    current = value  # the highest tile (R7), or the best of any (variant)
                j += 1
            stop[total] = current
        for victim, top in enumerate(tops):
            if top is not None and victim != seat:
                value = claims[top, victim]
                if stop[top] is None or value > stop[top]:
                    stop[top] = value
        return tuple(stop)

    def _bust_board(self, grill: tuple[int, ...], own_top: int | None) -> tuple[tuple, int | None]:
        """The grill after my bust and the tile turned face down, by R9 and its variants."""
        rules = self._rules
        after = set(grill)
        if own_top is not None:
            after.add(own_top)
        turned = None
        if after and rules.bust_flip != "none" and (own_top is not None or rules.flip_without_tile):
            target = max(after) if rules.bust_flip == "highest" else min(after)
            if target != own_top or rules.returned_tile == "flip":
                after.discard(target)
                turned = target
        return tuple(sorted(after)), turned

    def _swing_values(self, grill: tuple[int, ...], tops: tuple, seat: int) -> tuple[dict, float]:
        share = 1.0 + 1.0 / (len(tops) - 1)  # a steal: the victim's loss, shared by rivals
        claims: dict[tuple[int, int | None], float] = {(t, None): float(_WORMS[t]) for t in grill}
        for victim, top in enumerate(tops):
            if top is not None and victim != seat:
                claims[top, victim] = _WORMS[top] * share
        own = tops[seat]
        bust = -float(_WORMS[own] if own else 0)
        if self.flip:
            _, turned = self._bust_board(grill, own)
            if turned is not None:
                bust -= self.flip * _WORMS[turned]
        return claims, bust

    # -- the end game -------------------------------------------------------------------
    def _win_values(
        self, grill: tuple[int, ...], tops: tuple, seat: int, scores: tuple, stacks: tuple
    ) -> tuple[dict, float]:
        highest = [max(s) if s else 0 for s in stacks]
        claims: dict[tuple[int, int | None], float] = {}
        for t in grill:
            new_scores = list(scores)
            new_scores[seat] += _WORMS[t]
            new_high = list(highest)
            new_high[seat] = max(new_high[seat], t)
            left = tuple(x for x in grill if x != t)
            claims[t, None] = self._win_chance(seat, new_scores, new_high, left)
        for victim, top in enumerate(tops):
            if top is not None and victim != seat:
                new_scores = list(scores)
                new_scores[seat] += _WORMS[top]
                new_scores[victim] -= _WORMS[top]
                new_high = list(highest)
                new_high[seat] = max(new_high[seat], top)
                new_high[victim] = max(stacks[victim][:-1], default=0)
                claims[top, victim] = self._win_chance(seat, new_scores, new_high, grill)
        own = tops[seat]
        after, _ = self._bust_board(grill, own)
        new_scores = list(scores)
        new_high = list(highest)
        if own is not None:
            new_scores[seat] -= _WORMS[own]
            new_high[seat] = max(stacks[seat][:-1], default=0)
        return claims, self._win_chance(seat, new_scores, new_high, after)

    def _win_chance(
        self, seat: int, scores: list[int], highest: list[int], grill: tuple[int, ...]
    ) -> float:
        """My chance to win from these scores with ``grill`` left face up (R10, R11)."""
        mine = scores[seat]
        if not grill:  # the game is over: R11 decides (equal keys: players with no tiles)
            key = (mine, highest[seat])
            keys = list(zip(scores, highest, strict=True))
            return 0.0 if any(k > key for k in keys) else 1.0 / keys.count(key)
        sigma = sqrt(self.spread * sum(_WORMS[t] for t in grill))
        chance = 1.0
        for other, score in enumerate(scores):
            if other != seat:
                chance *= _phi((mine - score) / sigma)
        return chance
