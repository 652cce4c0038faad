"""harness coach: a bot's every decision audited against the exact turn optimum (issue 21).

The coach values each answer from the question the seat was asked (harness.coach.valuing);
the account values the same decisions from the game's events (Accountant). They must
agree to the last bit, on either engine, for any worker count.
"""

from __future__ import annotations

import json
import math

import pytest
from helpers import NEEDS_NATIVE, answers_alike

from harness.analysis.account import Accountant
from harness.analysis.game import account_record
from harness.coach import audit as audit_module
from harness.coach import valuing
from harness.coach.audit import Audited, CoachTally, situation_of
from harness.coach.coaching import CoachSubject, coach
from harness.coach.deals import Field, tables_for
from harness.coach.situations import BANDS, KINDS, band_of, check_bands
from harness.coach.valuing import Moment
from harness.coach.workers import play_sides
from harness.game.dice import DuplicateDice
from harness.game.record import replay
from harness.game.seating import design, seats_of
from harness.play import build_strategies, play_observed
from harness.plugins import resolve
from harness.rules import Rules
from harness.strategy import Strategy
from harness.tourney.plan import deal_seed

pytestmark = pytest.mark.engine

STRATEGIES = "tests/fixtures/coach_bots.py"


def _account_of_bot(bot, opponents, rules, deals, seed=1):
    """Per game (table, deal, seat order), the bot's regret and decisions per kind by the
    Accountant."""
    field = Field(rules, tuple(resolve(o) for o in opponents), seed, deals)
    games = {}
    for t, table in enumerate(field.tables):
        refs = [bot, *(opponents[j] for j in table)]
        for deal in range(deals):
            dice = DuplicateDice(deal_seed(seed, deal))
            for k, order in enumerate(design(rules.players, "balanced")):
                instances, names = build_strategies(seats_of(refs, order))
                accountant = Accountant(rules)
                play_observed(
                    instances, rules, dice, names=names, seed=dice.key, observer=accountant
                )
                ledger = accountant.ledgers[order.index(0)]
                games[t, deal, k] = [getattr(ledger, f"regret_{kind}") for kind in KINDS] + [
                    getattr(ledger, f"{kind}s") for kind in KINDS
                ]
    return games


class PerGame(CoachTally):
    """The coach's tally, keeping each game's sums as well (decision by decision, as a
    ledger adds them)."""

    def __init__(self):
        super().__init__()
        self.games = {}

    def begin(self, deal, table, order):
        super().begin(deal, table, order)
        self.now = self.games[table, deal, order] = [0.0, 0.0, 0.0, 0, 0, 0]

    def add(self, moment, decision):
        super().add(moment, decision)
        if decision.choice:
            i = KINDS.index(decision.kind)
            self.now[i] += decision.regret
            self.now[3 + i] += 1

    def merge(self, other):
        super().merge(other)
        self.games.update(other.games)


@pytest.mark.parametrize(
    "bot,opponents,variant,players",
    [
        ("greedy", ["simple"], {}, 2),
        ("tactician", ["greedy", "optimal"], {"lower_tile": "any"}, 3),
        ("optimal", ["greedy"], {"bust_flip": "none"}, 2),
    ],
)
@pytest.mark.parametrize("engine", ["python", pytest.param("native", marks=NEEDS_NATIVE)])
@pytest.mark.once
def test_the_coach_agrees_with_the_account_to_the_last_bit(
    bot, opponents, variant, players, engine
):
    rules = Rules.coerce({"preset": "official", **variant}, players=players)
    field = Field(rules, tuple(resolve(o) for o in opponents), 1, 6, engine)
    played = play_sides(field, [(CoachSubject(resolve(bot), bot), PerGame)])
    tally = played.tallies[0]
    assert played.engine == engine
    expected = _account_of_bot(bot, opponents, rules, 6)
    assert tally.games == expected  # == on floats: the same operations in the same order


@NEEDS_NATIVE
@pytest.mark.once
def test_the_engines_and_the_worker_count_give_the_same_answer():
    runs = [
        coach("tactician", opponents=["greedy"], deals=40, engine=e, workers=w, examples=1)
        for e, w in (("python", 1), ("native", 1), ("native", 2))
    ]
    plain = answers_alike(runs)
    assert plain[0] == plain[1] == plain[2]
    assert [c.engine for c in runs] == ["python", "native", "native"]


