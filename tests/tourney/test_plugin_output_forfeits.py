"""Plugin output and forfeits a person can act on (issue 19, item 6).

A plugin's print() went to run.log (1.2 MB) without a word on the terminal; one bug
filled 13 rows of the report's forfeit table; a bot that forfeited every game had no
headline. Here: a chatty bot, a bot whose one bug raises with a different number each
time, and a bot that forfeits everything.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.report import summarise_run
from harness.report.summaries.aggregate import forfeit_pattern
from harness.runfolder.manifest import OUTPUT_KEPT

# not `engine`: what these add (processes, signals, disks) is not the engine's; a chunk
# picks its engine as in test_tourney_run.py, which pass 2 runs
pytestmark = pytest.mark.interpreter

BOTS = """
from harness.strategy import Strategy


class Chatty(Strategy):
    name = "chatty"

    def pick(self, view):
        print("thinking", view.total, "-" * 300)
        return max(view.choices)

    def stop(self, view):
        return view.total >= 25


class Buggy(Strategy):
    name = "buggy"

    def pick(self, view):
        if view.total > 12:  # one bug: the message names the total, which varies
            raise ValueError(f"cannot handle a total of {view.total}")
        return max(view.choices)

    def stop(self, view):
        return False


class Broken(Strategy):
    name = "broken"

    def new_game(self, seat, rules):
        return {"nope": 1}["yes"]

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True
"""


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    root = tmp_path_factory.mktemp("output")
    (root / "bots.py").write_text(BOTS, encoding="utf-8")
    config = root / "league.yaml"
    config.write_text(
        "name: league\n"
        "entrants: [greedy, bots.py:Chatty, bots.py:Buggy, bots.py:Broken]\n"
        "deals: 60\nseed: 2\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["tourney", str(config), "--out", str(root / "out")])
    assert result.exit_code == 0, result.output
    run = next((root / "out" / "league").iterdir())
    return root, config, run, result.output, summarise_run(run)


@pytest.mark.once
def test_the_terminal_says_who_wrote_how_much_to_run_log(league):
    _, _, run, output, summary = league
    lines = output.splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith("Plugin output went to run.log"))
    end = first + 1
    while end < len(lines) and lines[end].startswith("  "):  # the line wrapped at 100
        end += 1
    line = " ".join(x.strip() for x in lines[first:end])
    assert "chatty" in line and "kB" in line or "MB" in line
    written = summary["output"]["by_strategy"]
    assert set(written) == {"chatty"}
    log = (run / "run.log").read_text(encoding="utf-8")
    kept = log.count("thinking ")
    assert written["chatty"] > kept * 300  # everything written is counted, kept or not
    assert summary["output"]["cut_chunks"] >= 1 and "cut there: " in line
    assert written["chatty"] > OUTPUT_KEPT


def test_one_bug_is_one_row_with_its_count_and_a_command(league):
    root, config, _, output, summary = league
    buggy = [g for g in summary["forfeits"] if g["strategy"] == "buggy"]
    assert len(buggy) == 1, [g["detail"] for g in buggy]  # main: one row per total and turn
    group = buggy[0]
    forfeited = summary["forfeit_kinds"]["by_strategy"]["buggy"]["raised"]
    assert group["count"] == forfeited > 1 and group["messages"] > 1
    assert group["detail"].startswith("raised ValueError in pick(): cannot handle a total of ")
    assert f"buggy: {group['detail']}: {forfeited:,} games" in output
    # The command plays that very game again and forfeits there.
    command = next(x for x in output.splitlines() if "play one again:" in x).split(": ", 1)[1]
    args = shlex.split(command)
    assert args[:3] == ["harness", "tourney", str(config)] and args[3] == "--game"
    replay = CliRunner().invoke(main, args[1:])
    assert "FORFEIT" in replay.output and "raised" in replay.output


def test_the_report_groups_them_too(league):
    _, _, run, _, summary = league
    md = (run / "report.md").read_text(encoding="utf-8")
    section = md[md.index("## Forfeits") :]
    rows = [line for line in section.splitlines() if line.startswith("| buggy ")]
    assert len(rows) == 1 and "harness tourney" in rows[0] and "--game" in rows[0]


def test_a_bot_that_forfeits_every_game_is_a_headline(league):
    _, _, run, output, summary = league
    games = next(r["games"] for r in summary["standings"] if r["strategy"] == "broken")
    said = f"broken forfeited every one of its {games:,} games: raised KeyError in new_game()"
    (headline,) = summary["headlines"]  # buggy forfeits often, not always: no headline
    assert headline.startswith(said)
    assert output.count(f"NOTE: {said}") == 1
    md = (run / "report.md").read_text(encoding="utf-8").replace("\\", "")  # md escapes
    top = md[: md.index("## ")]  # before the first section: the report's first bullets
    assert said in top


def test_numbers_are_what_varies_within_one_cause():
    same = [
        "picked 5, already set aside this turn (R5)",
        "picked 3, already set aside this turn (R5)",
    ]
    assert forfeit_pattern(same[0]) == forfeit_pattern(same[1])
    assert forfeit_pattern("picked 5, not in the roll 1 2 3 (R5)") != forfeit_pattern(same[0])
    assert "(R5)" in forfeit_pattern(same[0])  # rule ids are kept
    assert forfeit_pattern("raised KeyError in pick(): 'v2'") == "raised KeyError in pick(): 'v2'"


def test_output_of_no_seat_is_counted_apart(tmp_path: Path):
    (tmp_path / "noisy.py").write_text(
        "import os\nfrom harness.strategy import Strategy\n\n\n"
        "class Noisy(Strategy):\n"
        "    name = 'noisy'\n\n"
        "    def pick(self, view):\n"
        "        os.write(1, b'straight to the file descriptor\\n')\n"
        "        return max(view.choices)\n\n"
        "    def stop(self, view):\n"
        "        return True\n",
        encoding="utf-8",
    )
    config = tmp_path / "c.yaml"
    config.write_text("entrants: [greedy, noisy.py:Noisy]\ndeals: 5\n", encoding="utf-8")
    args = ["tourney", str(config), "--out", str(tmp_path / "o"), "--no-report"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "(unattributed)" in result.output
