"""Luck and skill, exactly: the account of every turn, which sums to the turn's result.

The payoff. A turn's ending is worth its *worm swing* to the player whose turn it is: the
change of that player's margin, where a player's margin is their worms minus the mean of
the other players' worms. A grill tile is worth its worms; a steal its worms times
P/(P - 1) (the victim's loss is shared by the P - 1 others: twice the worms at two
players); a bust (R9) minus the worms of the player's top tile (the tile it turns face
down belongs to nobody: worth 0). This is the payoff ``optimal`` maximises (with its
defaults, outside its end game), and it is exactly the change of the turn-taker's margin.

The values. The turn's exact programme (:mod:`harness.analysis.turn`) for that payoff
gives every state of the turn its value under best play: ``value[i]`` having just kept
(before the stop-or-roll decision), ``roll[i]`` rolling on from i. Then, exactly:

* **par** of a turn = ``roll[START]``: what the turn is worth before its first roll;
* **luck** of a roll = V*(roll) - ``roll[state]``, with V* the best keep's value (the
  bust value when the roll shows no new face, R5). ``roll[state]`` is the mean of V*
  over the exact multinomial distribution of the dice left, so luck has mean zero given
  everything before the roll, whoever decides;
* **regret** of a decision = the best option's value - the chosen option's value, >= 0:
  a pick (``value`` of each keep), a stop or a roll on (``value[state]`` against the stop's
  value or ``roll[state]``), a claim (the best claim's value against the one taken).

Telescoping over the turn gives **swing = par + sum(luck) - sum(regret)** for every turn,
to float rounding (about 1e-15 a term). With two players the game's worm margin is the
sum of the turn swings (A's minus B's), so margin = (par + luck - regret of A's turns) -
(the same of B's turns). With three or more, each turn's identity still holds for the
turn-taker's margin; a seat's game margin also moves on the others' turns (their claims
and steals), which are accounted to them. docs/luck.md has the maths and what it does not
say: skill is measured against the turn-optimal policy for the worm swing, not against
the game-optimal policy.

The win-weighted luck of a turn is its luck times ``k``, the slope of a simple model of
the turn-taker's chance to win, taken at the turn's start (before its first roll, so the
product keeps mean zero): P(win) = prod over the others of Phi(lead / sigma), sigma =
sqrt(2.5 * worms face up on the grill), and k its derivative in the player's own worms
(phi(lead / sigma) / sigma with two players).

Both engines compute this account during play, with the same floats in the same order
(harness/native/c/account.inc.c mirrors :class:`Accountant`), so the stored sums agree bit
for bit. Pure computation plus a game observer; no I/O.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from math import exp, pi, sqrt
from typing import Any

from harness.analysis.turn import (
    CHILD,
    MAX_TOTAL,
    START,
    STATES,
    WORM_BIT,
    Payoff,
    solve_arrays,
)
from harness.game.board import Board, Claim, legal_claims, mask_of, tiles_of
from harness.game.engine import GameObserver
from harness.game.rules import LOWEST_TILE, TILES, Rules, worms
from harness.runfolder.schema import ACCOUNT_FIELDS

_WORMS = [0] * LOWEST_TILE + [worms(t) for t in TILES] + [0] * (MAX_TOTAL - TILES[-1])
#: The spread of the win model behind the win-weighted luck: sigma^2 per worm on the grill
#: (``optimal``'s default ``spread``).
WIN_SPREAD = 2.5
_INV_SQRT_2PI = 1.0 / sqrt(2.0 * pi)


def steal_share(players: int) -> float:
    """What a steal of one worm is worth to the thief's margin: 1 + 1 / (P - 1)."""
    return 1.0 + 1.0 / (players - 1)


def claim_value(claim: Claim | tuple[int, int | None], players: int) -> float:
    """What a claim (R7) is worth to the thief's margin, the worm swing: a grill tile its
    worms, a steal its worms times :func:`steal_share`."""
    tile, victim = claim
    return float(_WORMS[tile]) if victim is None else _WORMS[tile] * steal_share(players)