def test_win_optimal_loses_nothing_in_chances_to_win():
    # win-optimal plays every turn for the payoff the coach judges by (harness.winprob):
    # ties only, end game included; optimal's end game and worm play do cost chances.
    best = coach("win-optimal", opponents=["simple"], deals=6, examples=0, engine="python")
    assert best.unit == "win" and abs(best.kind_rows()[-1]["loss_per_game"]["estimate"]) < 1e-9
    other = coach("optimal", opponents=["simple"], deals=6, examples=0)
    assert other.kind_rows()[-1]["loss_per_game"]["estimate"] > 1e-4


@NEEDS_NATIVE
@pytest.mark.parametrize("players", [2, 3])
def test_under_piko_blog_both_engines_play_and_judge_by_its_own_model(players):
    # piko-blog has models of its own: the subject (a Python seat on either engine) plays
    # for the one the coach judges by, and so loses nothing; the opponent, win-optimal
    # too, plays in C on the native engine, which must use the model Python uses (its
    # preset's slot), or the games, and so the answers, differ.
    from harness.game.rules import Rules
    from harness.winprob import evaluator

    if evaluator(Rules.preset("piko-blog", players)).trained_for != "piko-blog":
        pytest.skip(f"no {players}-player piko-blog model shipped")
    runs = [
        coach(
            "win-optimal",
            opponents=["win-optimal"],
            rules="piko-blog",
            players=players,
            deals=4,
            examples=0,
            engine=engine,
        )  # fmt: skip
        for engine in ("python", "native")
    ]
    plain = answers_alike(runs)
    assert plain[0] == plain[1] and [c.engine for c in runs] == ["python", "native"]
    assert abs(runs[1].kind_rows()[-1]["loss_per_game"]["estimate"]) < 1e-9


def test_optimal_loses_nothing_outside_its_end_game_and_greedy_does():
    best = coach("optimal", opponents=["greedy"], deals=40, examples=0, unit="worms")
    for row in best.kind_rows():
        outside = row["loss_per_game"]["estimate"] - row["end_game_loss_per_game"]["estimate"]
        assert abs(outside) < 1e-9, row["kind"]
    assert best.kind_rows()[-1]["end_game_loss_per_game"]["estimate"] > 0  # plays to win
    greedy = coach("greedy", opponents=["greedy"], deals=40, examples=0, unit="worms")
    loss = greedy.kind_rows()[-1]["loss_per_game"]
    assert loss["low"] > 1.0  # greedy gives up worms every game, far from any tie


def test_an_audited_seat_plays_the_bots_own_game():
    rules = Rules.coerce("official", players=2)
    for seed in range(5):
        tally = CoachTally()
        tally.begin(0, 0, 0)
        wrapped = [Audited(resolve("tactician").create(), tally.add), resolve("greedy").create()]
        plain = [resolve("tactician").create(), resolve("greedy").create()]
        a = play_observed(
            wrapped, rules, DuplicateDice(seed), names=["t", "g"], seed=seed, record=True
        )
        b = play_observed(
            plain, rules, DuplicateDice(seed), names=["t", "g"], seed=seed, record=True
        )
        assert a.record["turns"] == b.record["turns"]


def test_answers_are_valued_by_their_plain_value():
    c1 = coach(f"{STRATEGIES}:NumpyGreedy", opponents=["simple"], deals=10, examples=0)
    c2 = coach("greedy", opponents=["simple"], deals=10, examples=0)
    assert c1.tally.rows == c2.tally.rows


def test_a_forfeiting_bot_is_counted_and_the_games_go_on():
    c = coach(f"{STRATEGIES}:BreaksOnTurnFive", opponents=["simple"], deals=6, examples=0)
    assert c.forfeits() == 12  # every game reaches its fifth turn
    (row,) = c.tally.forfeit_rows()
    assert (row["strategy"], row["role"], row["kind"], row["games"]) == ("breaks", "bot",
                                                                          "raised", 12)  # fmt: skip
    assert "turn" in row["example"] and "boom" in row["example"]
    # Only completed games count: a forfeited game's decisions are left out with it.
    assert c.games == 0 and c.games_played == 12
    assert c.kind_rows()[-1]["decisions"] == 0


