"""The turn as a resumable state (harness.game.turn), attacked from outside.

* Its chance node: every roll with its exact probability (they sum to exactly 1, and
  count what the dice can show), and the roll a dice source gives is the one the dice
  give; over many seeds the dice fall as the probabilities say.
* Every step the rules refuse is refused in one line citing the rule, and leaves the
  turn as it was.
* Every driver plays the same games: the engine (``Game.play``), a turn stepped by hand
  with the same strategies' answers, with the dice source or with the rolls handed in
  (``apply_roll``), the stepped environment; on the golden playthroughs too.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from harness import play_game
from harness.env.encoding import ROLL_ON, STOP, claim_action, keep_action
from harness.env.game import DONE, SteppedGame
from harness.game.board import Board, Claim
from harness.game.dice import BLOCK_BASE, ROLLS, ROLLS_OF, DuplicateDice, SeededDice, roll_of
from harness.game.engine import Game, GameObserver
from harness.game.rules import Rules
from harness.game.turn import (
    CLAIM,
    ENDED,
    PICK,
    ROLL,
    STOP_OR_ROLL,
    Turn,
    TurnError,
    chance_outcomes,
)
from harness.game.view import View
from harness.plugins import resolve

pytestmark = pytest.mark.engine

W = 6
PLAYTHROUGHS = Path(__file__).resolve().parents[1] / "playthroughs"


# -- the chance node -----------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(1, 9))
def test_chance_outcomes_are_every_roll_once_and_sum_to_exactly_one(n):
    outcomes = chance_outcomes(n)
    rolls = [roll for roll, _ in outcomes]
    assert len(set(map(id, rolls))) == len(rolls) == math.comb(n + 5, 5)  # multisets of n faces
    assert all(roll.n == n and roll is ROLLS[_packed(roll.faces)] for roll in rolls)
    assert sum(Fraction(ways, 6**n) for _, ways in ROLLS_OF[n]) == 1
    assert math.fsum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
    # the probabilities are the exact weights, rounded once
    assert [p for _, p in outcomes] == [ways / 6**n for _, ways in ROLLS_OF[n]]


@pytest.mark.parametrize("n", range(1, 6))
def test_the_weights_count_what_n_dice_can_show(n):
    """Every sequence of n dice, counted: the weight of each roll is how many show it."""
    shown = Counter(tuple(sorted(faces)) for faces in product(range(1, 7), repeat=n))
    assert {roll.faces: ways for roll, ways in ROLLS_OF[n]} == dict(shown)


@pytest.mark.parametrize("n", [6, 7, 8])
def test_the_weights_are_multinomials(n):
    for roll, ways in ROLLS_OF[n]:
        expected, left = 1, n
        for count in roll.counts[1:]:
            expected *= math.comb(left, count)
            left -= count
        assert ways == expected, roll


def test_a_turn_waiting_for_its_roll_offers_the_chance_outcomes_of_its_dice_left():
    board, view = Board(Rules()), View(0, Rules())
    turn = Turn(board)  # no dice source: the rolls are handed in
    assert turn.begin(0, 1, view) == ROLL
    assert turn.chance_outcomes() == chance_outcomes(8)
    assert sum(p for _, p in turn.exact_outcomes()) == 1
    assert turn.apply_roll((W, W, 1, 1, 1, 1, 1, 1)) == PICK
    assert turn.keep(1) == ROLL  # 6 ones set aside: no worm, 2 dice left
    assert turn.chance_outcomes() == chance_outcomes(2)
    assert sum(p for _, p in turn.exact_outcomes()) == 1


def test_the_roll_a_dice_source_gives_is_the_dice_s_block_read():
    """The turn's first roll is the first 8 dice of the turn block its dice source draws,
    as dice.py reads a block: the same seed, the same dice, however the turn is stepped."""
    for seed in range(200):
        board, view = Board(Rules()), View(0, Rules())
        Turn(board, SeededDice(seed)).begin(0, 1, view)
        block = SeededDice(seed).start_turn(0, 0)
        assert view.counts == roll_of(block % 6**8, 8).counts, seed


def test_over_many_seeds_the_dice_fall_as_the_chance_outcomes_say():
    """Worms among the 8 dice of a first roll, over 6,000 seeded turns, against the
    distribution the chance node gives (a chi-square test at 14 sigma of slack for 8
    degrees of freedom: a wrong weight of a few percent fails it, noise does not)."""
    expected = [0.0] * 9
    for roll, p in chance_outcomes(8):
        expected[roll.counts[W]] += p
    seen = [0] * 9
    games = 6000
    for seed in range(games):
        board, view = Board(Rules()), View(0, Rules())
        Turn(board, SeededDice(seed)).begin(0, 1, view)
        seen[view.counts[W]] += 1
    chi2 = sum((seen[k] - games * p) ** 2 / (games * p) for k, p in enumerate(expected) if p)
    assert chi2 < 8 + 14 * 4, (seen, [round(games * p) for p in expected])


# -- refusals: one line, citing the rule, the turn unchanged ------------------------------------
def _begun(rolls=((W, W, 1, 1, 1, 1, 1, 1),)) -> tuple[Turn, View]:
    """A turn with no dice source, the given rolls handed in one by one as it asks."""
    rules = Rules()
    board, view = Board(rules), View(0, rules)
    turn = Turn(board)
    turn.begin(0, 1, view)
    turn.apply_roll(rolls[0])
    return turn, view


def _refused(step, rule: str) -> str:
    with pytest.raises(TurnError) as info:
        step()
    text = str(info.value)
    assert "\n" not in text, text
    assert text.endswith(f"({rule})") or f"({rule}," in text, text
    return text


def _values(turn: Turn, view: View) -> tuple:
    return (
        turn.phase, turn.kept, turn.total, turn.left, turn.free, turn.picks,
        view.kept, view.total, view.dice_left, view.choices, view.counts, turn.board.grill,
    )  # fmt: skip


@pytest.mark.parametrize(
    "face, rule, words",
    [
        (5, "R5", "not in the roll"),
        (7, "R2", "not a face"),
        (0, "R2", "not a face"),
        (True, "R2", "not a face"),
        (1.0, "R2", "not a face"),
        ("6", "R2", "not a face"),
        (None, "R2", "not a face"),
    ],
)
def test_a_keep_the_rules_refuse_is_one_line_and_changes_nothing(face, rule, words):
    turn, view = _begun()
    before = _values(turn, view)
    assert words in _refused(lambda: turn.keep(face), rule)
    assert _values(turn, view) == before
    assert turn.keep(W) == ROLL  # the turn goes on: 10 with a worm, below every tile


def test_a_face_already_set_aside_cannot_be_kept_again():
    rules = Rules()
    turn = Turn(Board(rules))
    view = View(0, rules)
    turn.begin(0, 1, view)
    turn.apply_roll((1, 1, 2, 2, 2, 2, 2, 2))
    assert turn.keep(1) == ROLL
    turn.apply_roll((1, 1, W, W, W, W))
    before = _values(turn, view)
    assert "already set aside" in _refused(lambda: turn.keep(1), "R5")
    assert _values(turn, view) == before


def test_every_step_out_of_its_phase_is_refused():
    turn, view = _begun()
    before = _values(turn, view)
    _refused(turn.stop, "R6")
    _refused(turn.roll_on, "R6")
    _refused(lambda: turn.take(Claim(21)), "R7")
    _refused(lambda: turn.apply_roll((1, 2, 3, 4, 5, W, W, W)), "R4")
    assert _values(turn, view) == before
    assert turn.keep(W) == ROLL  # 10 with a worm: below every tile (R7), the dice roll on
    _refused(lambda: turn.keep(1), "R5")
    _refused(turn.stop, "R6")
    assert not turn.may_stop and turn.claims() == ()


def test_a_roll_of_the_wrong_size_or_faces_is_refused():
    rules = Rules()
    turn = Turn(Board(rules))
    turn.begin(0, 1, View(0, rules))
    assert "7 dice with 8" in _refused(lambda: turn.apply_roll((1, 2, 3, 4, 5, W, W)), "R4")
    _refused(lambda: turn.apply_roll((0, 2, 3, 4, 5, W, W, W)), "R2")
    _refused(lambda: turn.apply_roll((1, 2, 3, 4, 5, W, W, 9)), "R2")
    _refused(lambda: turn.apply_roll(("1", 2, 3, 4, 5, W, W, W)), "R2")
    assert turn.phase == ROLL and turn.left == 8
    assert turn.apply_roll((1, 2, 3, 4, 5, W, W, W)) == PICK


def test_a_claim_that_is_not_offered_is_refused():
    """R7 under ``lower_tile: any``: every grill tile <= the total is offered, and the seat
    chooses; a tile above the total, or a steal of a tile no rival shows, is refused."""
    rules = Rules(lower_tile="any")
    turn = Turn(Board(rules))
    turn.begin(0, 1, View(0, rules))
    turn.apply_roll((W, W, W, W, W, 1, 1, 1))
    assert turn.keep(W) == STOP_OR_ROLL and turn.may_stop  # 25: a stop would claim
    assert turn.stop() == CLAIM
    assert [c.tile for c in turn.claims()] == [25, 24, 23, 22, 21]
    _refused(lambda: turn.take(Claim(26)), "R7")
    _refused(lambda: turn.take((25, 1)), "R7")
    _refused(lambda: turn.take("25"), "R7")
    assert turn.phase == CLAIM and turn.board.grill == Board(rules).grill
    assert turn.take(Claim(23)) == ENDED and turn.board.stacks[0] == (23,)
    _refused(lambda: turn.take(Claim(22)), "R7")  # the turn has ended


def test_a_turn_cannot_begin_on_a_finished_board():
    rules = Rules()
    board = Board(rules)
    board.flipped, board.grill = board.grill, 0
    assert "game is over" in _refused(lambda: Turn(board).begin(0, 1, View(0, rules)), "R10")


# -- every driver plays the same games ------------------------------------------------------------
class Events(GameObserver):
    def __init__(self) -> None:
        self.log: list[tuple] = []
        self.board: Board | None = None

    def handed(self, board):
        self.board = board

    def turn_started(self, turn, seat):
        self.log.append(("turn", turn, seat))

    def kept(self, seat, roll, face, count, total, left):
        self.log.append(("kept", seat, roll.faces, face, count, total, left))

    def claimed(self, seat, claim, total):
        self.log.append(("claimed", seat, tuple(claim), total))

    def busted(self, seat, reason, total, returned, turned, roll):
        self.log.append(("busted", seat, reason, total, returned, turned, roll and roll.faces))


def _board_state(board: Board) -> tuple:
    return (
        board.grill, board.flipped, tuple(board.stacks), tuple(board.tops),
        tuple(board.scores), tuple(board.busts), tuple(board.steals), tuple(board.stolen),
    )  # fmt: skip


def by_hand(refs, rules, seed, *, handed_in: bool) -> tuple[tuple, list]:
    """A game played by a driver of its own: a Turn stepped from outside, each question
    put to the seat's strategy by the driver; the rolls drawn by the turn's dice source,
    or (``handed_in``) read from the same dice by the driver and handed in."""
    strategies = [resolve(r).create() for r in refs]
    board, events = Board(rules), Events()
    dice = DuplicateDice(seed)
    turn = Turn(board, None if handed_in else dice, events)
    events.handed(board)
    views = [View(seat, rules, seed) for seat in range(rules.players)]
    for seat, strategy in enumerate(strategies):
        strategy.new_game(seat, rules)
    number = 0
    while board.grill and number < 1000:
        number += 1
        seat = (number - 1) % rules.players
        strategy, view = strategies[seat], views[seat]
        phase = turn.begin(seat, number, view)
        block = dice.start_turn(seat, (number - 1) // rules.players) if handed_in else 0
        while phase != ENDED:
            if phase == ROLL:
                phase = turn.apply_roll(roll_of(block % 6**turn.left, turn.left))
                block //= BLOCK_BASE
            elif phase == PICK:
                phase = turn.keep(strategy.pick(view))
            elif phase == STOP_OR_ROLL:
                phase = turn.stop() if strategy.stop(view) else turn.roll_on()
            else:
                assert phase == CLAIM
                phase = turn.take(strategy.claim(view, turn.claims()))
    assert board.problem() is None
    return _board_state(board), events.log


def by_engine(refs, rules, seed) -> tuple[tuple, list]:
    events = Events()
    game = Game(
        [resolve(r).create() for r in refs], rules, DuplicateDice(seed), observer=events, seed=seed
    )
    game.play()
    assert events.board is game.board  # the observer is handed the game's own board
    return _board_state(game.board), events.log


TABLES = [
    ("official", ["greedy", "tactician"]),
    ("french", ["tactician", "random", "worm-first"]),  # lower_tile: any: claims chosen
    ("piko-blog", ["simple", "tactician", "greedy", "threshold"]),
    ("short", ["random", "optimal", "tactician", "greedy", "worm-first"]),
    ("official", ["tactician", "greedy", "random", "simple", "threshold", "worm-first", "greedy"]),
]


@pytest.mark.parametrize("preset, refs", TABLES)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_turn_stepped_by_hand_plays_the_engines_games(preset, refs, seed):
    rules = Rules.preset(preset, len(refs))
    expected = by_engine(refs, rules, seed)
    assert by_hand(refs, rules, seed, handed_in=False) == expected
    assert by_hand(refs, rules, seed, handed_in=True) == expected


def test_the_engine_s_turn_and_the_steps_leave_the_same_values():
    """After each step the turn's values are what the rules make of the answers."""
    rules = Rules()
    turn = Turn(Board(rules))
    view = View(0, rules)
    turn.begin(0, 1, view)
    turn.apply_roll((W, W, W, 1, 2, 3, 4, 5))
    assert turn.picks == (1, 2, 3, 4, 5, W)
    assert turn.keep(W) == ROLL  # 15 with a worm: below every tile (R7)
    assert (turn.kept, turn.total, turn.left, turn.worm) == ((W, W, W), 15, 5, True)
    assert (view.kept, view.total, view.dice_left, view.has_worm) == ((W, W, W), 15, 5, True)
    turn.apply_roll((5, 5, 1, 1, 1))
    assert turn.keep(5) == STOP_OR_ROLL and turn.may_stop  # 25: a stop claims 25
    assert turn.claims() == (Claim(25),)
    assert turn.stop() == ENDED and turn.board.stacks[0] == (25,)


