"""The small slips a new user hit in the first hour (issue 19, item 9).

The starter bot teaches a reference that works; ``harness play`` names a file bot by its
``name``; a mistyped config gets a "did you mean"; every table (terminal and files)
writes intervals one way and the terminal's tables share one style; sprt labels its deal
counts; ``harness play -q`` starts with the result. (The published P(>= 24) is in
tests/analysis/test_analysis_cli.py.)
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.commands.init import BOT, write_starter

INTERVAL = re.compile(r"^(—|[+-]?\d[\d,]*(\.\d+)? to [+-]?\d[\d,]*(\.\d+)?%?)$")


# -- the starter bot ----------------------------------------------------------------------
def test_every_command_the_starter_bot_teaches_works(tmp_path, harness_process):
    write_starter(tmp_path)
    commands = re.findall(r"harness play .*$", BOT, flags=re.MULTILINE)
    assert len(commands) >= 2
    for command in commands:
        args = shlex.split(command)[1:] + ["-q"]
        done = harness_process(*args, cwd=tmp_path)
        assert done.returncode == 0, (command, done.stderr)
    # The parameters' comment names the bot on the command line in a form that works.
    taught = re.findall(r"'(bot\.py:MyBot\([^']*\))' on", BOT)
    assert taught
    for reference in taught:
        done = harness_process("play", reference, "greedy", "--seed", "2", "-q", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert "`my-bot(" not in BOT  # what it taught before: an unknown strategy


def test_play_names_a_file_bot_by_its_name(tmp_path, harness_process):
    write_starter(tmp_path)
    done = harness_process("play", "bot.py:MyBot(target=27)", "greedy", "--seed", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "  seat 0: my-bot(target=27)" in done.stdout.splitlines()
    assert "bot.py" not in done.stdout


def test_play_quiet_starts_with_the_result():
    result = CliRunner().invoke(main, ["play", "greedy", "simple", "--seed", "4", "-q"])
    assert result.exit_code == 0
    assert result.output.splitlines()[0].startswith("Game over after")


# -- did you mean -------------------------------------------------------------------------
def test_a_mistyped_shipped_config_gets_a_did_you_mean():
    result = CliRunner().invoke(main, ["tourney", "round_robn"])
    assert result.exit_code == 2
    assert "did you mean 'round_robin'?" in result.output


def test_a_mistyped_config_path_gets_a_did_you_mean(tmp_path):
    (tmp_path / "league.yaml").write_text("entrants: [greedy, random]\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["tourney", str(tmp_path / "leauge.yaml")])
    assert result.exit_code == 2
    assert f"did you mean {str(tmp_path / 'league.yaml')!r}?" in result.output
    far = CliRunner().invoke(main, ["tourney", str(tmp_path / "zzz.yaml")])
    assert far.exit_code == 2 and "did you mean" not in far.output


# -- one way to write an interval, one table style ----------------------------------------------
@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("slips")
    config = out / "slips.yaml"
    text = "name: slips\nentrants: [greedy, random, 'threshold(target=26)']\ndeals: 40\nseed: {}\n"
    outputs = []
    for seed in (1, 1):
        config.write_text(text.format(seed), encoding="utf-8")
        # The second run's report is read below; the first's is written by `harness report`.
        skip = ["--no-report"] if not outputs else []
        result = CliRunner().invoke(
            main, ["tourney", str(config), "--out", str(out), "--workers", "0", "--fresh", *skip]
        )
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    return out / "slips", outputs


def _tables(markdown: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in markdown.splitlines():
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip("|").split(" | ")])
        elif current:
            tables.append(current)
            current = []
    return tables + ([current] if current else [])


def test_every_interval_of_the_report_is_written_one_way(two_runs):
    folder, _ = two_runs
    run = sorted(p for p in folder.iterdir() if (p / "report.md").exists())[-1]
    md = (run / "report.md").read_text(encoding="utf-8").replace("\\", "")  # md escapes
    checked = 0
    for table in _tables(md):
        header = table[0]
        for row in table[2:]:
            for name, cell in zip(header, row, strict=True):
                if name == "95% CI":
                    assert INTERVAL.match(cell), (name, cell)
                    checked += 1
    assert checked >= 9
    standings = next(t for t in _tables(md) if t[0][:2] == ["#", "strategy"])
    for row in standings[2:]:
        elo, interval = row[standings[0].index("rating (Elo)")], row[-4]
        assert elo[0] in "+-" and all(x[0] in "+-" for x in interval.split(" to "))
    html = (run / "report.html").read_text(encoding="utf-8")
    assert "white-space:nowrap" in html  # interval cells never wrap
    assert "–" not in html.split("<body>")[1].split("<img")[0]  # no en-dash intervals


def _rule_follows_header(lines: list[str], header_word: str) -> None:
    at = next(
        i
        for i, line in enumerate(lines)
        if re.search(rf"\s{re.escape(header_word)}(\s|$)", line) and ":" not in line
    )
    rule = lines[at + 1].strip()
    assert rule and set(rule) <= {"-", " "}, (lines[at], lines[at + 1])


def test_the_terminal_tables_share_one_style(two_runs, tmp_path):
    folder, outputs = two_runs
    tourney = outputs[0].splitlines()
    _rule_follows_header(tourney, "win share")
    runs = sorted(p for p in folder.iterdir() if (p / "run.json").exists())
    report = CliRunner().invoke(main, ["report", str(runs[0])]).output.splitlines()
    _rule_follows_header(report, "win share")
    compare = CliRunner().invoke(main, ["compare", str(folder), "--out", str(tmp_path / "c")])
    _rule_follows_header(compare.output.splitlines(), "difference")
    turn = CliRunner().invoke(main, ["analyze", "turn"]).output.splitlines()
    _rule_follows_header(turn, "P(>= t)")
    _rule_follows_header(turn, "claims")
    for text in (outputs[0], "\n".join(report), compare.output):
        assert "–" not in text and not re.search(r"\d-\d[\d.]*%", text), text


def test_sprt_labels_its_deal_counts():
    result = CliRunner().invoke(
        main, ["sprt", "greedy", "simple", "--max-games", "200", "--workers", "0"]
    )
    assert result.exit_code == 0, result.output
    checks = [line for line in result.output.splitlines() if line.startswith("games ")]
    assert checks and all(
        re.search(r"deals 0:\d+ 0\.5:\d+ 1:\d+ 1\.5:\d+ 2:\d+$", c) for c in checks
    )
    assert "deals S:N below: N deals in which A scored S points" in result.output


# -- item 10: the dependency list says what it holds and what it left out --------------------
def test_the_docs_explain_the_dependencies_and_the_logging_package():
    import tomllib

    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    install = (root / "docs" / "install.md").read_text(encoding="utf-8")
    section = install[install.index("## Dependencies") :]
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    for requirement in wanted:
        name = re.split(r"[<>=\[]", requirement)[0]
        if name != "pickomino-harness":
            assert name in section, name
    listed = " ".join(wanted).lower()
    assert "multiprocessing-logging" not in listed
    assert "multiprocessing-logging" in section and "0 of 2,000" in section
    assert "benchmarks/mp_logging_check.py" in section
    assert (root / "benchmarks" / "mp_logging_check.py").is_file()