def test_a_bug_of_the_coach_is_never_the_bots_forfeit(monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("the coach's own bug")

    monkeypatch.setattr(audit_module, "value_stop", broken)
    with pytest.raises(RuntimeError, match="the coach's own valuation failed"):
        coach("greedy", opponents=["simple"], deals=2, examples=0, engine="python")


# -- bands and situations --------------------------------------------------------------------
def test_bands():
    assert [band_of(r) for r in (0.0, 0.2499, 0.25, 0.49, 0.5, 0.99, 1.0, 7.0)] == [
        0,
        0,
        1,
        1,
        2,
        2,
        3,
        3,
    ]
    assert check_bands((0.1, 0.2, 0.3)) == (0.1, 0.2, 0.3)
    for bad in ((0.5, 0.25, 1.0), (0.25, 0.5), (0, 0.5, 1), (float("nan"), 1, 2)):
        with pytest.raises(ValueError):
            check_bands(bad)
    assert BANDS == (0.25, 0.5, 1.0)


def test_band_counts_add_up_to_the_decisions_above_the_first_band():
    c = coach("greedy", opponents=["simple"], deals=20, examples=0, bands=(0.3, 0.6, 1.2))
    rows = c.band_rows()
    assert [r["band"] for r in rows] == ["inaccuracy", "mistake", "blunder"]
    kinds = c.kind_rows()[-1]
    assert sum(r["count"] for r in rows) == sum(
        kinds[n] for n in ("inaccuracies", "mistakes", "blunders")
    )
    assert rows[0]["from"] == 0.3 and rows[2]["below"] is None


def test_a_situation_reads_the_moment():
    m = Moment(
        12,
        1,
        2,
        (25, 26, 27, 28, 29, 30),
        (23, 24),
        False,
        (6, 6, 5),
        (4, 4, 3, 1, 2),
        (6, 6, 5, 4, 4),
    )
    s = situation_of(m, "stop")
    assert (s.kind, s.dice, s.total, s.set_aside, s.in_reach, s.at_risk) == (
        "stop",
        3,
        23,
        "W 5 4",
        "23 (steal)",
        "24",
    )  # total 23 = 5 + 5 + 5 + 4 + 4: a steal of seat 0's 23
    p = situation_of(m, "pick")
    assert (p.dice, p.total, p.set_aside, p.in_reach) == (5, 15, "W 5", "-")
    assert s.describe().startswith("stop or roll on, 3 dice left, total 23 (W 5 4)")


def test_tables():
    assert tables_for(1, 2) == ((0,),)
    assert tables_for(3, 2) == ((0,), (1,), (2,))
    assert tables_for(1, 4) == ((0, 0, 0),)
    assert tables_for(2, 4) == ((0, 1, 0),)
    assert tables_for(3, 3) == ((0, 1), (0, 2), (1, 2))


# -- examples: played again, with their records ------------------------------------------------
@pytest.mark.once
def test_an_example_replays_and_analyze_game_finds_the_same_decision(tmp_path):
    c = coach("greedy", opponents=["simple"], deals=30, examples=2)
    assert len(c.examples) == 2
    for e in c.examples:
        replay(e.record)  # legal, move by move
        account = account_record(e.record, "win")  # the coach's unit
        seat = e.seat
        found = [
            d
            for t in account.turns
            if t.turn == e.moment.turn and t.seat == seat
            for d in t.decisions
            if d.kind == e.decision.kind and abs(d.regret - e.decision.regret) < 1e-12
        ]
        assert found, "the example's decision is in its game's account"
        assert e.decision.regret == max(s.worst for k, s in c.ranked() if k == e.key)
    data, files = c.write(tmp_path / "out")
    assert (tmp_path / "out" / "examples" / "example-1.json").is_file()
    text = files["markdown"].read_text()
    assert "Costliest recurring situations" in text and "example-1.json" in text
    assert files["html"].read_text().startswith("<!DOCTYPE html>")
    assert json.loads(files["json"].read_text())["bot"] == "greedy"


@pytest.mark.once
def test_frames_for_notebooks():
    c = coach("greedy", opponents=["simple"], deals=20, examples=0)
    kinds = c.kinds
    assert list(kinds.index) == [*KINDS, "all"]
    assert math.isclose(
        kinds.loc["all", "loss_per_game"], kinds.loc[list(KINDS), "loss_per_game"].sum()
    )
    sits = c.situations
    assert len(sits) == len(c.tally.situations)
    assert list(sits.columns[:10]) == ["kind", "dice", "roll", "total", "set_aside", "in_reach",
                                       "at_risk", "end_game", "did", "better"]  # fmt: skip
    assert sits.loss_per_game.is_monotonic_decreasing
    assert math.isclose(sits.loss_per_game.sum(), kinds.loc["all", "loss_per_game"], rel_tol=1e-6)
    assert list(c.bands_frame.index) == ["inaccuracy", "mistake", "blunder"]


# -- the command ---------------------------------------------------------------------------------
def test_the_command_prints_writes_and_speaks_json(cli, tmp_path):
    out = cli("coach", "greedy", "--deals", "8", "--out", str(tmp_path / "c"), "--workers", "1")
    assert out.exit_code == 0, out.output
    assert "Chance to win lost per game" in out.output and "Costliest recurring" in out.output
    folder = str(tmp_path / "c")
    lines = [line for line in out.output.splitlines() if folder not in line]
    assert all(len(line) <= 80 for line in lines), out.output
    out = cli("coach", "greedy", "--deals", "8", "--out", str(tmp_path / "j"), "--json")
    data = json.loads(out.output)
    assert data["games"] == 16 and data["kinds"][-1]["kind"] == "all"
    assert set(data["files"]) == {"markdown", "html", "json"}
    assert data["unit"] == "win" and data["bands"]["blunder"] == 0.04
    out = cli("coach", "greedy", "--deals", "4", "--out", str(tmp_path / "w"), "--unit", "worms")
    assert out.exit_code == 0 and "Worms lost per game" in out.output, out.output


@pytest.mark.parametrize(
    "args,says",
    [
        (["gredy"], "unknown strategy 'gredy'"),
        (["greedy", "--bands", "1,0.5,2"], "--bands"),
        (["greedy", "--bands", "a,b"], "--bands"),
        (["greedy", "-o", "nosuch"], "unknown strategy 'nosuch'"),
        pytest.param(
            [
                "greedy",
                "--engine",
                "native",
                "-o",
                f"{STRATEGIES}:NumpyGreedy",
                "--set",
                "players=2",
            ],
            None,
            marks=NEEDS_NATIVE,
        ),  # fmt: skip
    ],
)
def test_mistakes_are_one_line(cli, tmp_path, args, says):
    out = cli("coach", *args, "--deals", "2", "--out", str(tmp_path / "x"))
    if says is None:
        assert out.exit_code == 0, out.output  # a plugin opponent is a Python seat natively
        return
    assert out.exit_code == 2, out.output
    assert says in out.output and "Traceback" not in out.output


def test_a_plain_view_is_all_the_valuing_needs():
    # the coach's valuing reads the question's view only: a detached view (as a seat in a
    # process of its own gets) gives the same decision
    rules = Rules.coerce("official", players=2)
    seen = []

    class Keep(Strategy):
        name = "keep"

        def pick(self, view):
            from harness.view import View

            detached = View.from_snapshot(view.snapshot())
            board = valuing.Board.of(detached)
            face = max(view.choices)
            seen.append((valuing.value_pick(valuing.Board.of(view), view, face),
                         valuing.value_pick(board, detached, face)))  # fmt: skip
            return face

        def stop(self, view):
            return True

    instances, _ = build_strategies([Keep(), "greedy"])
    play_observed(instances, rules, DuplicateDice(4), names=["k", "g"], seed=4)
    assert seen and all(a == b for a, b in seen)


class Careful(Strategy):
    """A notebook's own bot: worms first, then the most points; stops at its target."""

    name = "careful"

    def __init__(self, target: int = 25):
        self.target = target

    def pick(self, view):
        return 6 if 6 in view.choices and not view.has_worm else max(view.choices)

    def stop(self, view):
        return view.total >= self.target


@pytest.mark.once
def test_a_notebooks_class_or_instance_is_coached_as_a_reference_would_be():
    by_class = coach(Careful, deals=6, examples=1)
    by_instance = coach(Careful(target=27), deals=6, examples=0)
    # Named by the strategy's name, as a tourney names it (its reference only where two
    # bots would read the same).
    assert (by_class.bot, by_instance.bot) == ("careful", "careful(target=27)")
    assert by_class.tally.rows != by_instance.tally.rows  # the parameter is kept
    assert by_class.examples and by_class.examples[0].record["seats"]
