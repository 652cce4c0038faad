"""``harness compare`` the way a bot author calls it (issue 19, items 3 and 4).

A config folder compares its newest run with the one before (``--last N``: its N
newest); "What differs" names a file plugin by its file and class, never by the module
harness loaded it under; ``--focus`` puts one bot first; head-to-head changes are paired
like the strategies' rows (same deals, dice, seats and opponents), not "unpaired".
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.report import cached_summary
from harness.report.comparisons.compare import CompareError, compare
from harness.report.comparisons.paired import paired_difference
from harness.results import load_run
from harness.tourney import run_tournament

BOT = """
from harness.strategy import Strategy


class Bot(Strategy):
    name = "mybot"

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= {target}
"""


def _config(folder: Path) -> dict:
    return {
        "name": "league",
        "entrants": ["greedy", f"{folder / 'bot.py'}:Bot", "random", "simple"],
        "deals": 60,
        "seed": 4,
        "workers": 0,
    }


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """Three runs of one config, the bot edited before each: target 24, 30, 27."""
    root = tmp_path_factory.mktemp("league")
    out = root / "results"
    made = []
    for target in (24, 30, 27):
        (root / "bot.py").write_text(BOT.format(target=target), encoding="utf-8")
        made.append(run_tournament(_config(root), out=out).run_dir)
        time.sleep(0.01)  # distinct run.json times: the newest is the last played
    return out / "league", made


def _invoke(*args: str):
    result = CliRunner().invoke(main, ["compare", *args])
    assert "Traceback" not in result.output
    return result


def test_a_config_folder_compares_its_newest_run_with_the_one_before(league, tmp_path):
    folder, made = league
    result = _invoke(str(folder), "--json", "--out", str(tmp_path / "c1"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["run_id"] for r in data["runs"]] == [made[1].name, made[2].name]


def test_last_n_compares_the_n_newest_oldest_first(league, tmp_path):
    folder, made = league
    data = json.loads(_invoke(str(folder), "--last", "3", "--json").output)
    assert [r["run_id"] for r in data["runs"]] == [p.name for p in made]
    assert [r["label"] for r in data["runs"]] == ["A", "B", "C"]


def test_folder_mistakes_are_one_line(league, tmp_path):
    folder, made = league
    one = _invoke(str(made[0]))
    assert one.exit_code == 2 and "give two runs to compare, or a config folder" in one.output
    last = _invoke(str(made[0]), str(made[1]), "--last", "2")
    assert last.exit_code == 2 and "--last takes one config folder" in last.output
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    os.symlink(made[0], lonely / made[0].name)
    single = _invoke(str(lonely))
    assert single.exit_code == 2 and "holds one run" in single.output


def test_what_differs_names_the_plugin_file_and_class(league):
    _, made = league
    result = compare([cached_summary(made[0]), cached_summary(made[1])])
    text = " ".join(result["differences"])
    assert "harness_plugin_" not in text
    assert "bot.py:Bot" in text and "code digest differs" in text
    # The class did not change (the file was edited): only the code says so.
    assert "class differs" not in text


def test_focus_puts_the_bot_first_everywhere(league, tmp_path):
    _, made = league
    summaries = [cached_summary(p) for p in made[:2]]
    result = compare(summaries, focus="mybot")
    assert result["strategies"][0]["strategy"] == "mybot"
    pairs = result["head_to_head"]
    with_bot = [i for i, p in enumerate(pairs) if "mybot" in (p["a"], p["b"])]
    assert with_bot == list(range(len(with_bot))) and len(with_bot) == 3
    assert all(pairs[i]["a"] == "mybot" for i in with_bot)
    cli = _invoke(str(made[0]), str(made[1]), "--focus", "mybot", "--out", str(tmp_path / "f"))
    assert cli.exit_code == 0, cli.output
    lines = cli.output.splitlines()
    table = [i for i, line in enumerate(lines) if line.strip().startswith("strategy")][0]
    assert lines[table + 2].split()[0] == "mybot"  # the first row under the rule
    assert any(line.startswith("mybot's head to head") for line in lines)
    with pytest.raises(CompareError, match="--focus 'nobody': not a strategy every run has"):
        compare(summaries, focus="nobody")


def test_without_focus_the_rows_keep_the_configs_order(league):
    _, made = league
    result = compare([cached_summary(made[0]), cached_summary(made[1])])
    assert [s["strategy"] for s in result["strategies"]] == ["greedy", "mybot", "random", "simple"]


def _ahead(run_dir: Path, a: str, b: str):
    """Per game of a and b together: (deal, table, seating, a ahead of b) from the games."""
    seats = load_run(run_dir).seats()
    keys = ["table", "deal", "seating"]
    mine, theirs = seats[seats.strategy == a], seats[seats.strategy == b]
    both = mine.merge(theirs, on=keys, suffixes=("", "_b")).set_index(keys)
    ahead = np.where(
        both["rank"] < both["rank_b"], 1.0, np.where(both["rank"] == both["rank_b"], 0.5, 0.0)
    )
    return both.assign(ahead=ahead)["ahead"]


def test_head_to_head_changes_are_paired_by_game(league, tmp_path):
    _, made = league
    result = compare([cached_summary(made[0]), cached_summary(made[1])])
    pair = next(p for p in result["head_to_head"] if {p["a"], p["b"]} == {"mybot", "greedy"})
    d = pair["diffs"][0]
    assert d["paired"] and d["shared_deals"] == 60 and not d["identical"]
    # The same number from the games themselves: paired by table, deal and seating.
    before = _ahead(made[0], pair["a"], pair["b"])
    after = _ahead(made[1], pair["a"], pair["b"])
    both = before.to_frame("x").join(after.to_frame("y"), how="inner")
    deals = both.index.get_level_values("deal").to_numpy()
    expected = paired_difference(deals, both["x"].to_numpy(), both["y"].to_numpy())
    assert d["diff"] == pytest.approx(expected.diff)
    assert d["low"] == pytest.approx(expected.low) and d["high"] == pytest.approx(expected.high)
    unpaired = compare([cached_summary(made[0]), cached_summary(made[1])], paired=False)
    u = next(p for p in unpaired["head_to_head"] if {p["a"], p["b"]} == {"mybot", "greedy"})
    assert not u["diffs"][0]["paired"]
    assert d["high"] - d["low"] < u["diffs"][0]["high"] - u["diffs"][0]["low"]
    # A pair the edit did not touch (greedy and simple meet at their own table): identical.
    untouched = next(p for p in result["head_to_head"] if {p["a"], p["b"]} == {"greedy", "simple"})
    assert untouched["diffs"][0]["identical"] and untouched["diffs"][0]["p_holm"] is None


def test_the_files_say_how_each_pair_was_compared(league, tmp_path):
    _, made = league
    out = tmp_path / "files"
    assert _invoke(str(made[0]), str(made[1]), "--out", str(out)).exit_code == 0
    md = (out / "compare.md").read_text(encoding="utf-8")
    section = md[md.index("## Shared head to head") :]
    assert "Unpaired (independent samples)" not in md
    lines = section.splitlines()
    rows = [x for x in lines if " ahead of " in x and x.startswith("| ")]
    assert rows and all("paired, 60 deals" in r or "identical" in r for r in rows)
