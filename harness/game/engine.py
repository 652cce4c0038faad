"""The rules engine: plays Pickomino turns and games by R1-R11 and the RULES.md variants.

Pure and fast: no I/O, no logging, no strings built on the hot path. The rules of a turn
are harness.game.turn's (a :class:`Turn` on the game's :class:`Board`, a value in bit
masks, bit t = tile t, and small lists, handed to the observer); the game runs its turns,
ranks and results, and judges answers. The dice come from an injected source; strategies
are asked through their public methods with a read-only view that
holds no path back to the game: the engine pushes plain values into it through the
view's surface for engines (``View.show_turn``, the ``TURN_SLOTS``) and never reads
it back. The board's encoding is harness.game.board, shared with the view. Every answer
is turned into a plain int, bool or Claim first and its legality checked on that plain
value, so an answer cannot lie through its own ``__eq__`` or ``__hash__``; whatever a
strategy call raises (SystemExit and a plugin's KeyboardInterrupt included, not the
user's Ctrl-C) is its seat's forfeit with a bounded one-line message. An observer,
when given, hears every event (records and readable logs are built that way).

An engine that plays the board itself (the C engine, calling a Python seat back through
harness.native.seats) judges that seat's answers through a Game that plays nothing, by
its containment surface (``views``, ``fault``, ``check_pick``, ``check_stop``,
``ask_claim``): the same checks and forfeit messages as ``play_turn``, which uses them.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.errors import (
    GameError,
    IllegalMove,
    IntegrityError,
    SeatCrashed,
    StrategyFailed,
    TimeForfeit,
    safe_repr,
    safe_text,
    type_name,
)
from harness.game.board import FACES_OF, LE, Board, Claim, tiles_of
from harness.game.rules import TILES, Rules, face_name
from harness.game.strategy import Strategy
from harness.game.turn import CLAIM, LEGAL, Turn, TurnError
from harness.game.view import View
from harness.interrupts import is_user_interrupt, reraise_if_user

if TYPE_CHECKING:
    from harness.game.dice import DiceSource, Roll
    from harness.game.strategy import Strategy

DEFAULT_MAX_TURNS = 1000
"""Turn cap: a game still running after this many turns ends unfinished.

