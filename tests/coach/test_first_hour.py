"""The coach's and the diff's first hour (issue 30, item B).

Progress on stderr (off with -q and under --json); a diff that stops once its answer is
settled (harness.coach.stopping); picks shown with their roll; the diff's gains one row
per lesson; a game's two luck figures labelled; readable results in a notebook; bots
named as a tourney names them.
"""

from __future__ import annotations

import json
import random

import pytest

from harness.coach.coaching import coach
from harness.coach.differ import diff

pytestmark = [pytest.mark.engine, pytest.mark.usefixtures("deadline")]

BOT = "examples/my_bot.py:WormHunter"


@pytest.mark.parametrize("command", [["coach", "greedy"], ["diff", "greedy", "simple"]])
@pytest.mark.once
def test_progress_is_told_on_stderr_and_quiet_or_json_silence_it(harness_process, cli, tmp_path,
                                                                command):  # fmt: skip
    out = harness_process(*command, "--deals", "10", "--out", str(tmp_path / "a"))
    assert out.returncode == 0, out.stderr
    games = 20 if command[0] == "coach" else 40
    assert f"progress: {games}/{games} games (100%)" in out.stderr
    quiet = cli(*command, "--deals", "10", "-q", "--out", str(tmp_path / "q"))
    assert quiet.exit_code == 0 and "progress: " not in quiet.output, quiet.output
    as_json = cli(*command, "--deals", "10", "--json", "--out", str(tmp_path / "j"))
    assert json.loads(as_json.output)["deals"] == 10  # nothing else on either stream


@pytest.mark.once
def test_the_diff_stops_once_its_answer_is_settled():
    d = diff("greedy", "tactician", examples=0)
    assert d.deals == 20 and d.games() == 80  # settled at its first look
    rule = d.to_json()["sequential"]
    assert rule["settled"] == "separated" and rule["looks"] == [20, 40, 80, 160, 320, 500]
    assert rule["low"] > 0 and d.verdict["says"].startswith("B is better (sequential rule")
    fixed = diff("greedy", "tactician", deals=25, examples=0)
    assert fixed.deals == 25 and fixed.to_json()["sequential"] is None


def test_the_rules_looks_and_its_error_rate_on_a_null():
    from harness.coach import stopping

    assert stopping.looks(500) == [20, 40, 80, 160, 320, 500]
    assert stopping.looks(30) == [20, 30] and stopping.looks(5) == [5]
    assert stopping.looks(1000) == [20, 40, 80, 160, 320, 640, 960, 1000]
    # A true gain of 0 (each deal's gain normal around 0, two games a deal): the rule's
    # looks together separate at most ALPHA of the time (seeded: the same every run).
    rng = random.Random(5)
    looks = stopping.looks(500)
    separated = 0
    for _ in range(300):
        gains = [rng.gauss(0, 3) for _ in range(500)]
        for j, n in enumerate(looks):
            found = stopping.look(gains[:n], [2.0] * n, len(looks), j == len(looks) - 1, n)
            if found.settled is not None:
                separated += found.settled == "separated"
                break
    assert separated / 300 <= stopping.ALPHA
    # Bots that never part are identical only once every deal says so; too few deals
    # with partings settle nothing before the maximum.
    assert stopping.look([0.0] * 20, [4.0] * 20, 6, False, 0).settled is None
    assert stopping.look([0.0] * 500, [4.0] * 500, 6, True, 0).settled == "identical"
    few = stopping.MIN_PARTED - 1
    clear = [5.0] * few + [0.0] * 20
    assert stopping.look(clear, [4.0] * len(clear), 6, False, few).settled is None
    more = [*clear, 5.0]
    assert stopping.look(more, [4.0] * len(more), 6, False, few + 1).settled == "separated"