def swing_payoff(
    grill: Sequence[int], tops: Sequence[int], seat: int, lower_any: bool
) -> tuple[tuple[float | None, ...], float]:
    """The worm-swing payoff of ``seat``'s turn: (stop value per total 0..40, bust value).

    ``grill``: the face-up tiles, ascending; ``tops[v]``: seat v's top tile, 0 for none.
    A stop at total s is worth the :func:`claim_value` of the best claim R7 offers there
    (:func:`harness.game.board.legal_claims`), None where it offers none; ``lower_any``
    adds only lower grill tiles, never worth more worms, so it changes no value. The same
    values as ``optimal``'s plan with ``flip=0``.
    """
    return board_payoff(mask_of(grill), tuple(tops), seat)


def board_payoff(grill: int, tops: tuple[int, ...], seat: int) -> tuple[tuple, float]:
    """:func:`swing_payoff` of a board as the game keeps it (``grill`` a bit mask, bit t
    = tile t).

    R7's claims are the grill's (they depend on the grill alone) and the steals (on the
    tops alone), so each part is asked of :func:`harness.game.board.legal_claims` once
    per grill and once per set of tops, and cached: grills and tops repeat from game to
    game far more than whole boards do.
    """
    stop = _GRILL_PAYOFFS.get(grill)
    if stop is None:
        stop = _GRILL_PAYOFFS[grill] = _claim_values(0, grill, (), 0.0)
        _bound(_GRILL_PAYOFFS)
    key = (tops, seat)
    steals = _STEAL_PAYOFFS.get(key)
    if steals is None:
        values = _claim_values(seat, 0, tops, steal_share(len(tops)))
        steals = _STEAL_PAYOFFS[key] = tuple((s, v) for s, v in enumerate(values) if v)
        _bound(_STEAL_PAYOFFS)
    if steals:
        merged = list(stop)
        for total, value in steals:
            if merged[total] is None or value > merged[total]:
                merged[total] = value
        stop = tuple(merged)
    own = tops[seat]
    return stop, -float(_WORMS[own] if own else 0)


def _claim_values(seat: int, grill: int, tops: tuple[int, ...], share: float) -> tuple:
    """The :func:`claim_value` of the best claim R7 offers at each total 0..40 (None: no
    claim): legal_claims puts the best first (a steal before a grill tile it outworms)."""
    values: list[float | None] = [None] * LOWEST_TILE  # no tile is lower (R1)
    for total in range(LOWEST_TILE, MAX_TOTAL + 1):
        claims = legal_claims(seat, total, True, grill, tops, False)
        if claims:
            tile, victim = claims[0]
            values.append(_GRILL_VALUE[tile] if victim is None else _WORMS[tile] * share)
        else:
            values.append(None)
    return tuple(values)


def _bound(cache: dict) -> None:
    """First in, first out: a cache never changes a value, only its cost."""
    if len(cache) > _PAYOFFS_MAX:
        del cache[next(iter(cache))]


def win_slope(scores: Sequence[int], seat: int, grill_worms: int) -> float:
    """k: d/dx of prod_{j != seat} Phi((scores[seat] + x - scores[j]) / sigma) at x = 0,
    sigma = sqrt(WIN_SPREAD * grill_worms): how much one worm of swing moves the seat's
    chance to win, by the simple win model. 0 when no worm is left on the grill."""
    if grill_worms <= 0:
        return 0.0
    sigma = sqrt(WIN_SPREAD * grill_worms)
    mine = scores[seat]
    dens = []
    cdfs = []
    for other, score in enumerate(scores):
        if other != seat:
            z = (mine - score) / sigma
            dens.append(exp(-0.5 * z * z) * _INV_SQRT_2PI / sigma)
            cdfs.append(_phi_cdf(z))
    slope = 0.0
    for j, d in enumerate(dens):
        term = d
        for m, c in enumerate(cdfs):
            if m != j:
                term *= c
        slope += term
    return slope


def _phi_cdf(z: float) -> float:
    from math import erf

    return 0.5 * (1.0 + erf(z / sqrt(2.0)))


# -- solved turns ---------------------------------------------------------------------
# payoff -> (value per state, roll value per state), shared by every accountant of the
# process. Bounded first in, first out: a cache never changes a value, only its cost.
_SOLVED: dict[tuple, tuple[array, array]] = {}
_SOLVED_MAX = 8192
# board_payoff's parts: grill mask -> stop value per total; (tops, seat) -> the steals'
# (total, value) pairs. A grill part is 41 shared floats (~0.4 kB): 16,384 of them ~7 MB.
_GRILL_PAYOFFS: dict[int, tuple[float | None, ...]] = {}
_STEAL_PAYOFFS: dict[tuple, tuple[tuple[int, float], ...]] = {}
_PAYOFFS_MAX = 16384
_GRILL_VALUE = tuple(float(w) for w in _WORMS)  # a grill tile's claim_value, shared floats
_stats = {"hits": 0, "misses": 0}