An official game takes 20-60 turns; variants such as ``bust_flip: none`` can run far
longer, so the cap is generous and a capped game is reported, never scored.
"""

BUST_REASONS = ("no-new-face", "no-worm", "no-tile")
# What a seat's wrapper (time limits, a seat process) raises about its own seat: the
# engine passes these on as they are, everything else a strategy raises is "raised".
_VERDICTS = (TimeForfeit, SeatCrashed)


class GameObserver:
    """Hears every event of a game; subclasses override what they need."""

    def handed(self, board: Board) -> None:
        """The game's board, handed over once as the game is set up (before turn 1): the
        live board, changed by the game as it plays (a claim, R7; a bust, R9). Read it,
        never write it: between events it shows the board as the events left it."""

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

    def handed(self, board: Board) -> None:
        for o in self.observers:
            _hand(o, board)

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


def _hand(observer: Any, board: Board) -> None:
    """Hand ``board`` to ``observer`` (an observer written before ``handed`` existed, or
    one that does not subclass GameObserver, has none: it is not told)."""
    handed = getattr(observer, "handed", None)
    if handed is not None:
        handed(board)


def observing(*observers: GameObserver | None) -> GameObserver | None:
    """One observer for the given ones (None left out): None, the one, or a Fanout."""
    present = [o for o in observers if o is not None]
    if len(present) > 1:
        return Fanout(present)
    return present[0] if present else None


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
    """One game in progress. ``play()`` runs it to the end; ``play_turn()`` one turn.

    Nothing a strategy is handed leads back here: each seat gets its own view (plain
    values pushed by the engine) and its own copy of the rules, the strategies and names
    are copied into tuples, and the dice are held only by the game.
    """

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
        # Tuples: the caller's list may be reachable from plugin code; these are not.
        self._strategies = tuple(strategies)
        self._names = tuple(names) if names is not None else tuple(map(_name_of, strategies))
        self._dice = dice
        self._observer = observer
        self._max_turns = max_turns
        self._seed = seed
        # The board, and the turn that acts on it (harness.game.turn): the rules are there.
        self._board = Board(rules)
        self._state = Turn(self._board, dice, observer)
        self._turn = 0  # turns begun; seat (turn - 1) % n plays turn number `turn`
        if observer is not None:
            _hand(observer, self._board)
        # Each seat its own Rules: Rules is frozen, but object.__setattr__ is not stopped
        # by that, and a plugin must not change what the caller (or the next game) uses.
        self._seat_rules = _handed_rules(rules)
        self._views = tuple(View(seat, self._seat_rules[seat], seed) for seat in range(n))
        self._started = False

    def start(self) -> None:
        """Tell every strategy a game begins (``new_game``); done once, before turn 1."""
        if self._started:
            return
        self._started = True
        for seat, strategy in enumerate(self._strategies):
            try:
                strategy.new_game(seat, self._seat_rules[seat])
            except BaseException as exc:
                raise self.fault(0, seat, "new_game", exc) from exc

    # -- running ------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """No face-up tile is left on the grill (R10)."""
        return not self._board.grill

    @property
    def board(self) -> Board:
        """The board the game plays on (read it; the game changes it, by its turns)."""
        return self._board

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
        self._play(self._max_turns - self._turn)
        return self.result()

    @property
    def max_turns(self) -> int:
        """The turn cap: a game still running after this many turns ends unfinished."""
        return self._max_turns

    def play_turn(self) -> bool:
        """Play one turn of the seat to play (R4-R9); True when it ended the game (R10)."""
        return self._play(1)

    def begin_turn(self) -> Turn:
        """Begin the turn of the seat to play (R3) for a driver that answers its questions
        itself (:meth:`Turn.keep`, :meth:`Turn.stop`, :meth:`Turn.roll_on`,
        :meth:`Turn.take`): the seat's strategy is not asked. The turn is played on this
        game's board, dice, views and observer, as :meth:`play_turn` plays it; the game
        goes on (:meth:`play_turn`, :meth:`begin_turn`) once it has ENDED."""
        if not self._board.grill:
            raise TurnError("no face-up tile is left on the grill: the game is over (R10)")
        number = self._turn + 1
        self._turn = number
        seat = (number - 1) % self._players
        self._state.begin(seat, number, self._views[seat])
        return self._state

    def _play(self, turns: int) -> bool:
        """Play up to ``turns`` turns, while the game is not over; True once it is (R10).

        This is the hot loop of every tournament: :meth:`Turn.play` plays each turn in
        one call (a call per turn more measured 5-10% of the greedy mirror), asking the seat's
        strategy and judging its answers by this game's checks (:meth:`fault`,
        :meth:`check_pick`, :meth:`check_stop`); nothing is read back from the view, so a
        strategy that writes to its view cannot change the game. An answer of exactly
        type int, True or False takes the fast path; anything else is converted to its
        plain value.
        """
        state, board, views, strategies = self._state, self._board, self._views, self._strategies
        players = self._players
        for _ in range(turns):
            if not board.grill:
                return True
            number = self._turn + 1
            self._turn = number
            seat = (number - 1) % players
            if state.play(seat, number, views[seat], strategies[seat], self) == CLAIM:
                # Several claims: the seat's choice (R7).
                state.take(self._choose(seat, state.total, state.claims()))
        return not board.grill

    # -- the containment surface, for an engine that plays the board itself -----------------
    # harness.native.seats (the C engine's Python seats) asks a seat in the steps play_turn
    # takes: View.show_turn, the TURN_SLOTS, the strategy's method. Those steps stay inline
    # in both, because a method call per roll is measurable (~5% of the greedy mirror here,
    # ~9% of the C engine's mixed table there); what judges an answer and words a forfeit
    # is here, once, and play_turn takes it on its slow path.
    @property
    def views(self) -> tuple[View, ...]:
        """Each seat's view, for an engine to write (the TURN_SLOTS); never read back."""
        return self._views

    def fault(
        self, turn: int, seat: int, method: str, exc: BaseException, answer: bool = False
    ) -> GameError:
        """What ``exc``, raised by ``seat``'s strategy in ``method``, makes of the game.

        The user's Ctrl-C propagates (see :mod:`harness.interrupts`). A seat wrapper's
        verdict on this very seat (over a time limit, its process died), raised by
        harness code, keeps its kind; anything else (SystemExit, a plugin's
        KeyboardInterrupt, an exception whose str() raises, a TimeForfeit a plugin raised
        itself) is StrategyFailed with a bounded one-line message.
        """
        reraise_if_user(exc)
        name = self._names[seat]
        try:
            if (
                type(exc) in _VERDICTS
                and _raised_by_harness(exc)
                and type(exc.seat) is int
                and exc.seat == seat
            ):
                return type(exc)(turn, seat, name, safe_text(exc.detail))
        except BaseException as inner:  # a forged verdict that breaks when read
            reraise_if_user(inner)
        return StrategyFailed(turn, seat, name, method, exc, answer=answer)

    def check_pick(self, turn: int, seat: int, answer: Any, roll: Roll, free: int) -> int:
        """The legal face ``answer`` (a pick() from ``roll`` in turn ``turn``, ``free`` the
        mask of faces not yet set aside) stands for, by plain value; else GameError, the
        seat's forfeit (R2, R5). The fast path (an exact int, legal) need not call this."""
        face = answer
        if type(face) is not int:  # True, 4.0, numpy, an int subclass: the plain value
            face = self._plain_face(turn, seat, face)
        if face not in LEGAL[roll.mask & free]:  # shown by this roll, not yet set aside
            raise self._illegal_pick(turn, seat, face, roll, free)
        return face

    def check_stop(self, turn: int, seat: int, answer: Any) -> bool:
        """A stop() answer that is not True or False: any other real boolean is fine
        (numpy.bool_, 0 and 1, by value); anything else is GameError, breaking R6."""
        try:
            numpy = sys.modules.get("numpy")  # never imported here: only if in use
            if numpy is not None and type(answer) is numpy.bool_:
                return answer.item() is True
            value = plain_int(answer)
        except BaseException as exc:
            raise self.fault(turn, seat, "stop", exc, answer=True) from exc
        if value == 0 or value == 1:
            return value == 1
        detail = f"stop() returned {safe_repr(answer)}, not True or False"
        raise self._illegal(turn, seat, detail, "R6")

    def ask_claim(
        self,
        seat: int,
        total: int,
        turn: int,
        grill: int,
        flipped: int,
        stacks: tuple[tuple[int, ...], ...],
    ) -> Claim:
        """The claim ``seat`` makes with ``total`` (R7) in turn ``turn`` on this board (as
        :meth:`View.show_turn` takes it): the only legal one, or the strategy's choice
        among several. GameError: the seat's forfeit (it raised, or chose no legal claim).
        The board is taken in first, so whatever a plugin that found this game wrote to it
        fools only itself."""
        self._turn = turn
        self._board.load(grill, flipped, stacks)
        return self._choose(seat, total)

    # -- claims (R7) ----------------------------------------------------------------
    def _choose(self, seat: int, total: int, choices: tuple[Claim, ...] | None = None) -> Claim:
        """Ask the strategy when more than one claim is legal (R7); ``choices``: the legal
        claims, if known."""
        if choices is None:
            choices = self._board.claims(seat, total)
        if len(choices) == 1:
            return choices[0]
        try:
            answer = self._strategies[seat].claim(self._views[seat], choices)
        except BaseException as exc:
            raise self.fault(self._turn, seat, "claim", exc) from exc
        return self._plain_claim(seat, answer, choices, total)

    # -- what strategies return: plain values first (slow path only) ------------------
    def _illegal(self, turn: int, seat: int, detail: str, rule: str) -> IllegalMove:
        return IllegalMove(turn, seat, self._names[seat], detail, rule)

    def _plain_face(self, turn: int, seat: int, answer: Any) -> int:
        """The plain int of a pick that is not exactly an int; IllegalMove if none.

        An int subclass counts by its value (never its own ``__eq__``/``__hash__``), numpy
        ints through ``__index__``; bools and floats compare equal to faces but are not.
        """
        try:
            face = plain_int(answer)
        except BaseException as exc:
            raise self.fault(turn, seat, "pick", exc, answer=True) from exc
        if face is None:
            detail = f"pick() returned {safe_repr(answer)}, not a face 1-6"
            raise self._illegal(turn, seat, detail, "R5")
        return face

    def _illegal_pick(self, turn: int, seat: int, face: int, roll: Roll, free: int) -> IllegalMove:
        """Why the plain int ``face`` is not a legal pick of ``roll`` (R2, R5)."""
        if not 1 <= face <= 6:
            return self._illegal(turn, seat, f"picked {_show_int(face)}, not a face 1-6", "R2")
        if not free >> face & 1:
            detail = f"picked {face_name(face)}, already set aside this turn"
            return self._illegal(turn, seat, detail, "R5")
        shown = " ".join(face_name(f) for f in roll.faces)
        detail = f"picked {face_name(face)}, not in the roll {shown}"
        return self._illegal(turn, seat, detail, "R5")

    def _plain_claim(self, seat: int, answer: Any, choices: tuple[Claim, ...], total: int) -> Claim:
        """The legal claim ``answer`` stands for, by plain value; IllegalMove if none (R7).

        A Claim or any (tile, victim) pair matches by its plain values; a bare tile number
        matches the first choice of that tile. The answer's own ``__eq__`` never runs.
        """
        try:
            tile, victim, pair = plain_pair(answer)
        except BaseException as exc:
            raise self.fault(self._turn, seat, "claim", exc, answer=True) from exc
        if tile is not None and victim is not NOT_INT:
            for choice in choices:
                if choice.tile == tile and (not pair or choice.victim == victim):
                    return choice
        why = self._why_not(seat, answer, tile, victim, total)
        raise self._illegal(self._turn, seat, why, "R7")

    def _why_not(self, seat: int, answer: Any, tile: int | None, victim: Any, total: int) -> str:
        if tile is None or tile not in TILES:
            return f"claimed {safe_repr(answer)}, not a tile 21-36"
        if victim is NOT_INT:  # only a pair gives one: show what it gave as the victim
            return f"claimed {tile} from seat {safe_repr(tuple.__getitem__(answer, 1))}, not a seat"
        if victim is not None:
            if victim == seat:
                return f"claimed {tile} from its own stack"
            if not 0 <= victim < self._players:
                return f"claimed {tile} from seat {_show_int(victim)}, not a seat"
            top = self._board.tops[victim]
            if top != tile:
                return f"stole {tile} from seat {victim} whose top is {top or 'nothing'}"
            return f"stole {tile} from seat {victim} with sum {total}: a steal needs the exact sum"
        grill = self._board.grill
        if not grill >> tile & 1:
            where = "face down" if self._board.flipped >> tile & 1 else "not on the grill"
            return f"claimed {tile}, {where}"
        if tile > total:
            return f"claimed {tile} with sum {total}"
        best = (grill & LE[min(total, 40)]).bit_length() - 1
        return f"claimed {tile} with sum {total}: the highest grill tile <= {total} is {best}"

    # -- the outcome ----------------------------------------------------------------
    def check_integrity(self) -> None:
        """R1/R11 invariants: every tile in exactly one place; scores are stacked worms;
        each seat's top is its stack's last tile (:meth:`Board.problem`)."""
        problem = self._board.problem()
        if problem is not None:
            raise IntegrityError(problem)

    def result(self, error: GameError | None = None) -> GameResult:
        """The result now; ``error`` makes its seat forfeit (ranked last, no winner else)."""
        self.check_integrity()
        forfeit = error.seat if error is not None else None
        board = self._board
        scores = list(board.scores)
        stacks = [list(s) for s in board.stacks]
        over = not board.grill and error is None
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
            grill=list(tiles_of(board.grill)),
            flipped=list(tiles_of(board.flipped)),
            busts=list(board.busts),
            steals=list(board.steals),
            stolen=list(board.stolen),
            capped=bool(board.grill) and error is None and self._turn >= self._max_turns,
            error=error,
            forfeit=forfeit,
        )


