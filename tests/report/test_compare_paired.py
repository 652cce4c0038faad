"""The paired ``harness compare``: twin games of two runs, clustered by deal.

Real runs (harness.tourney.run_tournament, python engine, a few hundred games) for the
behaviour a user sees; hand-made run folders (run_builders.write_run) for the
exact edge cases: games that must not pair, repeated seat orders, turn-capped twins,
different player counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from run_builders import row, write_run

from harness.cli import main
from harness.report import cached_summary, summarise_run
from harness.report.comparisons.compare import CompareError, compare, parse_matches
from harness.tourney import run_tournament

DEALS = 40


def field(target: int, *, name: str = "thr", seed: int = 11, extra: list | None = None) -> dict:
    entrants = ["greedy", "random", {"strategy": "threshold", "params": {"target": target}}]
    entrants[2]["name"] = name
    return {
        "name": f"field{target}{name}{seed}",
        "entrants": entrants + (extra or []),
        "deals": DEALS,
        "seed": seed,
        "workers": 0,
        "engine": "python",
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("results")
    made = {
        "26": field(26),
        "27": field(27),
        "27-renamed": field(27, name="thr2"),
        "27-seed": field(27, seed=12),
        "27-plus": field(27, extra=["worm-first"]),
    }
    return {key: run_tournament(config, out=out).run_dir for key, config in made.items()}


def by_name(result: dict, name: str) -> dict:
    return next(s for s in result["strategies"] if s["strategy"] == name)


def test_a_small_change_is_paired_and_narrower_than_unpaired(runs):
    a, b = cached_summary(runs["26"]), cached_summary(runs["27"])
    paired, unpaired = compare([a, b]), compare([a, b], paired=False)
    thr, thr_u = by_name(paired, "thr"), by_name(unpaired, "thr")
    d, du = thr["diffs"][0], thr_u["diffs"][0]
    assert thr["paired"] and thr["shared_deals"] == DEALS and d["paired_games"] == 2 * 2 * DEALS
    assert not du["paired"] and du["note"] == "unpaired: pairing turned off"
    width = d["win_share"]["high"] - d["win_share"]["low"]
    width_u = du["win_share"]["high"] - du["win_share"]["low"]
    assert 0 < width < width_u
    # the paired estimate is the plain difference of the two runs' shares (all games pair)
    runs_ = thr["runs"]
    assert d["win_share"]["diff"] == pytest.approx(runs_[1]["win_share"] - runs_[0]["win_share"])
    assert paired["differences"] == [
        'entrant thr: parameters differ (A: {"target": 26}, B: {"target": 27})'
    ]


def test_same_config_again_is_identical_and_untested(runs, tmp_path):
    again = run_tournament(field(26), out=tmp_path, fresh=True).run_dir  # played again
    result = compare([cached_summary(runs["26"]), cached_summary(again)])
    # Nothing to test: every strategy's games and every head-to-head pair's are identical.
    assert result["differences"] == [] and result["tests"] == 0
    assert all(p["diffs"][0]["identical"] for p in result["head_to_head"])
    for s in result["strategies"]:
        d = s["diffs"][0]
        assert (
            d["identical"]
            and d["paired"]
            and d["win_share"]
            == {
                "diff": 0.0,
                "low": 0.0,
                "high": 0.0,
                "p": None,
                "p_holm": None,
                "significant": False,
                "verdict": None,
            }
        )


def test_an_opponent_that_changed_breaks_identity_not_pairing(runs):
    result = compare([cached_summary(runs["26"]), cached_summary(runs["27"])])
    greedy = by_name(result, "greedy")["diffs"][0]
    assert greedy["paired"] and not greedy["identical"]  # its games against thr changed
    assert greedy["shared_deals"] == DEALS and greedy["note"] is None


def test_match_pairs_a_renamed_strategy(runs):
    a, b = cached_summary(runs["26"]), cached_summary(runs["27-renamed"])
    plain = compare([a, b])
    assert "thr" not in plain["shared"] and {"thr", "thr2"} <= set(plain["not_shared"])
    # without --match the others met "thr" in A and "thr2" in B: other opponents, unpaired
    greedy = by_name(plain, "greedy")["diffs"][0]
    assert greedy["paired_games"] == 2 * DEALS  # only its games against random
    assert greedy["note"].startswith(f"paired on {2 * DEALS} games (A has {4 * DEALS}, B")
    matched = compare([a, b], match={"thr": "thr2"})
    thr = by_name(matched, "thr")
    assert thr["paired"] and thr["shared_deals"] == DEALS and thr["runs"][1]["strategy"] == "thr2"
    assert by_name(matched, "greedy")["diffs"][0]["paired_games"] == 4 * DEALS
    assert "thr" not in matched["not_shared"] and "thr2" not in matched["not_shared"]
    text = " | ".join(matched["differences"])
    assert "entrant thr (matched to thr2): parameters differ" in text
    with pytest.raises(CompareError, match="run A has no strategy 'nobody'"):
        compare([a, b], match={"nobody": "thr2"})
    with pytest.raises(CompareError, match="no other run has a strategy 'ghost'"):
        compare([a, b], match={"thr": "ghost"})


def test_an_added_entrant_leaves_the_old_games_paired(runs):
    result = compare([cached_summary(runs["27"]), cached_summary(runs["27-plus"])])
    greedy = by_name(result, "greedy")["diffs"][0]
    # the old tables are the same games; games against worm-first have no twin in A
    assert greedy["paired"] and greedy["identical"] and greedy["paired_games"] == 4 * DEALS
    assert greedy["games"] == [4 * DEALS, 6 * DEALS] and "paired on" in greedy["note"]
    assert "entrant worm-first is not in run A" in result["differences"]


def test_another_seed_is_unpaired_and_says_why(runs):
    result = compare([cached_summary(runs["27"]), cached_summary(runs["27-seed"])])
    d = by_name(result, "thr")["diffs"][0]
    assert not d["paired"] and d["shared_deals"] == 0
    assert d["note"] == "unpaired: different seeds (11 and 12)"
    assert result["pairing"] == ["run B is compared unpaired with A: different seeds (11 and 12)"]
    assert "seeds differ (A: 11, B: 12)" in result["differences"]


# -- hand-made runs: exact edge cases ----------------------------------------------------------
def duel(folder: Path, outcome, deals: int = 6, *, seed_of=lambda d, r: 1000 + d, **kw) -> Path:
    """a against b, every deal in both seat orders; ``outcome(d, r)`` is True if a wins."""
    rows = []
    for d in range(deals):
        for r in range(2):
            seats = ["a", "b"] if r == 0 else ["b", "a"]
            a_won = outcome(d, r)
            worms = [6, 2] if (seats[0] == "a") == a_won else [2, 6]
            game = row("t", d, r, seats, worms)
            game["game_seed"] = seed_of(d, r)
            rows.append(game)
    return write_run(folder, rows, **kw)


def test_games_on_other_dice_are_never_pairs(tmp_path):
    base = duel(tmp_path / "a", lambda d, r: r == 0)
    other = duel(tmp_path / "b", lambda d, r: r == 0, seed_of=lambda d, r: 5000 + d)
    result = compare([summarise_run(base), summarise_run(other)])
    d = by_name(result, "a")["diffs"][0]
    assert not d["paired"] and "no game shared" in d["note"]
    half = duel(tmp_path / "c", lambda d, r: r == 0, seed_of=lambda d, r: 1000 + d * (d < 1))
    d = by_name(compare([summarise_run(base), summarise_run(half)]), "a")["diffs"][0]
    assert not d["paired"] and d["note"] == "unpaired: only 1 shared deal"


def test_the_same_opponents_in_other_seats_are_not_twins(tmp_path):
    def three(folder: Path, seats: list[str]) -> Path:
        rows = [row("t", d, 0, seats, [6, 2, 1]) for d in range(4)]
        return write_run(folder, rows, players=3)

    base = three(tmp_path / "a", ["a", "b", "c"])
    swapped = three(tmp_path / "b", ["a", "c", "b"])  # a in the same seat, b and c swapped
    d = by_name(compare([summarise_run(base), summarise_run(swapped)]), "a")["diffs"][0]
    assert not d["paired"] and "no game shared" in d["note"]
    same = three(tmp_path / "c", ["a", "b", "c"])
    assert by_name(compare([summarise_run(base), summarise_run(same)]), "a")["paired"]


def test_a_turn_capped_twin_is_dropped_and_repeated_orders_pair_one_to_one(tmp_path):
    base = duel(tmp_path / "a", lambda d, r: True)
    rows = []
    for d in range(6):
        for r in range(2):  # each seat order twice (a design may list an order twice)
            seats = ["a", "b"] if r == 0 else ["b", "a"]
            worms = [6, 2] if seats[0] == "a" else [2, 6]
            status = "turn-cap" if d == 0 and r == 0 else "over"  # no result: no twin
            rows.append(row("t", d, r, seats, worms, status=status))
            rows.append(row("t", d, r + 2, seats, worms, status=status))
    twice = write_run(tmp_path / "b", rows)
    d = by_name(compare([summarise_run(base), summarise_run(twice)]), "a")["diffs"][0]
    assert d["paired"] and d["paired_games"] == 12 - 1  # one twin per game, no cross product
    assert d["identical"] and d["games"] == [12, 22]


def test_different_player_counts_compare_relative_to_the_fair_share(tmp_path):
    two = duel(tmp_path / "two", lambda d, r: d % 2 == 0 or r == 0, deals=40)
    rows = []
    for d in range(40):
        for r in range(4):
            seats = ["a", "b", "c", "d"][r:] + ["a", "b", "c", "d"][:r]
            winner = "a" if d % 4 < 2 else "bcd"[d % 3]
            rows.append(row("t", d, r, seats, [6 if s == winner else 1 for s in seats]))
    four = write_run(tmp_path / "four", rows, players=4)
    result = compare([summarise_run(two), summarise_run(four)])
    d = by_name(result, "a")["diffs"][0]
    assert not d["paired"] and d["scale"] == "fair_share" and "1/2 and 1/4" in d["note"]
    shares = [r["win_share"] for r in by_name(result, "a")["runs"]]
    assert shares[0] > shares[1]  # 75% against 50% looks like a drop...
    assert d["win_share"]["diff"] == pytest.approx(4 * shares[1] - 2 * shares[0])
    assert d["win_share"]["diff"] > 0  # ...but is twice the fair share against 1.5 times
    assert d["worms"]["diff"] is None and "not comparable" in d["worms"]["refused"]


def test_parse_matches():
    assert parse_matches(["a=b", " c = d "]) == {"a": "b", "c": "d"}
    for bad, message in (
        (["ab"], "write OLD=NEW"),
        (["=b"], "write OLD=NEW"),
        (["a=b", "a=c"], "matched twice"),
        (["a=c", "b=c"], "same new name"),
    ):
        with pytest.raises(CompareError, match=message):
            parse_matches(bad)


def test_compare_command_says_paired_and_how_many_deals(runs, tmp_path):
    cli = CliRunner()
    a, b = str(runs["26"]), str(runs["27-renamed"])
    args = ["compare", a, b, "--match", "thr=thr2", "--out", str(tmp_path / "c")]
    result = cli.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"paired, {DEALS} deals" in result.output and "parameters differ" in result.output
    data = json.loads(cli.invoke(main, [*args, "--json"]).output)
    thr = by_name(data, "thr")
    assert thr["paired"] is True and thr["shared_deals"] == DEALS
    unpaired = cli.invoke(main, [*args, "--unpaired"])
    assert unpaired.exit_code == 0 and "unpaired" in unpaired.output
    bad = cli.invoke(main, ["compare", a, b, "--match", "thr"])
    assert bad.exit_code != 0 and "write OLD=NEW" in bad.output and "Traceback" not in bad.output
    assert bad.output.strip().count("\n") == 0


CAREFUL = """
from harness.strategy import Strategy


class Careful(Strategy):
    name = "careful"

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= 25


class Careful2(Careful):
    name = "careful2"

    def stop(self, view):
        return view.total >= 28
"""


def test_another_class_of_the_same_file_shows_in_what_differs(tmp_path):
    (tmp_path / "bots.py").write_text(CAREFUL)
    made = []
    for cls in ("Careful", "Careful2"):
        config = field(26) | {"name": f"careful-{cls}"}
        config["entrants"] = ["greedy", {"strategy": f"{tmp_path}/bots.py:{cls}", "name": "mine"}]
        config["deals"] = 10
        made.append(cached_summary(run_tournament(config, out=tmp_path / "res").run_dir))
    result = compare(made)
    (line,) = result["differences"]
    assert line.startswith("entrant mine: reference differs") and "class differs" in line
    assert "code digest differs" in line and ":Careful2)" in line
    mine = by_name(result, "mine")
    assert mine["paired"] and mine["shared_deals"] == 10 and not mine["diffs"][0]["identical"]