def solved(stop: tuple, bust: float) -> tuple[array, array]:
    """(value, roll) of every state for the payoff (stop, bust), from the cache."""
    key = (stop, bust)
    found = _SOLVED.get(key)
    if found is not None:
        _stats["hits"] += 1
        return found
    _stats["misses"] += 1
    value, roll, _ = solve_arrays(Payoff(stop, bust))
    found = (array("d", value.tobytes()), array("d", roll.tobytes()))
    if len(_SOLVED) >= _SOLVED_MAX:
        del _SOLVED[next(iter(_SOLVED))]
    _SOLVED[key] = found
    return found


def cache_stats() -> dict[str, int]:
    """Hits and misses of the solved-turn cache in this process (for benchmarks)."""
    return dict(_stats)


# -- what is stored -------------------------------------------------------------------
@dataclass
class Ledger:
    """One seat's account over a game: sums over its turns, rolls and decisions.

    ``par``, ``luck``, ``wluck`` (win-weighted luck) and the regrets are in worms of
    swing (``wluck`` in units of win chance); ``rolls`` counts rolls, ``picks``, ``stops``
    and ``claims`` the decisions that offered a choice (two faces or more, a stop that
    could claim with dice left, two claims or more). Forced moves add 0 regret.
    """

    turns: int = 0
    par: float = 0.0
    luck: float = 0.0
    wluck: float = 0.0
    regret_pick: float = 0.0
    regret_stop: float = 0.0
    regret_claim: float = 0.0
    rolls: int = 0
    picks: int = 0
    stops: int = 0
    claims: int = 0

    @property
    def regret(self) -> float:
        return self.regret_pick + self.regret_stop + self.regret_claim

    @property
    def skill(self) -> float:
        """Minus the regret: what the seat's decisions cost (0 at best play)."""
        return -self.regret

    @property
    def decisions(self) -> int:
        return self.picks + self.stops + self.claims


# -- the details, for people (analyze game, coach, hints) -------------------------------
@dataclass(frozen=True)
class Option:
    """One option of a decision and its exact value (worms of swing)."""

    move: Any  # a face (pick), "stop" / "roll" (stop), a (tile, victim) pair (claim)
    value: float


@dataclass(frozen=True)
class Decision:
    """A decision of a turn: its kind, the state it was taken in, every option with its
    value (best first), what was chosen and its regret."""

    kind: str  # "pick", "stop" or "claim"
    state: int  # the turn state (harness.analysis.turn.STATES index) it was taken in
    options: tuple[Option, ...]
    chosen: Any
    regret: float

    @property
    def best(self) -> Option:
        return self.options[0]

    @property
    def choice(self) -> bool:
        """True when there was more than one option."""
        return len(self.options) > 1


@dataclass(frozen=True)
class RollLuck:
    """A roll: its faces, what it was worth at best (V*), its expected worth and luck."""

    faces: tuple[int, ...]
    state: int
    best: float
    expected: float

    @property
    def luck(self) -> float:
        return self.best - self.expected


@dataclass
class TurnAccount:
    """One turn's account: par, every roll's luck, every decision's regret, the swing."""

    turn: int
    seat: int
    par: float
    slope: float  # k of the win model at the turn's start
    grill: tuple[int, ...]
    tops: tuple[int, ...]
    rolls: list[RollLuck] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    swing: float | None = None  # the realised swing; None for a turn cut short
    end: str = ""  # "claim", "steal", "bust" or "" (cut short)

    @property
    def luck(self) -> float:
        return sum(r.luck for r in self.rolls)

    @property
    def regret(self) -> float:
        return sum(d.regret for d in self.decisions)

    @property
    def residual(self) -> float:
        """swing - (par + luck - regret): 0 to float rounding for every finished turn."""
        if self.swing is None:
            return 0.0
        return self.swing - (self.par + self.luck - self.regret)