# How every answer is read, by the engine and by the seat wrappers that carry answers to
# it (harness.seats, harness.seats.isolation), so that all of them come to the same verdicts.
NOT_INT: Any = object()
"""The victim :func:`plain_pair` gives for a pair whose victim is not an int."""


class Absent(Strategy):
    """Stands in a seat whose instance could not be built: a game that ends before its
    first turn never asks it anything."""

    name = "absent"


def build_instances(
    factories: Sequence[Callable[[], Any] | None],
    names: Sequence[str],
    *,
    failed_as: Callable[[], Any] = Absent,
    native_as: Callable[[], Any] | None = None,
    watch: Any = None,
) -> tuple[list[Any], StrategyFailed | None]:
    """A game's fresh strategy instances, seat by seat, as every engine builds them.

    A constructor that raises forfeits its seat: the seat holds ``failed_as()`` (an
    :class:`Absent`) and the
    last such failure is returned with the instances (a user's interrupt propagates). A
    factory None is a seat another engine plays: it holds ``native_as()``. ``watch`` (the
    move-time tracer of a limited chunk) is told ``trace(seat, 0, 0)`` before each
    constructor and ``leave()`` after it.
    """
    instances: list[Any] = []
    failed: StrategyFailed | None = None
    for seat, factory in enumerate(factories):
        if factory is None:
            assert native_as is not None
            instances.append(native_as())
            continue
        try:
            if watch is not None:
                watch.trace(seat, 0, 0)
            try:
                instances.append(factory())
            finally:
                if watch is not None:
                    watch.leave()
        except BaseException as exc:
            if is_user_interrupt(exc):
                raise
            failed = StrategyFailed(0, seat, names[seat], "__init__", exc)
            failed.__cause__ = exc
            instances.append(failed_as())
    return instances, failed


