"""Python seats at a native table: the plugin side of a game the C engine plays.

At a mixed table (a plugin and built-ins) harness/native/c/core.c plays the game, the
dice and the built-in seats; a seat with no native version is a *Python seat*, and
every decision of it is a call back into the :class:`SeatHost` here. The host builds a
fresh instance per game, as the Python engine's chunks do, and a *shadow*
:class:`harness.game.engine.Game` that plays nothing: it holds the seats' views, their
handed rules and names. The host asks the seat in the steps the Python turn takes
(:meth:`harness.game.turn.Turn.play`), inline as there (``View.show_turn`` at the start
of each of the seat's turns, the view's TURN_SLOTS as the turn goes, a pick judged by the
turn's ``LEGAL``), and judges every answer by the engine's containment surface
(``Game.fault``, ``check_pick``, ``check_stop``, ``ask_claim``: a claim is R7's
``legal_claims``), so a plugin that raises, lies through ``__eq__``, mutates its view or
calls ``sys.exit`` forfeits here exactly as on the Python engine, with the same message
and error_kind. The rules of the turn (R4, R6-R10) are the C engine's here; the host
keeps only what a keep sets aside (R5), for the view. It does not step a Turn: a turn
stepped from outside resumes its loop at each step, and stepping one per pick
(``apply_roll``, ``keep``) made a plugin at a native table 3.2x slower (4,565 against
14,418 games per CPU-second, benchmarks/native_plugin_speed.py, 300 deals, 3 rounds).

The C code is told a decision as a plain int, or a forfeit as ``-1 - (kind * 8 +
seat)`` (``kind``: the error_kind code); the forfeit's message is kept in
:attr:`SeatHost.errors` by chunk row. Anything else a callback raises (the user's
Ctrl-C, see :mod:`harness.interrupts`) leaves the C code and propagates to the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from time import perf_counter_ns
from typing import Any

from harness.errors import GameError, safe_text
from harness.game.board import ALL_FACES, FACES_OF, KEPT_OF
from harness.game.dice import ROLLS
from harness.game.engine import Game, build_instances
from harness.game.rules import Rules
from harness.game.seating import seats_of
from harness.game.strategy import Strategy
from harness.game.turn import BIT, LEGAL
from harness.runfolder.schema import ERROR_KINDS
from harness.runfolder.timing import ChunkTimes

_KIND_CODES = {kind: code for code, kind in enumerate(ERROR_KINDS)}


class _Native(Strategy):
    """Stands in the shadow game for a seat the C code plays: it is never asked."""

    name = "native"


Hooks = Callable[..., Any]


class SeatHost:
    """The Python seats of one native batch: the callbacks core.c calls.

    ``factories[e]`` makes a fresh instance of table entrant e for each game (None: a
    native entrant); ``orders`` is the seating design (seat i of order k holds entrant
    ``orders[k][i]``); ``names[e]`` the entrants' names. A row's chunk row is
    ``(deal - first) * len(orders) + k`` (``first`` None: the row is the deal number,
    for explicit rows). ``mark(row)`` is told each game's row before anything of it
    runs, ``playing(deal, k, row, names, instances)`` the instances once built (what
    labels a plugin's output), ``forfeited(error, deal, k)`` each forfeit. ``times`` (a
    :class:`~harness.runfolder.timing.ChunkTimes`) gets the decision times of the
    entrants ``timed`` says, in the rows it times, as the Python engine's chunks time
    them.
    """

    def __init__(
        self,
        rules: Rules,
        factories: Sequence[Callable[[], Strategy] | None],
        names: Sequence[str],
        orders: Sequence[Sequence[int]],
        *,
        max_turns: int,
        first: int | None = 0,
        mark: Hooks | None = None,
        playing: Hooks | None = None,
        forfeited: Hooks | None = None,
        times: ChunkTimes | None = None,
        timed: Sequence[bool] = (),
    ) -> None:
        self.rules = rules
        self.factories = tuple(factories)
        self.orders = tuple(tuple(o) for o in orders)
        self.names = [seats_of(names, order) for order in self.orders]
        self.max_turns = max_turns
        self.first = first
        self.mark, self.playing, self.forfeited = mark, playing, forfeited
        self.times = times if times is not None and any(timed) else None
        self.timed = tuple(timed)
        # Per game: the timed seats' entrants (-1: a seat not timed); None: nothing timed.
        self.clock: list[int] | None = None
        self.errors: dict[int, str] = {}
        # Per game: the shadow game, its instances and views, the row; per turn: the
        # board, the seat's view and the turn state.
        self.game: Any = None
        self.instances: tuple[Strategy, ...] = ()
        self.views: tuple[Any, ...] = ()
        self.board: tuple = (0, 0, 0, ())
        self.deal = self.k = self.row = -1
        self.view: Any = None
        self.pick_of: Any = None
        self.free = ALL_FACES
        self.total, self.left = 0, 8
        self.kept: tuple[int, ...] = ()
        self.callbacks = (self.start, self.turn, self.pick, self.stop, self.claim)

    # -- the callbacks (core.c host_call) --------------------------------------------
    def start(self, deal: int, k: int, gseed: int) -> int:
        """A game begins: fresh instances, a shadow game, every new_game (Game.start)."""
        m = len(self.orders)
        row = deal if self.first is None else (deal - self.first) * m + k
        self.deal, self.k, self.row = deal, k, row
        if self.mark is not None:
            self.mark(row)
        names = self.names[k]
        # As every engine builds them: seat by seat; the last failure is the forfeit.
        instances, failed = build_instances(
            seats_of(self.factories, self.orders[k]),
            names,
            native_as=_Native,
        )
        if self.playing is not None:
            self.playing(deal, k, row, names, instances)
        self.clock = None
        if self.times is not None and self.times.timed(row):
            self.clock = [e if self.timed[e] else -1 for e in self.orders[k]]
            for e in self.clock:
                if e >= 0:
                    self.times.games[e] += 1
        if failed is not None:
            return self._forfeit(failed)
        game = self.game = Game(
            instances, self.rules, None, names=names, max_turns=self.max_turns, seed=gseed
        )
        # A tuple, as the game's own: the list went to `playing`, within a plugin's reach.
        self.instances, self.views = tuple(instances), game.views
        try:
            game.start()
        except GameError as error:
            return self._forfeit(error)
        return 0

    def turn(self, seat: int, turn: int, grill: int, flipped: int, stacks: tuple) -> int:
        """One of the seat's turns begins: the board into its view (as Game.play_turn)."""
        # The board reaches the shadow game only when a claim is judged (Game.ask_claim):
        # the checks of a pick or a stop need the turn number alone.
        self.board = (turn, grill, flipped, stacks)
        view = self.view = self.views[seat]
        view.show_turn(turn, grill, flipped, stacks)
        self.total, self.left, self.free, self.kept = 0, 8, ALL_FACES, ()
        try:
            self.pick_of = self.instances[seat].pick
        except BaseException as exc:
            return self._forfeit(self.game.fault(turn, seat, "pick", exc), exc)
        return 0

    def pick(self, seat: int, shown: int) -> int:
        """The seat picks from a roll (``shown``: packed counts, as dice.ROLLS keys)."""
        view = self.view
        roll = ROLLS[shown]
        free = self.free
        new = roll.mask & free
        # The steps of Game.play_turn, inline (a call per roll costs ~9% here): the turn
        # state as the engine writes it (view.TURN_SLOTS), the answer by its checks.
        view.counts = roll.counts
        view.choices = FACES_OF[new]
        try:
            if self.clock is None:
                face = self.pick_of(view)
            else:  # a timed game (harness.runfolder.timing): inline, as _took
                start = perf_counter_ns()
                face = self.pick_of(view)
                d = perf_counter_ns() - start
                e = self.clock[seat]
                if e >= 0:
                    times = self.times
                    times.ns[e] += d  # type: ignore[union-attr]
                    b = d.bit_length()
                    times.hist[e][(b << 2) | ((d >> (b - 3)) & 3) if b > 2 else b << 2] += 1  # type: ignore[union-attr]
        except BaseException as exc:
            return self._forfeit(self.game.fault(self.board[0], seat, "pick", exc), exc)
        if type(face) is not int or face not in LEGAL[new]:
            try:
                face = self.game.check_pick(self.board[0], seat, face, roll, free)
            except GameError as error:
                return self._forfeit(error)
        # From the host's own turn state, never read back from the view (a plugin may
        # have written to it: that fools only itself, as on the Python engine).
        self.free = free = free ^ BIT[face]
        view.kept = self.kept = self.kept + roll.dice_of[face]
        view.kept_faces = KEPT_OF[free]
        view.dice_left = self.left = self.left - roll.counts[face]
        view.total = self.total = self.total + roll.points[face]
        if face == 6:
            view.has_worm = True
        return face

    def stop(self, seat: int) -> int:
        """1: the seat stops (R6); 0: it rolls on."""
        try:
            if self.clock is None:
                stop = self.instances[seat].stop(self.view)
            else:
                start = perf_counter_ns()
                stop = self.instances[seat].stop(self.view)
                self._took(seat, start)
        except BaseException as exc:
            return self._forfeit(self.game.fault(self.board[0], seat, "stop", exc), exc)
        if stop is not True:
            if stop is not False:
                try:
                    stop = self.game.check_stop(self.board[0], seat, stop)
                except GameError as error:
                    return self._forfeit(error)
            if not stop:
                return 0
        return 1

    def claim(self, seat: int, total: int) -> int:
        """The claim chosen (R7), as ``tile * 8 + victim + 1`` (victim -1: the grill)."""
        try:
            if self.clock is None:
                choice = self.game.ask_claim(seat, total, *self.board)
            else:  # the whole ask: the claims offered, the answer and its check
                start = perf_counter_ns()
                choice = self.game.ask_claim(seat, total, *self.board)
                self._took(seat, start)
        except GameError as error:
            return self._forfeit(error)
        victim = -1 if choice.victim is None else choice.victim
        return choice.tile * 8 + victim + 1

    def _took(self, seat: int, start: int) -> None:
        """A timed decision of ``seat`` ended (harness.runfolder.timing, inline)."""
        e = self.clock[seat]  # type: ignore[index]
        if e < 0:
            return
        times = self.times
        d = perf_counter_ns() - start
        times.ns[e] += d  # type: ignore[union-attr]
        b = d.bit_length()
        times.hist[e][(b << 2) | ((d >> (b - 3)) & 3) if b > 2 else b << 2] += 1  # type: ignore[union-attr]

    # -- forfeits ------------------------------------------------------------------------
    def _forfeit(self, error: GameError, cause: BaseException | None = None) -> int:
        if cause is not None:
            error.__cause__ = cause
        self.errors[self.row] = safe_text(error)
        if self.forfeited is not None:
            self.forfeited(error, self.deal, self.k)
        kind = _KIND_CODES.get(getattr(error, "kind", None), _KIND_CODES["raised"])
        return -1 - (kind * 8 + error.seat)


__all__ = ["SeatHost"]
