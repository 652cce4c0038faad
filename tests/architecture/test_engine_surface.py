"""One containment on both engines: harness.game.engine.Game's containment surface
(``views``, ``fault``, ``check_pick``, ``check_stop``, ``ask_claim``) as the C engine's
Python seats use it (harness.native.seats.SeatHost), and ``play_observed``.

``Game.play_turn`` and ``SeatHost`` take the same steps inline, for speed, and judge
answers by the same checks. Here a game is played by ``play_turn`` while every question
is logged; then the same questions are put, as core.c puts them, to a SeatHost driven
from Python (no native build needed). The strategies must see the same views, give the
same answers and, when they cheat or raise, forfeit with the same error, word for word.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from harness.errors import GameError
from harness.game.dice import ROLLS, SeededDice
from harness.game.engine import Game, GameObserver, observing
from harness.game.record import RecordBuilder
from harness.native.seats import SeatHost
from harness.play import play_game, play_observed
from harness.plugins import resolve
from harness.rules import Rules
from harness.runfolder.schema import ERROR_KINDS
from harness.strategy import Strategy

pytestmark = pytest.mark.engine

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile"
BY_COUNTS = {roll.counts: roll for roll in ROLLS.values()}


class Nosy(Strategy):
    """Decides from everything its view shows (a view fed differently plays otherwise),
    and keeps what it saw, call by call."""

    name = "nosy"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def _h(self, view, *more) -> int:
        text = repr((view.snapshot(), view.claims, view.rolled, view.kept_faces,
                     view.bust_cost(), view.rng.random(), *more))  # fmt: skip
        self.seen.append(text)
        return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big")

    def pick(self, view):
        return view.choices[self._h(view) % len(view.choices)]

    def stop(self, view):
        return self._h(view) % 3 != 0

    def claim(self, view, choices):
        return choices[self._h(view, choices) % len(choices)]


class Logged(Strategy):
    """Passes every question on, logging it first: which question, and the roll (read
    before the strategy is asked: a scribbler's view is junk after)."""

    def __init__(self, inner: Strategy, log: list) -> None:
        self.inner, self.log, self.name = inner, log, inner.name

    def new_game(self, seat, rules):
        self.seat = seat
        self.inner.new_game(seat, rules)

    def pick(self, view):
        self.log.append(("pick", self.seat, view.counts))
        return self.inner.pick(view)

    def stop(self, view):
        self.log.append(("stop", self.seat))
        return self.inner.stop(view)

    def claim(self, view, choices):
        self.log.append(("claim", self.seat))
        return self.inner.claim(view, choices)


class Board(GameObserver):
    """Logs each turn's board (as the C engine hands it over), each keep's total and
    each claim."""

    def __init__(self, log: list) -> None:
        self.log, self.board = log, None

    def handed(self, board):
        self.board = board

    def turn_started(self, turn, seat):
        b = self.board
        self.log.append(("turn", seat, turn, b.grill, b.flipped, tuple(b.stacks)))

    def kept(self, seat, roll, face, count, total, left):
        self.log.append(("kept", seat, total))

    def claimed(self, seat, claim, total):
        self.log.append(("claimed", seat, claim, total))


def fresh(refs: list[str]) -> list[Strategy]:
    return [Nosy() if r == "nosy" else resolve(r).create() for r in refs]


def by_play_turn(refs: list[str], rules: Rules, seed: int) -> tuple[list, list, str | None]:
    """The game on play_turn: its log, what the strategies saw, its forfeit."""
    log: list = []
    board = Board(log)
    inner = fresh(refs)
    game = Game([Logged(s, log) for s in inner], rules, SeededDice(seed), observer=board,
                names=refs, seed=seed)  # fmt: skip
    try:
        game.play()
        error = None
    except GameError as exc:
        error = f"{exc.kind}: {exc}"
    return log, [getattr(s, "seen", None) for s in inner], error


SHOWN = {roll.counts: key for key, roll in ROLLS.items()}  # a roll as core.c names it


def by_surface(log: list, refs: list[str], rules: Rules, seed: int) -> tuple[list, str | None]:
    """The same questions to a SeatHost (fresh instances), as core.c would ask them."""
    made: list[Strategy] = []

    def factory(ref):
        def build():
            made.append(fresh([ref])[0])
            return made[-1]

        return build

    host = SeatHost(rules, [factory(r) for r in refs], refs, [tuple(range(len(refs)))],
                    max_turns=1000, first=None)  # fmt: skip
    asked = None
    total = 0
    answers = [host.start(0, 0, seed)]
    for event in log:
        kind, seat = event[0], event[1]
        if kind == "turn":
            answers.append(host.turn(*event[1:]))
        elif kind == "pick":
            answers.append(host.pick(seat, SHOWN[event[2]]))
        elif kind == "stop":
            answers.append(host.stop(seat))
        elif kind == "kept":
            total = event[2]
        elif kind == "claim":  # several claims: the strategy was asked
            answers.append(asked := host.claim(seat, total))
        else:  # claimed: the one legal claim needs no question
            code = asked if asked is not None else host.claim(seat, total)
            claim = event[2]
            victim = -1 if claim.victim is None else claim.victim
            assert (code, total) == (claim.tile * 8 + victim + 1, event[3])
            asked = None
        if answers[-1] < 0:
            break
    error = host.errors.get(0)
    if error is not None:
        error = f"{ERROR_KINDS[(-1 - answers[-1]) // 8]}: {error}"
    return [getattr(s, "seen", None) for s in made], error


def assert_one_containment(refs: list[str], preset: str, seeds: range) -> int:
    """Every game of ``seeds`` alike both ways; the number of forfeits."""
    rules = Rules.preset(preset, len(refs))
    forfeits = 0
    for seed in seeds:
        log, seen, error = by_play_turn(refs, rules, seed)
        assert by_surface(log, refs, rules, seed) == (seen, error), (refs, seed)
        forfeits += error is not None
    return forfeits


def h(ref: str) -> str:
    return f"{HOSTILE / ref}"


@pytest.mark.parametrize("preset", ["official", "french", "piko-blog"])
def test_the_surface_shows_and_asks_what_play_turn_does(preset):
    # Nosy hashes every view it is shown: one value fed differently and the games part.
    assert assert_one_containment(["nosy", "greedy", "nosy"], preset, range(6)) == 0
    assert assert_one_containment(["tactician", "nosy"], preset, range(6)) == 0


LIARS = [
    "engine_liars.py:Rekeeper",
    "engine_liars.py:Rekeeper(value=7)",
    "engine_liars.py:LyingStop(value=2)",
    *(f"engine_liars.py:LyingClaim(kind='{k}')" for k in ("tuple", "tile", "victim", "bare")),
    "engine_reach.py:Scribbler",
    *(f"engine_liars.py:Answers(method='{m}', answer={a})"
      for m, a in [("pick", "None"), ("pick", "True"), ("pick", "4.0"), ("pick", "-1"),
                   ("pick", "9007199254740992"), ("stop", "2"), ("stop", "None"),
                   ("stop", "1"), ("claim", "(21, 5)"), ("claim", "99"), ("claim", "'x'")]),
]  # fmt: skip


@pytest.mark.parametrize("liar", LIARS)
def test_a_liar_forfeits_word_for_word_as_on_play_turn(liar):
    # French rules with three seats: several claims are legal, so claim() is asked.
    assert_one_containment([h(liar), "tactician", "greedy"], "french", range(3))


@pytest.mark.parametrize("method", ["pick", "stop", "claim"])
def test_a_raiser_forfeits_word_for_word_as_on_play_turn(method):
    forfeits = 0
    for what in ("exit", "unprintable", "huge", "nameless", "recursion"):
        raiser = h(f"engine_raisers.py:Throws(method='{method}', what='{what}')")
        forfeits += assert_one_containment(["tactician", raiser, "greedy"], "french", range(2))
    assert forfeits >= 5  # the test can fail: every raiser was asked and forfeited


class Takes(Strategy):
    """Picks worms; claims the ``index``-th choice (99: a claim that is no tile)."""

    def __init__(self, index: int = 0) -> None:
        self.index = index

    def pick(self, view):
        return 6

    def claim(self, view, choices):
        return 99 if self.index == 99 else choices[self.index]


def test_a_claim_is_judged_on_the_board_given_not_on_a_scribbled_game():
    # A plugin that found the shadow game (gc) and wrote to it fools only itself: the
    # claim's choices, and a refusal's turn number, come from the board handed over.
    board = (3, 1 << 25, 0, ((), (27,)))  # turn 3: grill 25, seat 1's top 27
    for index, expected in ((0, (27, 1)), (1, (25, None))):
        game = Game([Takes(index), Takes()], Rules(players=2), None, seed=1)
        game._grill, game._tops, game._stacks, game._turn = 0, [0, 0], [(), ()], 9
        claim = game.ask_claim(0, 27, *board)
        assert (claim.tile, claim.victim) == expected
    game = Game([Takes(99), Takes()], Rules(players=2), None, seed=1)
    game._turn = 9
    with pytest.raises(GameError, match=r"^turn 3, seat 0 .*claimed 99, not a tile"):
        game.ask_claim(0, 27, *board)


def test_the_checks_judge_plain_values_with_the_turn_given():
    game = Game([Takes(), Takes()], Rules(players=2), None, names=["a", "b"], seed=1)
    roll = BY_COUNTS[(0, 0, 0, 0, 0, 2, 2)]
    liar = type("Liar", (int,), {"__eq__": lambda a, b: True, "__hash__": lambda a: 6})(5)
    assert type(game.check_pick(4, 1, liar, roll, 0b1111110)) is int  # its value: 5
    assert game.check_pick(4, 1, liar, roll, 0b1111110) == 5
    with pytest.raises(GameError, match=r"^turn 4, seat 1 \(b\) picked W, already set aside"):
        game.check_pick(4, 1, 6, roll, 0b0111110)
    with pytest.raises(GameError, match=r"^turn 7, seat 0 \(a\) pick\(\) returned True"):
        game.check_pick(7, 0, True, roll, 0b1111110)
    assert game.check_stop(2, 0, 1) is True and game.check_stop(2, 0, 0) is False
    with pytest.raises(GameError, match=r"^turn 2, seat 0 \(a\) stop\(\) returned 2"):
        game.check_stop(2, 0, 2)
    verdict = game.fault(5, 1, "stop", SystemExit(3))
    assert str(verdict) == "turn 5, seat 1 (b) raised SystemExit in stop(): 3"
    assert len(game.views) == 2 and game.views[1].seat == 1


def test_a_pick_is_judged_on_the_hosts_own_turn_state_never_the_views():
    host = SeatHost(Rules(players=2), [Takes, Takes], ["a", "b"], [(0, 1)], max_turns=9)
    full = (1 << 37) - (1 << 21)
    assert host.start(0, 0, 1) == 0 and host.turn(1, 2, full, 0, ((), ())) == 0
    assert host.pick(1, SHOWN[(0, 0, 0, 0, 0, 4, 4)]) == 6
    view = host.game.views[1]
    assert (view.kept, view.total, view.dice_left, view.has_worm) == ((6,) * 4, 20, 4, True)
    assert view.kept_faces == (6,) and view.choices == (5, 6)
    view.kept, view.kept_faces, view.choices = (), (), (5, 6)  # a plugin scribbling on it
    assert host.pick(1, SHOWN[(0, 0, 0, 0, 0, 2, 2)]) == -1 - (ERROR_KINDS.index("rule") * 8 + 1)
    assert "turn 2, seat 1 (b) picked W, already set aside" in host.errors[0]
    host.turn(1, 4, full, 0, ((), ()))  # a new turn starts afresh
    assert host.pick(1, SHOWN[(0, 0, 0, 0, 0, 2, 2)]) == 6
    assert (view.kept, view.total, view.dice_left) == ((6, 6), 10, 6)


# -- one game with its observers --------------------------------------------------------------
def test_observing_folds_observers_into_one():
    a, b = GameObserver(), GameObserver()
    assert observing() is None and observing(None, None) is None
    assert observing(None, a) is a
    fan = observing(a, None, b)
    assert fan.observers == [a, b]


def test_play_observed_records_and_narrates_one_game():
    heard: list = []

    class Ear(GameObserver):
        def claimed(self, seat, claim, total):
            heard.append((seat, claim.tile))

    rules = Rules(players=2)
    seats = [resolve("greedy").create(), resolve("tactician").create()]
    result = play_observed(seats, rules, SeededDice(5), names=["a", "b"], seed=5,
                           record=True, observer=Ear())  # fmt: skip
    same = play_game(["greedy", "tactician"], seed=5, record=True, names=["a", "b"])
    assert result.record == same.record and result.scores == same.scores
    assert len(heard) == sum(1 for t in result.record["turns"] if "claim" in t["end"]
                             or "steal" in t["end"])  # fmt: skip
    builder = RecordBuilder(rules, ["a", "b"], 5)
    again = play_observed([resolve("greedy").create(), resolve("tactician").create()], rules,
                          SeededDice(5), names=["a", "b"], seed=5, observer=builder)  # fmt: skip
    # a bare RecordBuilder writes the moves; play_observed's record adds each turn's
    # luck and skill account (docs/luck.md)
    assert all("account" in t for t in result.record["turns"])
    plain = {**result.record, "turns": [
        {k: v for k, v in t.items() if k != "account"} for t in result.record["turns"]
    ]}  # fmt: skip
    assert builder.finish(again) == plain and again.record is None


def test_play_observed_forfeits_or_raises_as_asked():
    raiser = h("engine_raisers.py:Throws(method='pick', what='exit')")
    rules = Rules(players=2)

    def seats():
        return [resolve(raiser).create(), resolve("greedy").create()]

    result = play_observed(seats(), rules, SeededDice(1), names=["x", "g"], seed=1, record=True)
    assert result.status == "forfeit" and result.forfeit == 0
    assert type(result.error.__cause__) is SystemExit
    assert len(result.record["turns"]) == result.turns - 1  # the turns before the forfeit
    with pytest.raises(GameError, match="seat 0"):
        play_observed(seats(), rules, SeededDice(1), names=["x", "g"], seed=1, forfeit=False)
    decided = GameError(0, 1, "g", "could not be built")
    asked: list = []

    class Never(Strategy):
        def pick(self, view):
            asked.append(view)
            return 1

    early = play_observed([Never(), Never()], rules, SeededDice(1), names=["x", "g"], seed=1,
                          decided=decided, record=True)  # fmt: skip
    assert early.error is decided and early.forfeit == 1 and early.turns == 0 and not asked
