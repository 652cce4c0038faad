"""A seat for a person (issue 21): ``harness play you ...`` driven through a real
pseudo-terminal (pexpect) as a person types: a whole game, typos, hints equal to
``harness analyze roll``'s, the tutor, Ctrl-C leaving a replayable record; then the same
seat through a pipe (no terminal), NO_COLOR, a seed that deals the same dice again, and
from Python.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.analysis.game import account_record
from harness.game.record import load_record, replay
from harness.people import Person
from harness.people.console import Console

pytestmark = pytest.mark.interpreter

pexpect = pytest.importorskip("pexpect")
ROOT = Path(__file__).resolve().parents[2]
KEEP = r"keep \[([^\]]+)\]> "
STOP = r"\[s\]top / \[r\]oll> "
TAKE = r"take \[1-(\d)\]> "
SURE = r"do it anyway\? \[y/N\]> "
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def spawn(*args: str, colour: bool = False) -> pexpect.spawn:
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONUNBUFFERED": "1"}
    env.pop("NO_COLOR", None)
    if not colour:
        env["NO_COLOR"] = "1"
    child = pexpect.spawn(
        sys.executable,
        ["-m", "harness", "play", *args],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(24, 80),
    )
    # pexpect sleeps 50 ms before every send, for programs that are not yet reading when
    # their prompt shows; every answer here waits for its prompt, so that is only waiting
    child.delaybeforesend = None
    return child


def play_out(child: pexpect.spawn, on_keep=None) -> str:
    """Answer every question (the highest face offered, stop, the first claim) to the end."""
    seen = []
    while True:
        i = child.expect([KEEP, STOP, TAKE, SURE, pexpect.EOF])
        seen.append(child.before)
        if i == 0:
            if on_keep is not None:
                on_keep(child)
            child.sendline(child.match.group(1).split()[-1])
        elif i == 1:
            child.sendline("s")
        elif i == 2:
            child.sendline("1")
        elif i == 3:
            child.sendline("y")
        else:
            return "".join(seen)


def test_a_whole_game_typed_at_a_terminal(tmp_path):
    record = tmp_path / "game.json"
    child = spawn("you", "greedy", "--seed", "11", "--record", str(record))
    child.expect(KEEP)
    first = child.match.group(0)
    child.sendline("x")  # a typo: one line, the same question again
    child.expect(r"'x': not a face; type one of ")
    child.expect(re.escape(first))
    child.sendline("")  # nothing typed: asked again
    child.expect("type an answer")
    child.expect(re.escape(first))
    child.sendline("?")  # help, then the same question
    child.expect("Keep a face: type it")
    child.expect(re.escape(first))
    child.sendline(re.match(KEEP, first).group(1).split()[-1])
    text = play_out(child)
    child.close()
    assert child.exitstatus == 0, text
    assert "Game over after" in text and "Luck and skill, exact" in text
    data = load_record(record)
    result = replay(data)
    assert result.over  # the whole game, to the end (R10)
    account = account_record(data)  # analysable: every turn sums
    assert account.sums and data["seats"] == ["you", "greedy"]
    assert "FORFEIT" not in text and "\x1b[" not in text  # NO_COLOR


def _position(screen: str) -> list[str]:
    """``harness analyze roll`` arguments for the last roll drawn on ``screen``."""
    grill = re.findall(r"^Grill ((?:\s+(?:\d\d|xx|--))+)\s*$", screen, re.M)[-1].split()
    stacks = re.findall(r"^  (.+?) \(seat (\d)\)\s+\d+ worms?\s+(.*)$", screen, re.M)[-2:]
    tops = {who: (re.findall(r"\[(\d+)\]", tiles) or ["0"])[0] for who, _, tiles in stacks}
    kept = re.findall(r"^Set aside: (nothing yet|[W1-5 ]+?)(?:  total|;)", screen, re.M)[-1]
    roll = re.findall(r"^Roll: ([W1-5 ]+)$", screen, re.M)[-1]
    args = [",".join(roll.split()), "--grill", ",".join(t for t in grill if t.isdigit())]
    if kept != "nothing yet":
        args += ["--kept", ",".join(kept.split())]
    args += ["--tops", tops["greedy"], "--players", "2"]
    if tops["you"] != "0":
        args += ["--held", tops["you"]]
    return args


def test_hints_are_analyze_rolls_lines(tmp_path, cli):
    # in worms: analyze roll's very lines (the win unit's hints need the stacks: test_hints)
    child = spawn("you", "greedy", "--seed", "23", "--hints", "--unit", "worms",
                  "--record", str(tmp_path / "g.json"))  # fmt: skip
    checked = []
    screen = []

    def check(child):
        screen.append(child.before)
        text = "".join(screen).replace("\r", "")
        hints = text.rsplit("Hints (exact value", 1)[1].splitlines()[1:]
        hints = [line for line in hints if line.startswith("  ")]
        args = _position(text)
        out = cli("analyze", "roll", *args)
        assert out.exit_code == 0, (args, out.output)
        expected = [line for line in out.output.splitlines() if line.startswith("  ")]
        assert hints == expected, (args, hints, expected)
        checked.append(args)

    while len(checked) < 12:
        i = child.expect([KEEP, STOP, TAKE, pexpect.EOF])
        if i == 0:
            check(child)
            child.sendline(child.match.group(1).split()[-1])
        else:
            screen.append(child.before)
            if i == 3:
                break
            child.sendline("s" if i == 1 else "1")
    child.close(force=True)
    assert len(checked) >= 12
    assert any("--kept" in a for a in checked) and any("--held" in a for a in checked)


def test_the_tutor_warns_before_a_costly_keep(tmp_path):
    child = spawn("you", "greedy", "--seed", "11", "--tutor", "--tutor-at", "0.3",
                  "--unit", "worms", "--record", str(tmp_path / "g.json"))  # fmt: skip
    warned = False
    while not warned:
        child.expect(KEEP)
        faces = child.match.group(1).split()
        if len(faces) < 2:
            child.sendline(faces[0])
            continue
        child.sendline(faces[0])  # the lowest face (keys go lowest first): usually a poor keep
        i = child.expect([r"Tutor: keep .+ gives up (\d\.\d+) worms", KEEP, STOP])
        if i == 0:
            assert float(child.match.group(1)) > 0.3
            child.expect(SURE)
            child.sendline("n")  # not after all: the question again
            child.expect(KEEP)
            warned = True
        elif i == 1:
            child.sendline(child.match.group(1).split()[-1])
        else:
            child.sendline("s")
    child.close(force=True)


def test_ctrl_c_saves_a_replayable_record_and_exits_130(tmp_path):
    record = tmp_path / "game.json"
    child = spawn("you", "greedy", "--seed", "5", "--record", str(record))
    prompts = 0
    while prompts < 25:  # well into the game: several turns finished
        i = child.expect([KEEP, STOP])
        prompts += 1
        child.sendline(child.match.group(1).split()[-1] if i == 0 else "s")
    child.expect([KEEP, STOP])
    child.sendintr()
    child.expect(r"Stopped \(interrupted\) after (\d+) turns")
    turns = int(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    data = load_record(record)
    assert len(data["turns"]) == turns > 2 and data["stopped"] == "interrupted"
    assert not replay(data).over
    assert account_record(data).sums
    replayed = subprocess.run(
        [sys.executable, "-m", "harness", "replay", str(record)], capture_output=True, text=True
    )
    assert replayed.returncode == 0, replayed.stderr


@pytest.mark.once
def test_colour_at_a_terminal_and_none_under_no_color(tmp_path):
    for colour in (True, False):
        child = spawn("you", "greedy", "--seed", "3", "--record", str(tmp_path / "g.json"),
                      colour=colour)  # fmt: skip
        child.expect(KEEP)
        shown = child.before + child.after
        child.sendline("q")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 130
        assert ("\x1b[" in shown) is colour


def _piped(*args: str, answers: str, tmp: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "harness", "play", *args],
        input=answers,
        capture_output=True,
        text=True,
        cwd=str(tmp),
        env=env,
        timeout=120,
    )


def test_through_a_pipe_no_terminal_no_colour_and_the_end_of_the_input(tmp_path):
    out = _piped("you", "greedy", "--seed", "9", answers="w\nx\n", tmp=tmp_path)
    assert out.returncode == 130, out.stderr
    assert not ANSI.search(out.stdout)
    assert "'x': not a face" in out.stdout and "Stopped (input ended)" in out.stdout
    written = list((tmp_path / "results" / "play").glob("*-seed9.json"))
    assert len(written) == 1  # recorded by default under results/play/
    replay(load_record(written[0]))


def test_a_huge_piped_answer_is_read_once_and_echoed_cut_and_escaped(tmp_path):
    """Issue 30, item 4.4: one 3 MB answer line took 8-49 s (a quadratic wrap of its
    echo) and 10 MB did not finish; a piped answer was echoed with its raw terminal
    escapes. Now a long line is read to its end without being held, its echo is cut
    (MAX_ANSWER) and escaped, and the game goes on with the next line."""
    huge = "x" * 10_000_000
    answers = f"\x1b[2J\x1b]0;owned\x07w\n{huge}\nw\n"
    out = _piped("you", "greedy", "--seed", "9", answers=answers, tmp=tmp_path)
    assert out.returncode == 130, out.stderr[-500:]
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout  # NO_COLOR: no raw escape
    assert "\\x1b[2J\\x1b]0;owned\\x07w" in out.stdout  # shown, escaped, not acted on
    assert re.search(r"x\.\.\. \(9,999,\d{3} more characters\)", out.stdout)
    assert len(out.stdout) < 20_000  # the 10 MB line was never echoed whole
    assert out.stdout.count("not a face") == 2  # both bad answers refused, the game went on


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("w\nrest", ("w", 0)),
        ("abc", ("abc", 0)),
        ("abcdef\nnext", ("abcd", 2)),
        ("abcde\n", ("abcd", 1)),
        ("a" * 200_000 + "\nnext", ("aaaa", 199_996)),
        ("a" * 200_000, ("aaaa", 199_996)),
    ],
)
def test_read_bounded_keeps_the_head_and_counts_the_rest(text, want):
    import io

    from harness.people.console import read_bounded

    stream = io.StringIO(text)
    assert read_bounded(stream, 4) == want
    assert stream.read() == text.partition("\n")[2]  # the next line is untouched
    with pytest.raises(EOFError):
        read_bounded(io.StringIO(""), 4)


@pytest.mark.once
def test_a_seed_deals_the_same_dice_again(tmp_path):
    records = []
    for n in range(2):
        path = tmp_path / f"g{n}.json"
        child = spawn("you", "greedy", "--seed", "77", "--record", str(path))
        play_out(child)
        child.close()
        records.append(load_record(path))
    assert records[0]["turns"] == records[1]["turns"]
    # other answers, the same dice: each turn draws its dice whatever was decided
    path = tmp_path / "other.json"
    child = spawn("you", "greedy", "--seed", "77", "--record", str(path))
    while True:
        i = child.expect([KEEP, STOP, TAKE, pexpect.EOF])
        if i == 3:
            break
        child.sendline(child.match.group(1).split()[0] if i == 0 else ("s" if i == 1 else "1"))
    child.close()
    other = load_record(path)
    assert other["turns"] != records[0]["turns"]  # other decisions, another game...
    common = min(len(other["turns"]), len(records[0]["turns"]))
    for a, b in zip(other["turns"][:common], records[0]["turns"][:common], strict=True):
        assert a["rolls"][0] == b["rolls"][0]  # ...on the same dice: every turn's first roll


@pytest.mark.parametrize(
    "args,says",
    [
        (["you", "greedy", "--json"], "--json: not with a person"),
        (["you", "greedy", "-q"], "--quiet: not with a person"),
        (["you", "you"], "'you' is given 2 times"),
        (["greedy", "simple", "--hints"], "--hints and --tutor help a person"),
        (["you", "greedy", "--isolation", "process"], "--isolation process: not with"),
    ],
)
def test_what_a_person_cannot_combine_is_one_line(cli, args, says):
    out = cli("play", *args, "--seed", "1")
    assert out.exit_code == 2, out.output
    assert says in out.output and "Traceback" not in out.output


def test_a_plugin_named_you_is_noted_and_the_seat_is_the_persons(cli, monkeypatch, tmp_path):
    from harness import plugins

    class EntryPoint:
        name = "you"
        value = "mypkg.bots:You"

    monkeypatch.setattr(plugins, "entry_point_strategies", lambda: {"you": EntryPoint()})
    out = cli("play", "you", "greedy", "--seed", "2", "--record", str(tmp_path / "g.json"),
              input="q\n")  # fmt: skip
    assert out.exit_code == 130
    assert "the installed strategy `you`" in out.output and "mypkg.bots:You" in out.output
    assert "keep [" in out.output  # a person was asked


def test_a_person_from_python(tmp_path):
    """The notebook's way: a Person in play_game, answers from a function."""
    from harness import play_game

    asked = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        if prompt.startswith("keep"):
            return re.match(KEEP, prompt).group(1).split()[-1]
        return "s" if prompt.startswith("[s]") else "1"

    lines: list[str] = []
    person = Person(hints=True, console=Console(write=lines.append, read=answer, colour=False))
    result = play_game([person, "greedy"], seed=4, record=True)
    assert result.over and result.error is None
    assert any(line.startswith("Hints (exact value") for line in lines)
    assert asked and all(len(line) <= 80 for line in lines)
    assert json.loads(json.dumps(result.record))["seats"][0] == "you"
