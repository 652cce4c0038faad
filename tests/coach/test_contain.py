"""The coach and the diff hold their bots as a tourney does (issue 30, item A).

A bot that ends its process (``os._exit``, SIGKILL as a segfault would) is that game's
crash forfeit: the command finishes with its report, counts and shows the forfeit (who,
how many, why), and computes its figures from the games that completed. What a bot
writes is escaped, capped and attributed in output.log, never on the terminal; ``--json``
stays JSON. Time limits and process isolation apply to every seat, as in a tourney.
"""

from __future__ import annotations

import json

import pytest
from helpers import CRASH, HOSTILE, TIME

from harness.analysis.units import WinAccountant
from harness.coach.coaching import coach
from harness.coach.differ import diff
from harness.coach.situations import KINDS
from harness.game.dice import DuplicateDice
from harness.game.seating import design, seats_of
from harness.play import build_strategies, play_observed
from harness.rules import Rules
from harness.tourney.plan import deal_seed

pytestmark = [pytest.mark.interpreter, pytest.mark.usefixtures("deadline")]

EXITS_AT_SEAT_1 = f"{CRASH}:ExitsInPick(seat=1)"  # greedy at seat 0, os._exit(3) at seat 1
ESCAPES = f"{HOSTILE}/output_escapes.py:Escapes"


@pytest.mark.once
def test_a_bot_that_ends_its_process_is_a_forfeit_and_the_coach_reports(harness_process, tmp_path):
    out = harness_process(
        "coach", f"{CRASH}:KillsItself", "--deals", "2", "--out", str(tmp_path / "c"), "-q"
    )
    assert out.returncode == 0, out.stderr
    assert "Forfeits: 4 games of 4 did not complete" in out.stdout
    assert "kills-itself (the bot): 4 games, crash" in out.stdout
    assert "its process died (killed by SIGKILL) in pick()" in out.stdout
    data = json.loads((tmp_path / "c" / "coach.json").read_text())
    assert data["forfeits"] == 4 and data["games"] == 0 and data["games_played"] == 4
    (row,) = data["forfeited"]
    assert (row["strategy"], row["role"], row["kind"], row["games"]) == (
        "kills-itself",
        "bot",
        "crash",
        4,
    )
    for page in ("coach.md", "coach.html"):
        text = (tmp_path / "c" / page).read_text()
        assert "Forfeits" in text and "kills-itself" in text and "did not complete" in text


