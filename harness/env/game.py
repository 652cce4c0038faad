"""A game stepped decision by decision: the Python engine with the control turned round.

The engine (:class:`harness.game.engine.Game`) asks strategies; an environment is asked by
its agent. :class:`SteppedGame` is a Game whose *agent seats* have no strategy: their
turns stop at each question (pick, stop, claim) until :meth:`SteppedGame.act` answers
it, while every other seat plays its strategy through the engine's own
``play_turn``. The agent's turns use the engine's dice decoding, its bust and claim
(``_bust``, ``_claim``: R7-R10 are written once), its views and its observer, so a
stepped game is the game the engine would play with the same answers, record
included (``harness replay`` takes it).

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

from harness.env.encoding import CLAIM, FIRST_CLAIM, PHASES, PICK, ROLL_ON, STOP, STOP_OR_ROLL
from harness.errors import GameError
from harness.game.board import ALL_FACES, FACES_OF, KEPT_OF, WORMS, Claim, legal_claims
from harness.game.dice import (
    BLOCK_BASE,
    DICE_MODES,
    POW6,
    ROLL_LIST,
    TABLE,
    DuplicateDice,
    SeededDice,
)
from harness.game.engine import BIT, DEFAULT_MAX_TURNS, LEGAL, Game, GameObserver, GameResult
from harness.game.rules import TILES, Rules, face_name
from harness.game.seating import design
from harness.game.strategy import Strategy
from harness.plugins import StrategySpec, resolve
from harness.tourney.plan import deal_seed, game_seed

REWARDS = ("margin", "win", "swing")
ILLEGAL = ("penalty", "raise")
DONE = -1  # the phase of a game with no question pending (over, capped or forfeited)
MAX_EPISODE = 2**63 - 1
"""The last episode number: ``info["episode"]`` is an int64 (the vector environment's
array, the C slots); an episode past it is refused, never wrapped to a negative one."""


class IllegalAction(ValueError):
    """An action the mask did not allow (with ``illegal="raise"``)."""


class _AgentSeat(Strategy):
    """The strategy of an agent seat: the engine asks it only which claim (R7), and it
    answers what the agent chose."""

    name = "agent"

    def __init__(self) -> None:
        self.answer: Claim | None = None

    def claim(self, view: Any, choices: Sequence[Claim]) -> Claim:
        assert self.answer is not None
        return self.answer


class SteppedGame(Game):
    """A :class:`~harness.game.engine.Game` whose agent seats (``None`` in ``strategies``)
    are asked through :meth:`act`.

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
        super().__init__(
            seats, rules, dice, names=names, observer=observer, max_turns=max_turns, seed=seed
        )
        self.agents = frozenset(i for i, s in enumerate(strategies) if s is None)
        self.phase = DONE
        self.deciding = -1
        self.error: GameError | None = None
        self._roll: Any = None
        self._block = 0
        self._free = ALL_FACES
        self._kept: tuple[int, ...] = ()
        self._total = 0
        self._left = 8
        self._worm = False
        self._low = 0

    # -- playing on to the next question -------------------------------------------------
    def advance(self) -> None:
        """Play until an agent seat is asked something or the game ends."""
        if self.phase != DONE:
            return
        if not self._started:
            try:
                self.start()
            except GameError as exc:
                self.error = exc
                return
        while not self._over and self.error is None and self._turn < self._max_turns:
            if self._turn % self._players not in self.agents:
                try:
                    self.play_turn()
                except GameError as exc:  # an opponent broke a rule or raised: it forfeits
                    self.error = exc
                    return
                continue
            self._begin_turn()
            if self._roll_dice():
                return

    def _begin_turn(self) -> None:
        """The first steps of ``Game.play_turn`` for an agent seat."""
        turn = self._turn
        self._turn = turn + 1
        seat = self.deciding = turn % self._players
        grill = self._grill
        self._views[seat].show_turn(turn + 1, grill, self._flipped, tuple(self._stacks))
        self._kept, self._total, self._left, self._worm = (), 0, 8, False
        self._free = ALL_FACES
        if self._observer is not None:
            self._observer.turn_started(turn + 1, seat)
        self._low = (grill & -grill).bit_length() - 1
        self._block = self._dice.start_turn(seat, turn // self._players)

    def _roll_dice(self) -> bool:
        """R4: roll the dice left. True: the agent picks next; False: the turn busted."""
        left = self._left
        roll = self._roll = ROLL_LIST[TABLE[left][self._block % POW6[left]]]
        self._block //= BLOCK_BASE
        new = roll.mask & self._free
        if not new:  # R5
            self._bust(self.deciding, "no-new-face", self._total, roll)
            self.phase = DONE
            return False
        view = self._views[self.deciding]
        view.counts = roll.counts
        view.choices = FACES_OF[new]
        self.phase = PICK
        return True

    # -- the agent's answers ---------------------------------------------------------------
    def legal(self, action: int) -> bool:
        """Whether ``action`` (see harness.env.encoding) answers the pending question."""
        phase = self.phase
        if type(action) is not int:
            return False
        if phase == PICK:
            return 1 <= action + 1 <= 6 and action + 1 in LEGAL[self._roll.mask & self._free]
        if phase == STOP_OR_ROLL:
            return action in (STOP, ROLL_ON)
        if phase == CLAIM:
            return any(action == FIRST_CLAIM + c.tile - TILES[0] for c in self._choices())
        return False

    def act(self, action: int) -> None:
        """Answer the pending question with a legal ``action`` (check :meth:`legal`
        first), then play on to the next question."""
        phase = self.phase
        if phase == PICK:
            self._keep(action + 1)
        elif phase == STOP_OR_ROLL:
            if action == STOP:
                self._stop()
            elif self._roll_dice():
                return
        else:
            tile = action - FIRST_CLAIM + TILES[0]
            self._strategies[self.deciding].answer = next(
                c for c in self._choices() if c.tile == tile
            )
            self._claim(self.deciding, self._total)
            self.phase = DONE
        if self.phase == DONE:
            self.advance()

    def _keep(self, face: int) -> None:
        """R5 and what follows it, as ``Game.play_turn`` does after a pick."""
        seat, roll, view = self.deciding, self._roll, self._views[self.deciding]
        self._free ^= BIT[face]
        view.kept = self._kept = self._kept + roll.dice_of[face]
        view.kept_faces = KEPT_OF[self._free]
        view.dice_left = left = self._left = self._left - roll.counts[face]
        view.total = total = self._total = self._total + roll.points[face]
        if face == 6:
            view.has_worm = self._worm = True
        if self._observer is not None:
            self._observer.kept(seat, roll, face, roll.counts[face], total, left)
        tops = self._tops
        if self._worm and (total >= self._low or total in tops and tops[seat] != total):
            if left:  # R6: the agent decides
                self.phase = STOP_OR_ROLL
                return
            self._stop()
        elif not left:  # R8
            self._bust(seat, "no-tile" if self._worm else "no-worm", total, None)
            self.phase = DONE
        else:
            self._roll_dice()

    def _choices(self) -> tuple[Claim, ...]:
        seat = self.deciding
        return legal_claims(seat, self._total, True, self._grill, self._tops, self._lower_any)

    def _stop(self) -> None:
        """R7: claim the one tile a stop takes, or ask which when there are several."""
        if len(self._choices()) > 1:
            self.phase = CLAIM
            return
        self._claim(self.deciding, self._total)
        self.phase = DONE

    # -- reading the game ---------------------------------------------------------------------
    @property
    def scores(self) -> list[int]:
        return list(self._scores)

    def outcome(self) -> GameResult:
        """The result now (a forfeit's seat ranked last, as the engine ranks it)."""
        return self.result(self.error)

    @property
    def finished(self) -> bool:
        """The game is over by the rules (R10) or by a forfeit: its end is scored."""
        return self.error is not None or self._over

    @property
    def capped(self) -> bool:
        """The game stopped at the turn cap, unfinished (a truncation, never scored)."""
        return not self.finished and self._turn >= self._max_turns


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