def plain_int(value: Any) -> int | None:
    """The plain int ``value`` stands for, or None for a non-integer (bools, floats too).

    ``type()`` and ``issubclass`` on it run no plugin code; ``operator.index`` gives an
    int subclass's real value (not what its methods claim) and a numpy int's value. May
    raise whatever a plugin's ``__index__`` raises, except TypeError (None).
    """
    kind = type(value)
    if kind is int:
        return value
    if issubclass(kind, (bool, float)):
        return None
    try:
        plain = operator.index(value)
    except TypeError:
        return None
    return plain if type(plain) is int else int.__add__(plain, 0)


def plain_pair(answer: Any) -> tuple[int | None, Any, bool]:
    """(tile, victim, is_pair) of a claim answer in plain ints: a Claim, a (tile, victim)
    pair or a bare tile. ``tile`` None: not an int; ``victim`` NOT_INT: not an int."""
    if issubclass(type(answer), tuple):
        if tuple.__len__(answer) != 2:
            return None, None, True
        tile, victim = tuple.__getitem__(answer, 0), tuple.__getitem__(answer, 1)
        if victim is not None:
            victim = plain_int(victim)
            if victim is None:
                victim = NOT_INT
        return plain_int(tile), victim, True
    return plain_int(answer), None, False


def _raised_by_harness(exc: BaseException) -> bool:
    """True if ``exc`` was raised in harness's own code (a seat wrapper), not in a plugin:
    the innermost frame of its traceback belongs to a ``harness.*`` module. A plugin could
    forge even that (in-process, nothing stops a determined plugin); a plugin that just
    raises TimeForfeit to pass a loss off as machine-dependent is caught by it."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    module = tb.tb_frame.f_globals.get("__name__")
    return type(module) is str and module.startswith("harness.")


def _show_int(value: int) -> str:
    """A plain int for a message: a 5,000-digit number is not printed (nor can it be)."""
    return str(value) if -(10**12) < value < 10**12 else f"a {value.bit_length()}-bit number"


def _name_of(strategy: Any) -> str:
    """A strategy's display name (its ``name``), bounded; never raises."""
    try:
        name = strategy.name
        if type(name) is str and 0 < len(name) <= 200 and name.isprintable():
            return name  # the usual case, without safe_text's layers
        return safe_text(name, 200) or type_name(strategy)
    except BaseException as exc:
        reraise_if_user(exc)
        return type_name(strategy)