@pytest.mark.once
def test_a_diff_whose_bot_exits_reports_and_its_shadow_fails(harness_process, tmp_path):
    out = harness_process("diff", "greedy", EXITS_AT_SEAT_1, "--deals", "3", "-q", "--json",
                          "--out", str(tmp_path / "d"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # In B's own games it forfeits where it sits in seat 1; in A's games, as A's shadow,
    # its death is the shadow's failure and A's game goes on.
    assert data["forfeits"] == {"A": 0, "B": 3}
    (row,) = data["forfeited"]
    assert (row["games_of"], row["role"], row["kind"], row["games"]) == ("B", "bot", "crash", 3)
    assert "its process died (exit code 3) in pick()" in row["example"]
    assert data["shadow_failures"] == {"A": 3, "B": 0}
    assert "died (exit code 3)" in data["failure_examples"][0]
    assert data["games"] == {"A": 6, "B": 3}


def _by_account(bot: str, deals: int, order: int) -> dict[str, float]:
    """The bot's regret per game by kind, over the games of one seat order, by the
    Accountant (the coach's figures must be these when only those games complete)."""
    rules = Rules.coerce("official", players=2)
    sums, games = dict.fromkeys(KINDS, 0.0), 0
    for deal in range(deals):
        dice = DuplicateDice(deal_seed(1, deal))
        seating = design(2, "balanced")[order]
        instances, names = build_strategies(seats_of([bot, "simple"], seating))
        accountant = WinAccountant(rules)  # the coach's default unit: chances to win
        play_observed(instances, rules, dice, names=names, seed=dice.key, observer=accountant)
        ledger = accountant.ledgers[seating.index(0)]
        for kind in KINDS:
            sums[kind] += getattr(ledger, f"regret_{kind}")
        games += 1
    return {kind: total / games for kind, total in sums.items()}


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.once
def test_the_figures_are_computed_from_the_games_that_completed(workers):
    c = coach(EXITS_AT_SEAT_1, deals=6, examples=1, workers=workers)
    assert (c.games, c.forfeits(), c.games_played) == (6, 6, 12)
    expected = _by_account("greedy", 6, order=0)  # it is greedy wherever it completes
    for row in c.kind_rows()[:-1]:
        assert row["loss_per_game"]["estimate"] == pytest.approx(expected[row["kind"]], abs=1e-12)
    assert c.examples and all(e.where.order == 0 for e in c.examples)
    text = "\n".join(c.to_json()["forfeited"][0]["example"] for _ in range(1))
    assert "seat 1 (exits-in-pick(seat=1)) its process died (exit code 3) in pick()" in text


@pytest.mark.once
def test_a_crash_gives_the_same_answer_for_any_worker_count():
    one = coach(EXITS_AT_SEAT_1, deals=5, examples=0, workers=1).to_json()
    two = coach(EXITS_AT_SEAT_1, deals=5, examples=0, workers=2).to_json()
    for key in ("kinds", "band_counts", "situations", "forfeited", "games"):
        assert one[key] == two[key], key


@pytest.mark.once
def test_a_bots_output_is_escaped_capped_attributed_and_kept_off_the_terminal(
    harness_process, tmp_path
):
    from harness.seats.output import OUTPUT_LIMIT

    out = harness_process("coach", ESCAPES, "--deals", "3", "--json", "--out", str(tmp_path / "c"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)  # --json stays JSON
    assert "\x1b" not in out.stdout + out.stderr and "pwned" not in out.stdout + out.stderr
    log = (tmp_path / "c" / "output.log").read_text()
    assert "\x1b" not in log and "\x07" not in log
    assert "output of escapes (seat 0), table 0 deal 0 seating 0: \\x1b[2J\\x1b]0;pwned" in log
    assert "to stderr" in log and "raw" in log
    # 3,000 characters a pick, about 40 picks a game, 6 games: the tourney's allowance
    # per block of work (one here, and one for the examples played again), then a line
    written = data["plugin_output"]["by_strategy"]["escapes"]
    assert written > 600_000 and len(log) < 3 * OUTPUT_LIMIT
    assert "output truncated (more than 65,536 characters)" in log
    assert data["files"]["output"].endswith("output.log")


@pytest.mark.once
def test_a_diffs_output_is_kept_off_the_terminal(harness_process, tmp_path):
    out = harness_process("diff", "greedy", ESCAPES, "--deals", "2", "--out", str(tmp_path / "d"))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout + out.stderr and "hello from seat" not in out.stdout
    said = " ".join(out.stdout.split())  # as wrapped at 80 columns
    assert "The bots' output (characters written, by strategy): escapes" in said
    assert "output.log" in said


@pytest.mark.parametrize("bot", ["LoopsInPick", "CLoopInPick"])
def test_time_limits_hold_in_the_coach_a_loop_in_c_too(bot):
    c = coach(f"{TIME}:{bot}", deals=1, examples=0, move_time=0.2, workers=1)
    (row,) = c.tally.forfeit_rows()
    assert (row["role"], row["kind"], row["games"]) == ("bot", "time", 2)
    assert "move_time 0.2 s" in row["example"]
    assert c.engine == "python"  # limits are the Python engine's to enforce


def test_the_coach_and_the_diff_take_the_seat_options(cli, tmp_path):
    out = cli("coach", f"{TIME}:LoopsInPick", "--deals", "1", "--move-time", "0.2", "-q",
              "--out", str(tmp_path / "c"))  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "(move time 0.2 s)" in out.output and "time; first" in out.output
    out = cli("diff", "greedy", "simple", "--deals", "1", "--game-time", "0", "-q")
    assert out.exit_code == 2 and "--game-time: 0" in out.output


@pytest.mark.once
def test_process_isolation_plays_the_same_games_and_contains_a_death():
    alone = coach("greedy", deals=2, examples=0, engine="python")
    isolated = coach("greedy", deals=2, examples=0, isolation="process")
    assert isolated.kind_rows() == alone.kind_rows()
    killed = coach(f"{CRASH}:KillsItself", deals=1, examples=0, isolation="process")
    (row,) = killed.tally.forfeit_rows()
    assert (row["kind"], row["games"]) == ("crash", 2)


def test_a_forfeited_games_reports_are_left_out_whole():
    from harness.coach.tally import DealTally, Forfeit

    class Items(DealTally):
        FIELDS = (*DealTally.FIELDS, "seen")

        def __init__(self):
            super().__init__()
            self.items = []

        def saw(self, item):
            self.game_row[self.index("seen")] += 1
            self.later(lambda: self.items.append(item))

    tally = Items()
    tally.begin(0, 0, 0)
    tally.saw("a")
    tally.end(0, forfeit=None, capped=False)
    tally.begin(0, 0, 1)
    tally.saw("b")
    tally.end(0, forfeit=Forfeit("bot", "bot", "crash", "died"), capped=False)
    assert tally.items == ["a"] and tally.column("seen") == [1.0]
    assert tally.column("games") == [1.0] and tally.column("forfeits") == [1.0]
    assert tally.forfeit_rows() == [
        {"strategy": "bot", "role": "bot", "kind": "crash", "games": 1, "example": "died"}
    ]


def test_a_diff_holds_its_shadow_to_the_time_limits():
    d = diff("greedy", f"{TIME}:LoopsInPick", deals=1, examples=0, move_time=0.2)
    assert sum(d.sides["A"].column("failed")) == 2  # its shadow runs out of time
    assert "move_time 0.2 s" in d.sides["A"].failures[0]
    assert d.forfeits(("B",)) == 2  # in its own games it forfeits