# -- the golden playthroughs ----------------------------------------------------------------------
NAMES = sorted(
    p.name.removesuffix(".json")
    for p in PLAYTHROUGHS.glob("*.json")
    if not p.name.endswith(".state.json")
)


def _record(name: str) -> dict:
    return json.loads((PLAYTHROUGHS / f"{name}.json").read_text())


@pytest.mark.parametrize("name", NAMES)
def test_the_engine_plays_each_golden_playthrough_again(name):
    """Each golden record was written by ``harness play --seed``: the engine plays it again
    to the byte."""
    record = _record(name)
    result = play_game(record["seats"], record["rules"], record["seed"], record=True)
    for turn in result.record["turns"]:  # records carry each turn's luck account since
        del turn["account"]  # these were written; the games are the same
    assert result.record == record


class _RecordDice:
    def __init__(self, turns: list[dict]) -> None:
        self.turns = turns
        self.next = 0

    def start_turn(self, seat: int, turn: int) -> int:
        rolls = self.turns[self.next]["rolls"]
        self.next += 1
        return sum(
            (face - 1) * 6 ** (8 * j + i)
            for j, faces in enumerate(rolls)
            for i, face in enumerate(faces)
        )


@pytest.mark.parametrize("name", NAMES)
def test_the_stepped_game_plays_each_golden_playthrough_to_its_state(name):
    """Every seat an agent of the stepped environment, answering what the record says:
    the game ends in the recorded final state."""
    record = _record(name)
    rules = Rules.from_dict(record["rules"])
    turns = record["turns"]
    game = SteppedGame([None] * rules.players, rules, _RecordDice(turns), seed=record["seed"])
    game.advance()
    done: Counter[int] = Counter()  # keeps answered, per turn
    while game.phase != DONE:
        number = game.turn
        entry = turns[number - 1]
        assert game.deciding == entry["seat"]
        keeps, end = entry["keeps"], entry["end"]
        if game.phase == PICK:
            done[number] += 1
            game.act(keep_action(keeps[done[number] - 1]))
        elif game.phase == STOP_OR_ROLL:
            last = done[number] == len(keeps)
            game.act(STOP if last and "bust" not in end else ROLL_ON)
        else:
            game.act(claim_action(end.get("claim", end.get("steal"))))
    expected = json.loads((PLAYTHROUGHS / f"{name}.state.json").read_text())
    assert game.outcome().state() == expected


def _packed(faces) -> int:
    return sum(1 << (4 * f) for f in faces)


def test_an_observer_without_handed_still_hears_every_event():
    """An observer written before the board was handed over (or one that does not
    subclass GameObserver) is not handed it, and hears the same events."""

    # Events' own methods, on a class that is no GameObserver and has no `handed`
    hears = ("__init__", "turn_started", "kept", "claimed", "busted")
    Duck = type("Duck", (), {name: vars(Events)[name] for name in hears})

    from harness.game.engine import Fanout

    duck, events = Duck(), Events()
    refs = ["greedy", "tactician"]
    game = Game([resolve(r).create() for r in refs], Rules(), DuplicateDice(3), seed=3,
                observer=Fanout([duck, events]))  # fmt: skip
    game.play()
    assert duck.log == events.log and events.board is game.board and duck.board is None