def _private_copy(rules: Rules) -> Rules:
    """A copy of a frozen Rules without running its checks again (it is already valid)."""
    copy = object.__new__(Rules)
    copy.__dict__.update(rules.__dict__)
    return copy


# The Rules objects handed to strategies, per caller's Rules object: one copy per seat,
# reused from game to game while intact (a copy costs more than the check), so a chunk
# of games on the same rules hands out no new objects and never the caller's own.
_HANDED: dict[int, tuple[Rules, list[Rules]]] = {}


def _handed_rules(rules: Rules) -> tuple[Rules, ...]:
    entry = _HANDED.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_HANDED) >= 64:  # many distinct rule objects (replays, single games)
            _HANDED.clear()
        entry = _HANDED[id(rules)] = (rules, [_private_copy(rules) for _ in range(rules.players)])
    original = rules.__dict__
    copies = entry[1]
    for seat, copy in enumerate(copies):
        if copy.__dict__ != original:  # a plugin wrote to it (object.__setattr__)
            copies[seat] = _private_copy(rules)
    return tuple(copies)


__all__ = [
    "DEFAULT_MAX_TURNS",
    "BUST_REASONS",
    "FACES_OF",
    "Fanout",
    "Game",
    "GameObserver",
    "GameResult",
    "NOT_INT",
    "observing",
    "plain_int",
    "plain_pair",
    "rank_seats",
]