def test_a_picks_situation_shows_its_roll():
    c = coach("greedy", deals=6, examples=0)
    picks = [r for r in c.situation_rows(top=10**6) if r["kind"] == "pick"]
    assert picks
    for row in picks:
        assert len(row["roll"].split()) == row["dice"], row
        assert f"rolled {row['roll']}, total {row['total']}" in row["describe"]
    # two picks that differ only in the roll no longer read the same
    shown = [r["describe"] + r["did"] + r["better"] for r in picks]
    assert len(set(shown)) == len(shown)


@pytest.mark.once
def test_the_diffs_gains_are_one_row_per_lesson():
    d = diff("greedy", "tactician", deals=40, examples=1)
    rows = d.spot_rows(True, top=10**6) + d.spot_rows(False, top=10**6)
    keys = ("kind", "dice", "roll", "total", "set_aside", "in_reach", "end_game", "a", "b")
    lessons = [tuple(r.get(k) for k in keys) for r in rows]  # all but the tile at risk
    assert len(set(lessons)) == len(lessons)  # never one lesson split by the tile at risk
    assert any("," in r["at_risk"] for r in rows)  # some lessons hold several tiles
    assert sum(r["count"] for r in rows) == sum(s.count for s in d.spots().values())
    frame = d.partings  # the notebook's frame keeps every key
    assert len(frame) == len(d.spots())


def test_analyze_game_labels_each_luck_figure(cli, tmp_path):
    from harness import play_game
    from harness.game.record import save_record

    result = play_game(["greedy", "simple"], seed=3, record=True)
    path = tmp_path / "game.json"
    save_record(result.record, path)
    out = cli("analyze", "game", str(path), "--seats-only")
    assert out.exit_code == 0, out.output
    lucky = [line for line in out.output.splitlines() if "luck" in line]
    assert len(lucky) == 4
    labelled = ("its own", "margin over seat", "chance (own minus other's)")
    assert all(any(w in line for w in labelled) for line in lucky), lucky
    assert all(len(line) <= 100 for line in out.output.splitlines())


def test_a_result_reads_well_in_a_notebook():
    c = coach("greedy", deals=4, examples=0)
    text = repr(c)
    assert text.startswith("Coach: greedy.") and "Coaching(" not in text
    assert "win chance lost per game" in text and "c.kinds" in text and len(text) < 1000
    assert "<pre>" in c._repr_html_() and "<table" in c._repr_html_()
    d = diff("greedy", "tactician", deals=4, examples=0)
    text = repr(d)
    assert text.startswith("Diff: A = greedy, B = tactician.") and "DiffTally" not in text
    flat = " ".join(text.split())
    assert "B is better" in flat or "not separated" in flat
    assert "<table" in d._repr_html_()


def test_bots_are_named_by_their_strategy_name_as_in_a_tourney(tmp_path):
    c = coach(BOT, deals=2, examples=0)
    assert c.bot == "worm-hunter"
    d = diff(BOT, f"{BOT}(target=28)", deals=2, examples=0)
    assert (d.a, d.b) == ("worm-hunter", "worm-hunter(target=28)")
    # two different bots that would read the same: each by its reference
    (tmp_path / "one.py").write_text(
        "from harness.strategy import Strategy\n"
        "class Mine(Strategy):\n"
        "    name = 'mine'\n"
        "    def pick(self, view):\n        return max(view.choices)\n"
        "    def stop(self, view):\n        return True\n"
    )
    (tmp_path / "two.py").write_text((tmp_path / "one.py").read_text())
    c = coach(f"{tmp_path}/one.py:Mine", opponents=[f"{tmp_path}/two.py:Mine"], deals=1,
              examples=0)  # fmt: skip
    assert c.bot.endswith("one.py:Mine") and c.opponents[0].endswith("two.py:Mine")


def test_json_and_the_pages_say_what_the_figures_are_from(cli, tmp_path):
    out = cli("diff", "greedy", "tactician", "--json", "--out", str(tmp_path / "d"))
    data = json.loads(out.output)
    assert data["deals"] == 20 and data["sequential"]["settled"] == "separated"
    md = (tmp_path / "d" / "diff.md").read_text()
    assert "sequential rule" in md and "one lesson" in md
