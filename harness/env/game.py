"""A game stepped decision by decision: the Python engine with the control turned round.

The engine (:class:`harness.game.engine.Game`) asks strategies; an environment is asked by
its agent. :class:`SteppedGame` holds a Game whose *agent seats* have no strategy: their
turns (:meth:`Game.begin_turn`, a :class:`harness.game.turn.Turn`) stop at each question
(pick, stop, claim) until :meth:`SteppedGame.act` answers it with the turn's own steps,
while every other seat plays its strategy through the engine's ``play_turn``. Both are the
one turn of harness.game.turn on the game's board, dice, views and observer, so a stepped
game is the game the engine would play with the same answers, record included
(``harness replay`` takes it).

Which game an episode is (:class:`Schedule`) follows the tournaments: episode e of a
run seeded ``seed`` is deal ``e // m`` (its deal seed ``deal_seed(seed, deal)``) in seat
order ``e % m`` of the design, the agent as table entrant 0. With duplicate dice a seat
sees the same dice as that seat of the same deal in any tournament with that seed.

Rewards (:data:`REWARDS`) are read off the scores: ``margin`` pays each seat's worms
minus the mean of the others' when the game is over; ``win`` pays the win share (1 for
a sole winner, 1/k for k shared firsts, R11); ``swing`` pays the change of that margin
at every turn's end, so an episode's swings add up to its margin.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.env.encoding import FIRST_CLAIM, PHASES, PICK, ROLL_ON, STOP, STOP_OR_ROLL
from harness.errors import GameError
from harness.game import board as game_board
from harness.game.board import WORMS
from harness.game.dice import DICE_MODES, DuplicateDice, SeededDice
from harness.game.engine import DEFAULT_MAX_TURNS, Game, GameObserver, GameResult
from harness.game.rules import TILES, Rules, face_name
from harness.game.seating import deal_seed, design, game_seed
from harness.game.strategy import Strategy
from harness.game.turn import ENDED, Turn
from harness.game.view import View
from harness.plugins import StrategySpec, resolve

REWARDS = ("margin", "win", "swing")
ILLEGAL = ("penalty", "raise")
DONE = ENDED  # the phase of a game with no question pending (over, capped or forfeited)
MAX_EPISODE = 2**63 - 1
"""The last episode number: ``info["episode"]`` is an int64 (the vector environment's
array, the C slots); an episode past it is refused, never wrapped to a negative one."""


class IllegalAction(ValueError):
    """An action the mask did not allow (with ``illegal="raise"``)."""


class _AgentSeat(Strategy):
    """Holds an agent seat in the game: the agent answers its turns' questions through
    :meth:`SteppedGame.act`, so the engine never asks it anything."""

    name = "agent"


class SteppedGame:
    """A :class:`~harness.game.engine.Game` whose agent seats (``None`` in ``strategies``)
    are asked through :meth:`act` (arguments as Game's).

    :meth:`advance` plays on (other seats' turns, dice, busts) until an agent seat has a
    question (``phase`` PICK, STOP_OR_ROLL or CLAIM, ``deciding`` its seat) or the game
    ends (``phase`` DONE: over, capped at ``max_turns``, or a strategy's forfeit in
    ``error``). The deciding seat's view (``views[deciding]``) shows the question as its
    strategy would see it.
    """

    def __init__(
        self,
        strategies: Sequence[Strategy | None],
        rules: Rules,
        dice: Any,
        *,
        names: Sequence[str] | None = None,
        observer: GameObserver | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        seed: int | None = None,
    ) -> None:
        seats = [_AgentSeat() if s is None else s for s in strategies]
        self._game = Game(
            seats, rules, dice, names=names, observer=observer, max_turns=max_turns, seed=seed
        )
        self.agents = frozenset(i for i, s in enumerate(strategies) if s is None)
        self.phase = DONE
        self.deciding = -1
        self.error: GameError | None = None
        self._turn: Turn | None = None  # the agent's turn in progress

    # -- playing on to the next question -------------------------------------------------
    def advance(self) -> None:
        """Play until an agent seat is asked something or the game ends."""
        if self.phase != DONE:
            return
        game = self._game
        try:
            game.start()
        except GameError as exc:
            self.error = exc
            return
        while not game.over and self.error is None and game.turn < game.max_turns:
            if game.seat_to_play not in self.agents:
                try:
                    game.play_turn()
                except GameError as exc:  # an opponent broke a rule or raised: it forfeits
                    self.error = exc
                    return
                continue
            turn = self._turn = game.begin_turn()
            if turn.phase != ENDED:  # the first roll is the agent's to pick from
                self.phase, self.deciding = turn.phase, turn.seat
                return

    # -- the agent's answers ---------------------------------------------------------------
    def legal(self, action: int) -> bool:
        """Whether ``action`` (see harness.env.encoding) answers the pending question."""
        phase = self.phase
        if type(action) is not int or phase == DONE:
            return False
        turn = self._turn
        assert turn is not None
        if phase == PICK:
            return action + 1 in turn.picks
        if phase == STOP_OR_ROLL:
            return action in (STOP, ROLL_ON)
        return any(action == FIRST_CLAIM + c.tile - TILES[0] for c in turn.claims())

    def act(self, action: int) -> None:
        """Answer the pending question with a legal ``action`` (check :meth:`legal`
        first), then play on to the next question."""
        turn = self._turn
        assert turn is not None and self.phase != DONE
        if self.phase == PICK:
            phase = turn.keep(action + 1)
        elif self.phase == STOP_OR_ROLL:
            phase = turn.stop() if action == STOP else turn.roll_on()
        else:
            tile = action - FIRST_CLAIM + TILES[0]
            phase = turn.take(next(c for c in turn.claims() if c.tile == tile))
        if phase == ENDED:
            self.phase = DONE
            self.advance()
        else:
            self.phase = phase

    # -- reading the game ---------------------------------------------------------------------
    @property
    def views(self) -> tuple[View, ...]:
        """Each seat's view (the deciding seat's shows its question)."""
        return self._game.views

    @property
    def board(self) -> game_board.Board:
        """The game's board (read it; the game changes it)."""
        return self._game.board

    @property
    def turn(self) -> int:
        """Turns begun so far (the current turn's number while one is in progress)."""
        return self._game.turn

    @property
    def scores(self) -> list[int]:
        return list(self._game.board.scores)

    def result(self, error: GameError | None = None) -> GameResult:
        """The result now (``error``: its seat forfeits, as :meth:`Game.result`)."""
        return self._game.result(error)

    def outcome(self) -> GameResult:
        """The result now (a forfeit's seat ranked last, as the engine ranks it)."""
        return self._game.result(self.error)

    @property
    def finished(self) -> bool:
        """The game is over by the rules (R10) or by a forfeit: its end is scored."""
        return self.error is not None or self._game.over

    @property
    def capped(self) -> bool:
        """The game stopped at the turn cap, unfinished (a truncation, never scored)."""
        return not self.finished and self._game.turn >= self._game.max_turns


# -- rewards ----------------------------------------------------------------------------------
def margin(scores: Sequence[int], seat: int) -> float:
    """A seat's worms minus the mean of the others' worms (the same double in C)."""
    n = len(scores)
    return (n * scores[seat] - sum(scores)) / (n - 1)


def win_share(ranks: Sequence[int], seat: int) -> float:
    """1 for a sole winner, 1/k for each of k seats sharing first place (R11), else 0."""
    return 1 / ranks.count(1) if ranks[seat] == 1 else 0.0


def final_reward(kind: str, result: GameResult, seat: int) -> float:
    """What ``margin`` and ``win`` pay at a finished game's end (``swing`` pays 0 there:
    its margin was paid turn by turn)."""
    if kind == "margin":
        return margin(result.scores, seat)
    if kind == "win":
        return win_share(result.ranks, seat)
    return 0.0


def check_choice(what: str, value: Any, allowed: Sequence[Any]) -> None:
    """One line (ValueError) unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{what}: expected one of {', '.join(map(str, allowed))}, got {value!r}")


def check_reward(what: str, value: Any) -> float:
    """``value`` as a finite float, or one line (ValueError): a NaN or an infinity would
    poison every return it is summed into."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: expected a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(number):
        raise ValueError(f"{what}: expected a finite number, got {value!r}")
    return number


def check_episode(episode: int, where: str = "episode") -> int:
    """``episode`` if it is an episode number (0 to :data:`MAX_EPISODE`), else one line."""
    if not 0 <= episode <= MAX_EPISODE:
        raise ValueError(
            f"{where}: episode {episode} is past the last episode number, 2**63 - 1 "
            "(an int64): reset with a smaller start or stride"
        )
    return episode


# -- which game an episode is --------------------------------------------------------------------
@dataclass(frozen=True)
class Episode:
    """One episode's game: its deal, seat order and dice."""

    deal: int
    order: int  # the index of the seat order in the schedule's design
    seats: tuple[int, ...]  # seat i holds table entrant seats[i] (entrant 0: the agent)
    deal_seed: int
    game_seed: int  # the dice of independent dice, and view.rng
    dice: str

    @property
    def agent_seat(self) -> int:
        return self.seats.index(0)

    def dice_source(self) -> DuplicateDice | SeededDice:
        if self.dice == "duplicate":
            return DuplicateDice(self.deal_seed)
        return SeededDice(self.game_seed)


@dataclass(frozen=True)
class Schedule:
    """Which game episode e is: deal ``e // m`` in seat order ``e % m``.

    ``seat`` None rotates the agent (table entrant 0) through the orders of the
    ``seating`` design, as a tournament plays a deal; an int fixes the agent's seat
    (the cyclic order that puts it there, one game a deal).
    """

    players: int
    seat: int | None = None
    seating: str = "balanced"
    dice: str = "duplicate"

    def __post_init__(self) -> None:
        check_choice("dice", self.dice, DICE_MODES)
        if self.seat is not None and (
            type(self.seat) is not int or not 0 <= self.seat < self.players
        ):
            raise ValueError(
                f"seat: expected 'rotate' or a seat 0..{self.players - 1}, got {self.seat!r}"
            )

    @property
    def orders(self) -> tuple[tuple[int, ...], ...]:
        if self.seat is None:
            return design(self.players, self.seating)
        cyclic = design(self.players, "cyclic")
        return (cyclic[(self.players - self.seat) % self.players],)

    def order_index(self, k: int) -> int:
        """The index of ``orders[k]`` in its design (what independent dice are keyed by)."""
        if self.seat is None:
            return k
        return (self.players - self.seat) % self.players

    def episode(self, seed: int, e: int) -> Episode:
        check_episode(e)
        orders = self.orders
        deal, k = divmod(e, len(orders))
        dseed = deal_seed(seed, deal)
        gseed = game_seed(dseed, self.order_index(k), self.dice)
        return Episode(deal, k, orders[k], dseed, gseed, self.dice)


# -- the other seats -----------------------------------------------------------------------------
def seat_makers(strategies: Sequence[Any]) -> list[tuple[str, Callable[[], Strategy]]]:
    """(display name, maker) per seat: a reference (``"greedy"``, ``"bots.py:Mine"``) or a
    resolved spec is built afresh for every episode, as tournaments do; an instance (a
    policy adapter, say) is reused. A bad reference is one line (PluginError)."""
    makers: list[tuple[str, Callable[[], Strategy]]] = []
    for item in strategies:
        if isinstance(item, Strategy):
            makers.append((_label(item), lambda item=item: item))
        else:
            spec = item if isinstance(item, StrategySpec) else resolve(item)
            makers.append((spec.display_label, spec.create))
    return makers


def _label(strategy: Strategy) -> str:
    name = getattr(strategy, "name", "")
    return name if isinstance(name, str) and name else type(strategy).__name__


# -- drawing the board (render_mode="ansi") -------------------------------------------------------
@dataclass(frozen=True)
class Board:
    """A game as plain values, for people: what :func:`draw` shows."""

    turn: int
    grill: tuple[int, ...]
    flipped: tuple[int, ...]
    stacks: tuple[tuple[int, ...], ...]
    deciding: int = -1  # the seat asked, -1: none
    phase: int = DONE
    rolled: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()
    total: int = 0
    left: int = 8
    ended: str = ""  # "over", "turn-cap", "forfeit: ..." once the game has ended


def board_of(game: SteppedGame) -> Board:
    res = game.result(game.error)
    if game.phase == DONE:
        ended = f"forfeit: {game.error}" if game.error is not None else res.status
        return Board(
            res.turns,
            tuple(res.grill),
            tuple(res.flipped),
            tuple(map(tuple, res.stacks)),
            ended=ended,
        )
    view = game.views[game.deciding]
    return Board(
        res.turns,
        tuple(res.grill),
        tuple(res.flipped),
        tuple(map(tuple, res.stacks)),
        game.deciding,
        game.phase,
        view.rolled,
        view.kept,
        view.total,
        view.dice_left,
    )


def draw(board: Board, names: Sequence[str]) -> str:
    """The board as text: grill, face-down tiles, stacks and worms, the turn in progress."""
    lines = [f"turn {board.turn}" + (f" ({board.ended})" if board.ended else "")]
    lines.append("grill:     " + (" ".join(map(str, board.grill)) or "-"))
    lines.append("face down: " + (" ".join(map(str, board.flipped)) or "-"))
    for seat, stack in enumerate(board.stacks):
        mark = ">" if seat == board.deciding else " "
        worms = sum(WORMS[t] for t in stack)
        lines.append(
            f"{mark} seat {seat} {names[seat]}: {' '.join(map(str, stack)) or '-'} ({worms} worms)"
        )
    if board.phase != DONE:
        rolled = " ".join(face_name(f) for f in board.rolled)
        kept = " ".join(face_name(f) for f in board.kept) or "-"
        lines.append(f"rolled {rolled}; kept {kept}: total {board.total}, {board.left} dice left")
        lines.append(f"asks seat {board.deciding}: {PHASES[board.phase]}")
    return "\n".join(lines) + "\n"


__all__ = [
    "DICE_MODES",
    "DONE",
    "Episode",
    "ILLEGAL",
    "IllegalAction",
    "MAX_EPISODE",
    "REWARDS",
    "Schedule",
    "SteppedGame",
    "check_episode",
    "check_reward",
    "final_reward",
    "margin",
    "Board",
    "board_of",
    "draw",
    "seat_makers",
    "win_share",
]
