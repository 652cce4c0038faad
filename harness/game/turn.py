"""The turn as a resumable state (R4-R10): the one definition of a turn in Python.

A :class:`Turn` is one seat's turn on a game's :class:`~harness.game.board.Board`, in the
manner of an OpenSpiel ``State`` at the scale of a turn. Its :attr:`Turn.phase` says what
it waits for:

================  ======================================================================
``ROLL``          a chance node: the dice left are to be rolled (R4). With a dice source
                  the turn rolls them itself, the roll the seeded dice give; without one
                  it waits for :meth:`Turn.apply_roll`, and :meth:`Turn.chance_outcomes`
                  lists every roll with its exact probability.
``PICK``          a face to set aside (R5): :meth:`Turn.keep`, one of :attr:`Turn.picks`.
``STOP_OR_ROLL``  a stop would claim (R7) and dice are left (R6): :meth:`Turn.stop` or
                  :meth:`Turn.roll_on`.
``CLAIM``         the stop offers several claims (R7): :meth:`Turn.take` one of
                  :meth:`Turn.claims`.
``ENDED``         the turn ended with a claim (R7) or a bust (R8, R9); the board says
                  whether the game is over (R10).
================  ======================================================================

Each step does everything the rules do until the next question: a keep that leaves no
question rolls on (with a dice source), a keep of the last dice stops (R6) or busts (R8),
a stop with one claim takes it. Two kinds of driver step it:

* an engine asks a strategy: :meth:`Turn.play` plays the whole turn in one call, asking
  the strategy's ``pick`` and ``stop`` as the turn goes (``Game.play``, the hot loop of
  every tournament, calls it once a turn: the turn's values stay in local variables,
  because a method call per roll costs the greedy mirror 5-9%, and even one call a turn
  more measured 5-10% here);
* a driver that answers from outside (the stepped environment's agent, a solver, a test)
  begins the turn (:meth:`Turn.begin`) and answers each question (:meth:`Turn.keep`,
  :meth:`Turn.stop`, :meth:`Turn.roll_on`, :meth:`Turn.take`, :meth:`Turn.apply_roll`).
  Each step goes on through the same code as :meth:`Turn.play`, with a stand-in strategy
  that answers :data:`WAIT` where the turn is to wait: the turn keeps its values, and the
  next step reads its roll again from where it was (so the engine's path has no check a
  roll for a driver it does not have). That costs a few microseconds a step: fine for an
  agent, too much for a Python seat at a native table (harness.native.seats says so).

The seat's view is written as the turn goes (the board at the start, then the
:data:`~harness.game.view.TURN_SLOTS`), never read back; an observer, when given, hears
every event (:class:`~harness.game.engine.GameObserver`). A step the phase does not
allow, or an answer the rules refuse, raises :class:`TurnError`: one line citing the rule,
and the turn unchanged. (An engine's judge words a strategy's bad answer as that seat's
forfeit instead: ``Game.check_pick``.)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from harness.errors import safe_repr
from harness.game.board import (
    ALL_FACES,
    FACES_OF,
    GRILL_CLAIMS,
    KEPT_OF,
    LE,
    Board,
    Claim,
    legal_claims,
    settle_bust,
    settle_claim,
)
from harness.game.dice import (
    BLOCK_BASE,
    NO_ROLL,
    POW6,
    ROLL_LIST,
    ROLLS,
    ROLLS_OF,
    TABLE,
    Roll,
)
from harness.game.rules import DICE, face_name

ENDED, PICK, STOP_OR_ROLL, CLAIM, ROLL = -1, 0, 1, 2, 3
"""The phases of a turn (PICK, STOP_OR_ROLL and CLAIM number the questions as the RL
environments' observations do)."""
PHASE_NAMES = {ENDED: "ended", PICK: "pick", STOP_OR_ROLL: "stop or roll on", CLAIM: "claim"}
PHASE_NAMES[ROLL] = "roll"
_RULE_OF = {ENDED: "R10", PICK: "R5", STOP_OR_ROLL: "R6", CLAIM: "R7", ROLL: "R4"}
BIT = (1, 2, 4, 8, 16, 32, 64)  # BIT[face]: the face's bit in a face mask
# LEGAL[new]: the legal picks for a mask of new faces (R5). Only ever asked about plain
# ints: an answer of any other type is converted first, so its own __hash__/__eq__ never run.
LEGAL = tuple(frozenset(faces) for faces in FACES_OF)
# CHANCE[n]: every roll of n dice with its probability (ways / 6**n), in ROLLS order.
CHANCE: tuple[tuple[tuple[Roll, float], ...], ...] = tuple(
    tuple((roll, ways / 6**n) for roll, ways in rolls) for n, rolls in enumerate(ROLLS_OF)
)


class TurnError(ValueError):
    """A step the turn refuses: the wrong phase, or an answer the rules do not allow."""


def chance_outcomes(dice: int) -> tuple[tuple[Roll, float], ...]:
    """Every roll of ``dice`` dice (1-8) with its probability (R4): its multinomial weight
    over 6**dice, as a float, in the order of :data:`harness.game.dice.ROLLS`. The chance
    node of a turn with ``dice`` dice left (:meth:`Turn.chance_outcomes`)."""
    return CHANCE[dice]


class Turn:
    """One turn at a time of a game on ``board`` (module docstring). ``dice`` (a
    :class:`~harness.game.dice.DiceSource`; None: the turn waits at each ``ROLL`` for
    :meth:`apply_roll`) and ``observer`` serve every turn played with this object.

    The turn's values are plain attributes, to read and never write. ``phase`` is always
    up to date; the others whenever the turn waits for a question answered from outside
    (:meth:`play` keeps them in local variables while it runs): ``seat``, ``number`` (the
    game's turn number, from 1), ``roll`` (the latest roll), ``kept`` (the dice set aside,
    in order), ``total``, ``left`` (dice not yet set aside), ``worm`` (a worm is set
    aside) and ``free`` (the mask of faces not yet set aside).
    """

    __slots__ = (
        "board", "dice", "observer", "seat", "number", "view", "phase", "roll", "new",
        "free", "kept", "total", "left", "worm", "low", "block", "choices", "_answer",
    )  # fmt: skip

    def __init__(self, board: Board, dice: Any = None, observer: Any = None) -> None:
        self.board = board
        self.dice = dice
        self.observer = observer
        self.seat = -1
        self.number = 0
        self.view: Any = None
        self.phase = ENDED
        self.roll: Roll | None = None
        self.new = 0  # the faces of the latest roll not yet set aside (a mask)
        self.free = ALL_FACES
        self.kept: tuple[int, ...] = ()
        self.total = 0
        self.left = DICE
        self.worm = False
        self.low = 0  # the lowest face-up grill tile: a stop claims from the grill at >= low
        self.block: Any = _NO_DICE  # the rest of the turn's dice block (see dice.py)
        self.choices: tuple[Claim, ...] = ()  # the claims of a stop that offers several
        self._answer = _Answer()  # the stand-in strategy of a keep (its face set by keep)

    # -- the whole turn, or up to its next question ---------------------------------------
    def play(self, seat: int, number: int, view: Any, strategy: Any, judge: Any = None) -> int:
        """Turn ``number`` (from 1) of ``seat`` begins and is played on with ``strategy``
        answering; the phase it stops in is returned.

        The board goes into the seat's ``view`` (``View.show_turn``), the observer hears
        the turn start, and the dice are rolled (R4). The strategy's ``pick`` and ``stop``
        answer every question up to the turn's end (ENDED), or to a stop that offers
        several claims (CLAIM: :meth:`take` the seat's choice); ``judge`` (the game:
        ``fault``, ``check_pick``, ``check_stop``) turns what the strategy raises, or an
        answer that is not a plain legal value, into that seat's forfeit (a GameError).

        Without a judge the turn is stepped from outside (:meth:`begin` and the steps):
        the strategy is then the turn's own stand-in, which answers :data:`WAIT` (the turn
        waits for the question to be answered), or a step's answer; ``view`` None goes on
        with the turn in progress instead of beginning one.
        """
        tops = self.board.tops
        obs = self.observer
        if view is not None:  # a new turn (the game is not over: the caller knows, R10)
            low, block = self._open(seat, number, view)
            free, kept, total, left, worm = ALL_FACES, (), 0, DICE, False
        else:  # the turn in progress goes on (a step)
            view, free, kept, total, left = self.view, self.free, self.kept, self.total, self.left
            worm, low, block = self.worm, self.low, self.block
        try:
            pick = strategy.pick
        except BaseException as exc:
            raise judge.fault(number, seat, "pick", exc) from exc
        while True:
            # R4: roll the dice left: the first `left` dice of the block's next group of 8.
            roll = ROLL_LIST[TABLE[left][block % POW6[left]]]
            block //= BLOCK_BASE
            new = roll.mask & free
            if not new:  # R5: every face shown is already set aside
                if roll is NO_ROLL:  # no dice source: the roll comes from outside
                    return self._wait(
                        ROLL, seat, number, view, None, free, kept, total, left, worm, low, block
                    )
                return self._bust(seat, "no-new-face", total, roll)
            # The turn state (view.TURN_SLOTS), written as plain slots.
            view.counts = counts = roll.counts
            view.choices = FACES_OF[new]
            try:
                face = pick(view)
            except BaseException as exc:
                raise judge.fault(number, seat, "pick", exc) from exc
            if type(face) is not int or face not in LEGAL[new]:  # not a plain legal int
                if judge is not None:  # a strategy's answer: its plain value, or a forfeit
                    face = judge.check_pick(number, seat, face, roll, free)
                elif face is WAIT:  # stepped from outside: wait for the keep, the block
                    # as before this roll, to read the roll again from it then
                    if type(block) is int:
                        block = block * BLOCK_BASE + roll.code
                    else:
                        block = _Given(roll.code)
                    return self._wait(
                        PICK, seat, number, view, roll, free, kept, total, left, worm, low, block
                    )
                else:
                    raise TurnError(_why_not_pick(face, roll, free))
            # R5: every die showing the face picked is set aside.
            free ^= BIT[face]
            view.kept = kept = kept + roll.dice_of[face]
            view.kept_faces = KEPT_OF[free]
            view.dice_left = left = left - counts[face]
            view.total = total = total + roll.points[face]
            if face == 6:
                view.has_worm = worm = True
            if obs is not None:
                obs.kept(seat, roll, face, counts[face], total, left)
            # R7: a stop would claim the highest grill tile <= total, or a rival's top.
            if worm and (total >= low or total in tops and tops[seat] != total):
                if left:  # dice left: the seat decides (R6)
                    try:
                        stop = strategy.stop(view)
                    except BaseException as exc:
                        raise judge.fault(number, seat, "stop", exc) from exc
                    if stop is not True:
                        if stop is not False:  # numpy.bool_, 0, 1: the plain value
                            if judge is None:  # stepped from outside: wait for the answer
                                at = (seat, number, view, roll, free, kept, total, left)
                                return self._wait(STOP_OR_ROLL, *at, worm, low, block)
                            stop = judge.check_stop(number, seat, stop)
                        if not stop:
                            continue
                return self._stop(seat, total)  # R6: chosen, or all 8 dice set aside
            if not left:  # R8: all dice set aside and nothing to claim
                return self._bust(seat, "no-tile" if worm else "no-worm", total, None)

    def _open(self, seat: int, number: int, view: Any) -> tuple[int, Any]:
        """A new turn's board shown and heard: (the lowest grill tile, the dice block)."""
        board = self.board
        grill = board.grill
        # The board as it stands, pushed as immutable values: the view reads nothing of ours.
        view.show_turn(number, grill, board.flipped, tuple(board.stacks))
        if self.observer is not None:
            self.observer.turn_started(number, seat)
        dice = self.dice
        if dice is None:
            return (grill & -grill).bit_length() - 1, _NO_DICE
        return (grill & -grill).bit_length() - 1, dice.start_turn(
            seat, (number - 1) // board.players
        )

    def begin(self, seat: int, number: int, view: Any) -> int:
        """Turn ``number`` of ``seat`` begins, to be stepped from outside: PICK (the dice
        source rolled the first roll), or ROLL without one."""
        if not self.board.grill:
            raise TurnError("no face-up tile is left on the grill: the game is over (R10)")
        return self.play(seat, number, view, _WAITING)

    def _wait(
        self, phase: int, seat: int, number: int, view: Any, roll: Roll | None, free: int,
        kept: tuple[int, ...], total: int, left: int, worm: bool, low: int, block: Any,
    ) -> int:  # fmt: skip
        """The turn waits for a question answered from outside: its values kept."""
        self.phase, self.seat, self.number, self.view, self.roll = phase, seat, number, view, roll
        self.new = roll.mask & free if roll is not None else 0
        self.free, self.kept, self.total, self.left, self.worm = free, kept, total, left, worm
        self.low, self.block = low, block
        return phase

    # -- the chance node (R4) ------------------------------------------------------------
    def chance_outcomes(self) -> tuple[tuple[Roll, float], ...]:
        """Every roll the dice left can show, with its probability (a turn waiting at
        ROLL; after a keep, the roll to come): see :func:`chance_outcomes`."""
        if self.phase not in (ROLL, STOP_OR_ROLL):
            self._expect(ROLL)
        return CHANCE[self.left]

    def exact_outcomes(self) -> tuple[tuple[Roll, Fraction], ...]:
        """:meth:`chance_outcomes` with exact probabilities (they sum to exactly 1)."""
        if self.phase not in (ROLL, STOP_OR_ROLL):
            self._expect(ROLL)
        scale = 6**self.left
        return tuple((roll, Fraction(ways, scale)) for roll, ways in ROLLS_OF[self.left])

    def apply_roll(self, roll: Roll | tuple[int, ...]) -> int:
        """R4, R5: the dice left show ``roll`` (a Roll, or its faces), in a turn with no
        dice source. PICK, or ENDED: no face of it is new (a bust, R5, R9)."""
        self._expect(ROLL)  # (with a dice source the turn rolls at once: never waits here)
        if type(roll) is not Roll:
            roll = _roll_of(roll)
        if roll.n != self.left:
            raise TurnError(f"a roll of {roll.n} dice with {self.left} dice left to roll (R4)")
        self.block = _Given(roll.code)
        return self.play(self.seat, self.number, None, _WAITING)

    # -- the questions (R5-R7) -------------------------------------------------------------
    @property
    def picks(self) -> tuple[int, ...]:
        """The faces a keep may set aside now (R5), ascending; () outside PICK."""
        return FACES_OF[self.new] if self.phase == PICK else ()

    def keep(self, face: int) -> int:
        """R5: set aside every die of the latest roll showing ``face`` (a plain int). Then
        STOP_OR_ROLL when a stop would claim (R7) and dice are left (R6); with no dice
        left the stop the turn must make (ENDED, or CLAIM) or a bust (R8, ENDED);
        otherwise the dice left are rolled (R4): PICK or ENDED (R5) with a dice source,
        ROLL without one."""
        self._expect(PICK)
        answer = self._answer
        answer.face = face
        return self.play(self.seat, self.number, None, answer)

    @property
    def may_stop(self) -> bool:
        """A stop now would claim a tile and dice are left (R6, R7): the question of the
        phase STOP_OR_ROLL. (R7's test is the one in :meth:`play`: a worm set aside and the
        total at least the lowest face-up grill tile, or a rival's top showing it.)"""
        return self.phase == STOP_OR_ROLL

    def roll_on(self) -> int:
        """R6: roll again instead of stopping: PICK or ENDED (R5) with a dice source,
        ROLL without one."""
        self._expect(STOP_OR_ROLL)
        if self.block is _NO_DICE:  # no dice source: the turn waits for the roll
            self.phase = ROLL
            return ROLL
        return self.play(self.seat, self.number, None, _WAITING)

    def stop(self) -> int:
        """R6, R7: stop and claim: the one claim the stop offers is taken (ENDED), or
        CLAIM when it offers several (:meth:`claims`, :meth:`take`)."""
        self._expect(STOP_OR_ROLL)
        return self._stop(self.seat, self.total)

    def claims(self) -> tuple[Claim, ...]:
        """What a stop now claims (R7), best worm swing first; () if nothing (no worm, or
        the turn ended)."""
        if self.phase == CLAIM:
            return self.choices
        if not self.worm or self.phase == ENDED:
            return ()
        return self.board.claims(self.seat, self.total)

    def take(self, claim: Claim | tuple[int, int | None]) -> int:
        """R7: the stop takes ``claim`` (a Claim or a (tile, victim) pair), one of
        :meth:`claims` (phase CLAIM) -> ENDED."""
        self._expect(CLAIM)
        choices = self.choices
        for choice in choices:
            if choice == claim:
                return self._stop(self.seat, self.total, choice)
        offered = "; ".join(str(c) for c in choices) or "none"
        raise TurnError(f"take {safe_repr(claim)}: a stop at {self.total} offers {offered} (R7)")

    # -- the end of the turn: a claim (R7) or a bust (R9) ------------------------------------
    def _stop(self, seat: int, total: int, claim: Claim | None = None) -> int:
        """R7: a stop at ``total`` takes ``claim``, or its one claim, onto the seat's stack
        (from the grill, or the top of the victim's stack: a steal); with several claims
        and none chosen, the turn waits for the seat's choice (CLAIM)."""
        board = self.board
        tops = board.tops
        if claim is not None:
            tile, victim = claim
        else:
            below = board.grill & LE[total]
            if below and not board.lower_any and (total not in tops or tops[seat] == total):
                tile, victim = below.bit_length() - 1, None  # the usual: one grill tile
                claim = GRILL_CLAIMS[tile]
            else:
                choices = legal_claims(seat, total, True, board.grill, tops, board.lower_any)
                if len(choices) != 1:  # several: the seat chooses (none: a board changed
                    # behind the game's back, by a plugin: its answer cannot be legal)
                    self.seat, self.total, self.choices, self.phase = seat, total, choices, CLAIM
                    return CLAIM
                claim = choices[0]
                tile, victim = claim
        settle_claim(board, seat, tile, victim)
        self.phase = ENDED
        if self.observer is not None:
            self.observer.claimed(seat, claim, total)
        return ENDED

    def _bust(self, seat: int, reason: str, total: int, roll: Roll | None) -> int:
        """R9: the turn ends with a bust (``roll``: the roll with no new face, R5). The
        seat's top tile (if any) goes back to the grill face up; then the highest face-up
        grill tile (``bust_flip``: or the lowest, or none) is turned face down, unless it
        is the tile just returned (``returned_tile: keep``), or the seat had no tile to
        return (unless ``flip_without_tile``)."""
        returned, turned = settle_bust(self.board, seat)
        self.phase = ENDED
        if self.observer is not None:
            self.observer.busted(seat, reason, total, returned, turned, roll)
        return ENDED

    def _expect(self, phase: int) -> None:
        if self.phase != phase:
            raise TurnError(
                f"the turn waits for {PHASE_NAMES[self.phase]}, not {PHASE_NAMES[phase]}"
                f" ({_RULE_OF[phase]})"
            )


# -- a turn stepped from outside ---------------------------------------------------------------
WAIT: Any = object()
"""What the stand-in strategy of a turn stepped from outside answers: the turn waits for
the question to be answered (by a step). An engine never takes it: with a judge, it is
an answer like any other (and no legal one)."""


class _Waiting:
    """The stand-in strategy of a turn stepped from outside: every question waits."""

    __slots__ = ()

    def pick(self, view: Any) -> Any:
        return WAIT

    def stop(self, view: Any) -> Any:
        return WAIT


class _Answer(_Waiting):
    """The stand-in strategy of a keep: the face, then every question waits."""

    __slots__ = ("face",)

    def __init__(self) -> None:
        self.face: Any = WAIT

    def pick(self, view: Any) -> Any:
        face, self.face = self.face, WAIT
        return face


_WAITING = _Waiting()


class _Given:
    """The dice block of a turn with no dice source (a dice source's is an int, dice.py):
    the roll handed to :meth:`Turn.apply_roll` (``code``: v < 6**n, as dice.roll_of
    reads it), then no roll (:data:`_NO_DICE`). The turn's loop reads every block the same
    way, so the engine's path has no check per roll for it."""

    __slots__ = ("code",)

    def __init__(self, code: int) -> None:
        self.code = code

    def __mod__(self, dice: int) -> int:
        return self.code

    def __floordiv__(self, base: int) -> _NoDice:
        return _NO_DICE


class _NoDice:
    """The dice block of a turn with no dice source and no roll handed in: it reads as
    dice.NO_ROLL (TABLE[n][6**n]), a roll that shows no face: the turn waits for one."""

    __slots__ = ()

    def __mod__(self, dice: int) -> int:
        return dice

    def __floordiv__(self, base: int) -> _NoDice:
        return self


_NO_DICE = _NoDice()


def _why_not_pick(face: Any, roll: Roll, free: int) -> str:
    """Why ``face`` is not a legal keep of ``roll`` (``free``: the faces not set aside)."""
    if type(face) is not int or not 1 <= face <= 6:
        return f"keep {face!r}: not a face 1-6 (R2)"
    if not free >> face & 1:
        return f"keep {face_name(face)}: already set aside this turn (R5)"
    shown = " ".join(face_name(f) for f in roll.faces)
    return f"keep {face_name(face)}: not in the roll {shown} (R5)"


def _roll_of(faces: Any) -> Roll:
    """The interned Roll of some faces (1-6), or TurnError (R2, R4)."""
    faces = tuple(faces)
    if not 1 <= len(faces) <= DICE or any(type(f) is not int or not 1 <= f <= 6 for f in faces):
        raise TurnError(f"roll {list(faces)}: 1 to 8 dice, faces 1-5 and W (6) (R2, R4)")
    return ROLLS[sum(1 << (4 * f) for f in faces)]


__all__ = [
    "CHANCE",
    "CLAIM",
    "ENDED",
    "PICK",
    "ROLL",
    "STOP_OR_ROLL",
    "Turn",
    "TurnError",
    "WAIT",
    "chance_outcomes",
]