def claim_options(
    grill: Iterable[int], tops: Sequence[int], seat: int, total: int, lower_any: bool
) -> tuple[Option, ...]:
    """Every claim a stop at ``total`` (with a worm) may make, valued for the swing
    (:func:`claim_value`), best first: the claims R7 offers
    (:func:`harness.game.board.legal_claims`, in its order: the best swing first, the
    higher tile first). ``tops[v]``: seat v's top tile, 0 for none."""
    claims = legal_claims(seat, total, True, mask_of(grill), tops, lower_any)
    return tuple(Option((c.tile, c.victim), claim_value(c, len(tops))) for c in claims)


# -- the accountant -----------------------------------------------------------------------
class Accountant(GameObserver):
    """Keeps the luck and skill account of a game as it is played (an observer).

    It reads the board the game hands its observer (:meth:`GameObserver.handed`) at each
    turn's start, and the turn from the game's events: the same class accounts a game in
    play, a replayed record and a person's game. ``ledgers[seat]`` holds each seat's
    sums; with ``detail=True`` (or a ``listener``), ``turns`` holds every turn's
    :class:`TurnAccount` too.

    The order of the float operations is the native engine's (account.inc.c): change one,
    change both.
    """

    def __init__(
        self,
        rules: Rules,
        *,
        detail: bool = False,
        listener: Callable[[TurnAccount], None] | None = None,
    ) -> None:
        self.players = n = rules.players
        self.lower_any = rules.lower_tile == "any"
        self.ledgers = [Ledger() for _ in range(n)]
        self.turns: list[TurnAccount] = []
        self._detail = detail or listener is not None
        self._listener = listener
        self.board: Board | None = None  # the game's, handed over (never written here)
        self._grill: tuple[int, ...] = ()  # the turn's board, as it began
        self._tops: tuple[int, ...] = ()
        self._value: array = array("d")
        self._roll: array = array("d")
        self._stop: tuple = ()
        self._bust = 0.0
        self._state = START
        self._free = 0
        self._pending = -1  # the state a stop-or-roll decision is pending in, -1: none
        self._ledger = self.ledgers[0]
        self._k = 0.0
        self._current: TurnAccount | None = None
        self._seat = 0
        self._open = -1  # the seat whose turn is open (not ended by a claim or a bust)
        self._before = Ledger()

    # -- the board ----------------------------------------------------------------------
    def handed(self, board: Board) -> None:
        self.board = board

    def turn_started(self, turn: int, seat: int) -> None:
        self._close(None, "")
        board = self.board
        if board is None:
            raise RuntimeError("an Accountant hears a game that did not hand it its board")
        grill = self._grill = tiles_of(board.grill)
        tops = self._tops = tuple(board.tops)
        self._stop, self._bust = board_payoff(board.grill, tops, seat)
        self._value, self._roll = solved(self._stop, self._bust)
        self._state = START
        self._free = 0x7E  # faces 1-6 not yet set aside
        self._pending = -1
        self._seat = seat
        ledger = self._ledger = self.ledgers[seat]
        # What the seat had booked before this turn: a turn cut short (a forfeit) counts
        # for nothing, as the game's rows count it (nothing of a forfeit's turn counts).
        self._open, self._before = seat, replace(ledger)
        par = self._roll[START]
        ledger.turns += 1
        ledger.par += par
        self._k = win_slope(board.scores, seat, sum(_WORMS[t] for t in grill))
        if self._detail:
            self._current = TurnAccount(turn, seat, par, self._k, grill, tops)

    def _settle_pending(self, stopped: bool) -> None:
        """The pending stop-or-roll decision, now known (R6)."""
        i = self._pending
        if i < 0:
            return
        self._pending = -1
        value = self._value[i]
        here = self._stop_value(i)
        if here is None:  # no stop offered (R7): rolling on is no decision
            return
        chosen = here if stopped else self._roll[i]
        regret = value - chosen
        ledger = self._ledger
        ledger.regret_stop += regret
        ledger.stops += 1
        if self._current is not None:
            options = sorted(
                (Option("stop", here), Option("roll", self._roll[i])), key=lambda o: -o.value
            )
            self._current.decisions.append(
                Decision("stop", i, tuple(options), "stop" if stopped else "roll", regret)
            )

    def _stop_value(self, i: int) -> float | None:
        mask, left, total = STATES[i]
        if not mask & WORM_BIT or not left:
            return None
        return self._stop[total]

    def _rolled(self, roll_faces: tuple[int, ...], counts: Sequence[int], mask: int) -> float:
        """A roll in the current state: its luck booked; returns V* (the best keep's value,
        or the bust value for a roll with no new face)."""
        self._settle_pending(False)
        i = self._state
        new = mask & self._free
        value = self._value
        base = i << 6
        best = self._bust
        if new:
            best = -1e300
            for f in range(6, 0, -1):
                if new >> f & 1:
                    v = value[CHILD[base | f << 3 | counts[f] - 1]]
                    if v > best:
                        best = v
        expected = self._roll[i]
        luck = best - expected
        ledger = self._ledger
        ledger.rolls += 1
        ledger.luck += luck
        ledger.wluck += self._k * luck
        if self._current is not None:
            self._current.rolls.append(RollLuck(tuple(roll_faces), i, best, expected))
        return best

    def kept(self, seat: int, roll: Any, face: int, count: int, total: int, left: int) -> None:
        counts = roll.counts
        best = self._rolled(roll.faces, counts, roll.mask)
        i = self._state
        base = i << 6
        child = CHILD[base | face << 3 | count - 1]
        chosen = self._value[child]
        regret = best - chosen
        ledger = self._ledger
        ledger.regret_pick += regret
        new = roll.mask & self._free
        choice = new & (new - 1) != 0  # two faces or more
        if choice:
            ledger.picks += 1
        if self._current is not None:
            options = [
                Option(f, self._value[CHILD[base | f << 3 | counts[f] - 1]])
                for f in range(6, 0, -1)
                if new >> f & 1
            ]
            options.sort(key=lambda o: -o.value)  # stable: ties keep the higher face first
            self._current.decisions.append(Decision("pick", i, tuple(options), face, regret))
        self._free &= ~(1 << face)
        self._state = child
        self._pending = child

    def claimed(self, seat: int, claim: Any, total: int) -> None:
        self._settle_pending(True)
        tile, victim = claim.tile, claim.victim
        best = self._stop[total]
        chosen = claim_value(claim, self.players)
        regret = best - chosen
        ledger = self._ledger
        ledger.regret_claim += regret
        # The claims as the turn began: the board has taken this one already.
        options = claim_options(self._grill, self._tops, seat, total, self.lower_any)
        if len(options) > 1:
            ledger.claims += 1
        if self._current is not None:
            self._current.decisions.append(
                Decision("claim", self._state, options, (tile, victim), regret)
            )
        self._open = -1
        self._close(chosen, "claim" if victim is None else "steal")

    def busted(
        self,
        seat: int,
        reason: str,
        total: int,
        returned: int | None,
        turned: int | None,
        roll: Any,
    ) -> None:
        if roll is not None:  # R5: a roll with no new face; its luck is the bust's
            self._rolled(roll.faces, roll.counts, roll.mask)
        else:  # R8: all dice kept, no claim: the last keep's value was the bust value
            self._pending = -1
        self._open = -1
        self._close(self._bust, "bust")

    def _close(self, swing: float | None, end: str) -> None:
        current = self._current
        if current is None:
            return
        self._current = None
        current.swing = swing
        current.end = end
        self.turns.append(current)
        if self._listener is not None:
            self._listener(current)

    def finish(self) -> None:
        """The game ended, or was cut short: a turn still open (a forfeit in it) is taken
        back from its seat's ledger, which holds exactly what it held before that turn;
        with ``detail``, the turn is kept, marked cut short (swing None)."""
        if self._open >= 0:
            ledger, before = self.ledgers[self._open], self._before
            for name in Ledger.__dataclass_fields__:
                setattr(ledger, name, getattr(before, name))
            self._open = -1
        self._close(None, "")


def ledger_row(ledgers: Sequence[Ledger]) -> dict[str, list]:
    """The stored columns of a game's ledgers (schema.ACCOUNT_FIELDS): field -> a value
    per seat."""
    return {name: [getattr(led, name) for led in ledgers] for name in ACCOUNT_FIELDS}


__all__ = [
    "WIN_SPREAD",
    "Accountant",
    "Decision",
    "Ledger",
    "Option",
    "RollLuck",
    "TurnAccount",
    "cache_stats",
    "claim_options",
    "claim_value",
    "ledger_row",
    "solved",
    "steal_share",
    "swing_payoff",
    "win_slope",
]
