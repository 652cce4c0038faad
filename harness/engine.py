"""The rules engine: plays Pickomino turns and games by R1-R11 and the RULES.md variants.

Pure and fast: no I/O, no logging, no strings built on the hot path. Board state is
kept in bit masks (bit t = tile t) and small lists; the dice come from an injected
source; strategies are asked through their public methods with a read-only view,
and every answer is checked before it is applied. An observer, when given, hears
every event (records and readable logs are built that way).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.dice import BLOCK_BASE, POW6, ROLL_LIST, TABLE, derive_seed
from harness.errors import GameError, IllegalMove, IntegrityError, StrategyFailed
from harness.rules import LOWEST_TILE, TILES, VARIANTS, Rules, face_name, worms
from harness.strategy import GRILL_CLAIMS, STEAL_CLAIMS, Claim, Strategy, swing
from harness.view import ALL_FACES, FACES_OF, View, tiles_of

if TYPE_CHECKING:
    from harness.dice import DiceSource, Roll

DEFAULT_MAX_TURNS = 1000
"""Turn cap: a game still running after this many turns ends unfinished.

An official game takes 20-60 turns; variants such as ``bust_flip: none`` can run far
longer, so the cap is generous and a capped game is reported, never scored.
"""

FULL_GRILL = sum(1 << t for t in TILES)
WORMS = tuple(worms(t) if t >= LOWEST_TILE else 0 for t in range(37))
# LE[s]: the tiles <= s; GE[t]: the totals >= t (as bit masks over 0..40).
LE = tuple((1 << (s + 1)) - 1 for s in range(41))
GE = tuple(((1 << 41) - 1) & ~((1 << t) - 1) for t in range(42))
_HIGHEST, _LOWEST = 1, 2
# Rules variants as the engine's flags: (lower_any, flip_mode, flip_without_tile,
# keep_returned), by (lower_tile, bust_flip, flip_without_tile, returned_tile).
_VARIANT_FLAGS = {
    (lower, flip, without, returned): (
        lower == "any",
        {"highest": _HIGHEST, "lowest": _LOWEST, "none": 0}[flip],
        without,
        returned == "keep",
    )
    for lower in VARIANTS["lower_tile"]
    for flip in VARIANTS["bust_flip"]
    for without in VARIANTS["flip_without_tile"]
    for returned in VARIANTS["returned_tile"]
}
BUST_REASONS = ("no-new-face", "no-worm", "no-tile")
BIT = (1, 2, 4, 8, 16, 32, 64)  # BIT[face]: the face's bit in a face mask
# LEGAL[new]: the legal picks for a mask of new faces, each mapped to itself, so that a
# lookup both checks an answer and turns any int-like answer into a plain int.
_LEGAL_BY_FACES = {faces: {f: f for f in faces} for faces in set(FACES_OF)}
LEGAL = tuple(_LEGAL_BY_FACES[faces] for faces in FACES_OF)


class GameObserver:
    """Hears every event of a game; subclasses override what they need."""

    def turn_started(self, turn: int, seat: int) -> None:
        """A turn begins (``turn`` numbers the game's turns from 1)."""

    def kept(self, seat: int, roll: Roll, face: int, count: int, total: int, left: int) -> None:
        """``roll`` was rolled and its ``count`` dice showing ``face`` set aside (R4, R5)."""

    def claimed(self, seat: int, claim: Claim, total: int) -> None:
        """The turn ended with a claim or a steal (R7)."""

    def busted(
        self,
        seat: int,
        reason: str,
        total: int,
        returned: int | None,
        turned: int | None,
        roll: Roll | None,
    ) -> None:
        """The turn busted (R9); ``roll`` is the roll with no new face, for that reason."""


class Fanout(GameObserver):
    """Passes every event on to several observers, in order."""

    def __init__(self, observers: Sequence[GameObserver]) -> None:
        self.observers = list(observers)

    def turn_started(self, *args: Any) -> None:
        for o in self.observers:
            o.turn_started(*args)

    def kept(self, *args: Any) -> None:
        for o in self.observers:
            o.kept(*args)

    def claimed(self, *args: Any) -> None:
        for o in self.observers:
            o.claimed(*args)

    def busted(self, *args: Any) -> None:
        for o in self.observers:
            o.busted(*args)


@dataclass
class GameResult:
    """How a game ended. ``over`` is False for a game stopped by the turn cap or an error.

    ``ranks`` (1 = best) follow R11; a forfeiting seat is ranked last. ``winner`` is the
    seat ranked 1 alone, or None for a shared result or a game that is not over.
    """

    players: int
    names: list[str]
    scores: list[int]
    ranks: list[int]
    winner: int | None
    over: bool
    turns: int
    stacks: list[list[int]]
    grill: list[int]
    flipped: list[int]
    busts: list[int]
    steals: list[int]
    stolen: list[int]
    capped: bool = False
    error: GameError | None = None
    forfeit: int | None = None
    record: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def status(self) -> str:
        if self.error is not None:
            return "forfeit"
        if self.capped:
            return "turn-cap"
        return "over" if self.over else "unfinished"

    def state(self) -> dict[str, Any]:
        """The final state in the form ``harness replay --json`` prints."""
        return {
            "grill": list(self.grill),
            "flipped": list(self.flipped),
            "stacks": [list(s) for s in self.stacks],
            "scores": list(self.scores),
            "over": self.over,
            "winner": self.winner,
        }


def rank_seats(
    scores: Sequence[int], stacks: Sequence[Sequence[int]], last: int | None = None
) -> list[int]:
    """Ranks by R11: most worms, ties to the highest tile; seats with no tile share.

    ``last`` (a forfeiting seat) is ranked behind everyone.
    """
    keys = [
        (-1, -1) if seat == last else (scores[seat], max(stacks[seat], default=0))
        for seat in range(len(scores))
    ]
    return [1 + sum(other > key for other in keys) for key in keys]


class Game:
    """One game in progress. ``play()`` runs it to the end; ``play_turn()`` one turn."""

    def __init__(
        self,
        strategies: Sequence[Strategy],
        rules: Rules,
        dice: DiceSource,
        *,
        names: Sequence[str] | None = None,
        observer: GameObserver | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        seed: int | str | None = None,
    ) -> None:
        n = rules.players
        if len(strategies) != n:
            raise ValueError(f"{len(strategies)} strategies for {n} players (R3)")
        self._rules = rules
        self._players = n
        self._strategies = strategies
        self._names = names if names is not None else [s.name for s in strategies]
        self._dice = dice
        self._observer = observer
        self._max_turns = max_turns
        self._seed = seed
        self._rngs: dict[int, random.Random] = {}
        self._lower_any, self._flip_mode, self._flip_without_tile, self._keep_returned = (
            _VARIANT_FLAGS[
                rules.lower_tile, rules.bust_flip, rules.flip_without_tile, rules.returned_tile
            ]
        )
        self._grill = FULL_GRILL
        self._flipped = 0
        self._stacks: list[list[int]] = [[] for _ in strategies]
        self._tops = [0] * n  # top tile per seat, 0 for an empty stack
        self._scores = [0] * n
        self._busts = [0] * n
        self._steals = [0] * n
        self._stolen = [0] * n
        self._turn = 0  # turns begun; seat (turn - 1) % n plays turn number `turn`
        self._over = False
        self._views = [View(self, seat) for seat in range(n)]
        self._started = False

    def start(self) -> None:
        """Tell every strategy a game begins (``new_game``); done once, before turn 1."""
        if self._started:
            return
        self._started = True
        for seat, strategy in enumerate(self._strategies):
            try:
                strategy.new_game(seat, self._rules)
            except Exception as exc:
                raise StrategyFailed(0, seat, self._names[seat], "new_game", exc) from exc

    def _strategy_rng(self, seat: int) -> random.Random:
        rng = self._rngs.get(seat)
        if rng is None:
            seed = None if self._seed is None else derive_seed(self._seed, "strategy", seat)
            rng = self._rngs[seat] = random.Random(seed)
        return rng

    # -- running ------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self._over

    @property
    def turn(self) -> int:
        """Turns played so far (the current turn's number while one is in progress)."""
        return self._turn

    @property
    def seat_to_play(self) -> int:
        """The seat whose turn is next (R3: seat order from seat 0)."""
        return self._turn % self._players

    def play(self) -> GameResult:
        """Play until the grill is empty (R10) or the turn cap; GameError on a bad strategy."""
        self.start()
        play_turn = self.play_turn
        for _ in range(self._turn, self._max_turns):
            if play_turn():
                break
        return self.result()

    def play_turn(self) -> bool:
        """Play one turn of the seat to play (R4-R9); True when it ended the game (R10).

        This is the hot loop of every tournament: locals only (small ints, which Python
        does not allocate), and nothing read back from the view, so a strategy that
        writes to its view cannot change the game.
        """
        turn = self._turn
        self._turn = turn + 1
        seat = turn % self._players
        strategy = self._strategies[seat]
        view = self._views[seat]
        view._keeps = keeps = []
        view.total = total = 0
        view.dice_left = left = 8
        view.has_worm = worm = False
        view._free = free = ALL_FACES
        obs = self._observer
        if obs is not None:
            obs.turn_started(turn + 1, seat)
        grill = self._grill
        low = (grill & -grill).bit_length() - 1  # the lowest face-up grill tile
        tops = self._tops
        block = self._dice.start_turn(seat, turn // self._players)
        pick = strategy.pick
        while True:
            # R4: roll the dice left: the first `left` dice of the block's next group of 8.
            roll = ROLL_LIST[TABLE[left][block % POW6[left]]]
            block //= BLOCK_BASE
            new = roll.mask & free
            if not new:  # R5: every face shown is already set aside
                return self._bust(seat, "no-new-face", total, roll)
            view.counts = counts = roll.counts
            view.choices = FACES_OF[new]
            try:
                answer = pick(view)
            except Exception as exc:
                raise StrategyFailed(turn + 1, seat, self._names[seat], "pick", exc) from exc
            try:  # R5: a face shown by this roll and not yet set aside
                face = LEGAL[new][answer]
            except (KeyError, TypeError):
                raise self._illegal_pick(seat, answer, roll, free) from None
            if face is not answer:  # not a plain int (True, 4.0, numpy): the slow check
                face = self._int_face(seat, answer, roll, free)
            view._free = free = free ^ BIT[face]
            view.dice_left = left = left - counts[face]
            view.total = total = total + roll.points[face]
            keeps += roll.dice_of[face]
            if face == 6:
                view.has_worm = worm = True
            if obs is not None:
                obs.kept(seat, roll, face, counts[face], total, left)
            # R7: a stop would claim the highest grill tile <= total, or a rival's top.
            if worm and (total >= low or total in tops and tops[seat] != total):
                if left:  # dice left: the strategy decides (R6)
                    try:
                        stop = strategy.stop(view)
                    except Exception as exc:
                        raise StrategyFailed(
                            turn + 1, seat, self._names[seat], "stop", exc
                        ) from exc
                    if stop is not True and (stop is False or not self._check_stop(seat, stop)):
                        continue
                return self._claim(seat, total)
            if not left:  # R8: all dice set aside and nothing to claim
                return self._bust(seat, "no-tile" if worm else "no-worm", total, None)

    # -- claims (R7) ----------------------------------------------------------------
    def _claims(self, seat: int, total: int, worm: bool) -> tuple[Claim, ...]:
        """Every legal claim for ``seat`` stopping at ``total``, best worm swing first."""
        if not worm:
            return ()
        below = self._grill & LE[min(total, 40)]
        choices: list[Claim] = []
        if below:
            if self._lower_any:
                choices.extend(GRILL_CLAIMS[t] for t in tiles_of(below))
            else:
                choices.append(GRILL_CLAIMS[below.bit_length() - 1])
        if total in self._tops:
            victim = self._tops.index(total)
            if victim != seat:
                choices.append(STEAL_CLAIMS[total, victim])
        choices.sort(key=swing, reverse=True)
        return tuple(choices)

    def _claim(self, seat: int, total: int) -> bool:
        """End the turn with a claim (R7); True when the game is over (R10)."""
        below = self._grill & LE[total]
        tops = self._tops
        if below and not self._lower_any and (total not in tops or tops[seat] == total):
            tile = below.bit_length() - 1  # the common case: one grill tile, nothing to ask
            self._grill ^= 1 << tile
            choice = GRILL_CLAIMS[tile]
        else:
            choice = self._choose(seat, total)
            tile = choice.tile
            victim = choice.victim
            if victim is None:
                self._grill ^= 1 << tile
            else:
                stack = self._stacks[victim]
                stack.pop()
                tops[victim] = stack[-1] if stack else 0
                self._scores[victim] -= WORMS[tile]
                self._steals[seat] += 1
                self._stolen[victim] += 1
        self._stacks[seat].append(tile)
        tops[seat] = tile
        self._scores[seat] += WORMS[tile]
        if self._observer is not None:
            self._observer.claimed(seat, choice, total)
        if not self._grill:  # R10
            self._over = True
        return self._over

    def _choose(self, seat: int, total: int) -> Claim:
        """Ask the strategy when more than one claim is legal (R7)."""
        choices = self._claims(seat, total, True)
        if len(choices) == 1:
            return choices[0]
        try:
            answer = self._strategies[seat].claim(self._views[seat], choices)
        except Exception as exc:
            raise StrategyFailed(self._turn, seat, self._names[seat], "claim", exc) from exc
        return self._check_claim(seat, answer, choices, total)

    # -- busts (R9) -------------------------------------------------------------------
    def _bust(self, seat: int, reason: str, total: int, roll: Roll | None) -> bool:
        """End the turn with a bust (R9); True when the game is over (R10)."""
        self._busts[seat] += 1
        stack = self._stacks[seat]
        returned = turned = None
        if stack:
            returned = stack.pop()
            self._tops[seat] = stack[-1] if stack else 0
            self._scores[seat] -= WORMS[returned]
            self._grill |= 1 << returned
            flip = True
        else:
            flip = self._flip_without_tile
        grill = self._grill
        if flip and self._flip_mode and grill:
            if self._flip_mode == _HIGHEST:
                target = grill.bit_length() - 1
            else:
                target = (grill & -grill).bit_length() - 1
            if target != returned or not self._keep_returned:
                self._grill = grill ^ (1 << target)
                self._flipped |= 1 << target
                turned = target
        if self._observer is not None:
            self._observer.busted(seat, reason, total, returned, turned, roll)
        if not self._grill:  # R10
            self._over = True
        return self._over

    # -- checks of what strategies return (slow path only) ----------------------------
    def _illegal(self, seat: int, detail: str, rule: str) -> IllegalMove:
        return IllegalMove(self._turn, seat, self._names[seat], detail, rule)

    def _int_face(self, seat: int, face: Any, roll: Roll, free: int) -> int:
        """A legal pick that came as an int-like (an int subclass, numpy): the plain int.

        Bools and floats compare equal to faces but are not faces.
        """
        if isinstance(face, bool) or not _is_int(face):
            raise self._illegal_pick(seat, face, roll, free)
        return operator.index(face)

    def _illegal_pick(self, seat: int, face: Any, roll: Roll, free: int) -> IllegalMove:
        if isinstance(face, bool) or not _is_int(face):
            return self._illegal(seat, f"pick() returned {face!r}, not a face 1-6", "R5")
        face = operator.index(face)
        if not 1 <= face <= 6:
            return self._illegal(seat, f"picked {face}, not a face 1-6", "R2")
        if not free >> face & 1:
            detail = f"picked {face_name(face)}, already set aside this turn"
            return self._illegal(seat, detail, "R5")
        shown = " ".join(face_name(f) for f in roll.faces)
        return self._illegal(seat, f"picked {face_name(face)}, not in the roll {shown}", "R5")

    def _check_stop(self, seat: int, answer: Any) -> bool:
        """A stop() answer that is not True or False: any other real boolean is fine
        (numpy.bool_, 0 and 1); anything else breaks R6."""
        if getattr(getattr(answer, "dtype", None), "kind", None) == "b":  # numpy's bool
            return bool(answer)
        if not isinstance(answer, float) and _is_int(answer) and operator.index(answer) in (0, 1):
            return bool(answer)
        raise self._illegal(seat, f"stop() returned {answer!r}, not True or False", "R6")

    def _check_claim(self, seat: int, answer: Any, choices: tuple[Claim, ...], total: int) -> Claim:
        for choice in choices:
            if answer == choice or (
                _is_int(answer) and not isinstance(answer, bool) and answer == choice.tile
            ):
                return choice
        raise self._illegal(seat, self.explain_claim(seat, answer, total), "R7")

    def explain_claim(self, seat: int, answer: Any, total: int) -> str:
        """Why ``answer`` is not a legal claim for ``seat`` stopping at ``total`` (R7)."""
        if isinstance(answer, tuple) and len(answer) == 2:
            tile, victim = answer
        else:
            tile, victim = answer, None
        if isinstance(tile, bool) or not _is_int(tile) or tile not in TILES:
            return f"claimed {answer!r}, not a tile 21-36"
        if victim is not None:
            if victim == seat:
                return f"claimed {tile} from its own stack"
            if not _is_int(victim) or not 0 <= victim < self._players:
                return f"claimed {tile} from seat {victim!r}, not a seat"
            top = self._tops[victim]
            if top != tile:
                return f"stole {tile} from seat {victim} whose top is {top or 'nothing'}"
            return f"stole {tile} from seat {victim} with sum {total}: a steal needs the exact sum"
        if not self._grill >> tile & 1:
            where = "face down" if self._flipped >> tile & 1 else "not on the grill"
            return f"claimed {tile}, {where}"
        if tile > total:
            return f"claimed {tile} with sum {total}"
        best = (self._grill & LE[min(total, 40)]).bit_length() - 1
        return f"claimed {tile} with sum {total}: the highest grill tile <= {total} is {best}"

    # -- the outcome ----------------------------------------------------------------
    def check_integrity(self) -> None:
        """R1/R11 invariants: every tile in exactly one place; scores are stacked worms."""
        seen = self._grill | self._flipped
        count = self._grill.bit_count() + self._flipped.bit_count()
        for seat, stack in enumerate(self._stacks):
            for tile in stack:
                seen |= 1 << tile
            count += len(stack)
            if self._scores[seat] != sum(WORMS[t] for t in stack):
                raise IntegrityError(f"seat {seat}: score differs from the worms stacked (R11)")
        if seen != FULL_GRILL or count != len(TILES):
            raise IntegrityError("tiles lost or duplicated: 16 tiles must stay in play (R1)")

    def result(self, error: GameError | None = None) -> GameResult:
        """The result now; ``error`` makes its seat forfeit (ranked last, no winner else)."""
        self.check_integrity()
        forfeit = error.seat if error is not None else None
        scores = list(self._scores)
        stacks = [list(s) for s in self._stacks]
        over = self._over and error is None
        ranks = rank_seats(scores, stacks, forfeit)
        winner = None
        if over or forfeit is not None:
            firsts = [seat for seat, r in enumerate(ranks) if r == 1]
            winner = firsts[0] if len(firsts) == 1 else None
        return GameResult(
            players=self._players,
            names=list(self._names),
            scores=scores,
            ranks=ranks,
            winner=winner,
            over=over,
            turns=self._turn,
            stacks=stacks,
            grill=list(tiles_of(self._grill)),
            flipped=list(tiles_of(self._flipped)),
            busts=list(self._busts),
            steals=list(self._steals),
            stolen=list(self._stolen),
            capped=not self._over and error is None and self._turn >= self._max_turns,
            error=error,
            forfeit=forfeit,
        )


def _is_int(value: Any) -> bool:
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


__all__ = [
    "DEFAULT_MAX_TURNS",
    "BUST_REASONS",
    "FACES_OF",
    "Fanout",
    "Game",
    "GameObserver",
    "GameResult",
    "rank_seats",
]
