"""Isolated means isolated (issue 24, item 3): the sandbox of ``isolation: process``.

Hostile seats (tests/fixtures/hostile/sandbox_attacks.py) try, at their first pick, to
read the engine process's memory (through /proc and by system call), ptrace it, signal
it, open a socket (TCP and Unix), start a process that outlives the game, allocate 10 GB,
write a 10 GB file, hold 100,000 files open, and write outside their scratch folder. An
attack that works forfeits with "ESCAPED"; each must be a failed attempt instead, and
the game, and the run, go on. A protection this system lacks skips its attack, naming it
(the run says the same in one line).
"""

from __future__ import annotations

import ctypes
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from harness import play_game
from harness.play import open_seats
from harness.seats import SeatLimits
from harness.seats.isolation import SeatProcess, _reap
from harness.seats.sandbox import missing_note, probe
from harness.tourney import run_tournament

pytestmark = [
    pytest.mark.interpreter,
    pytest.mark.usefixtures("deadline"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux's"),
]
ATTACKS = Path(__file__).parents[1] / "fixtures" / "hostile" / "sandbox_attacks.py"
ISOLATED = SeatLimits(isolation="process")
# The protection each attack meets first, as the seat's process names it when missing.
NEEDS = {
    "ReadsParentMemory": ("Landlock", "dumping"),
    "ReadsParentMemoryByCall": ("seccomp",),
    "PtracesParent": ("seccomp",),
    "ForksGrandchild": ("seccomp",),
    "OpensSocket": ("seccomp",),
    "WritesOutside": ("Landlock",),
    "SignalsParent": ("Landlock",),
}


def missing_for(attack: str) -> list[str]:
    missing = probe()
    return [m for m in missing for need in NEEDS.get(attack, ()) if m.startswith(need)]


def duel(ref: str) -> object:
    with open_seats([ref, "greedy"], ISOLATED) as seats:
        return play_game(seats.strategies, seed=3, forfeit=True, names=seats.names)


@pytest.fixture(scope="module")
def listeners(tmp_path_factory):
    """A TCP port and a Unix socket on this machine that an escaped seat could reach."""
    tcp = socket.create_server(("127.0.0.1", 0))
    path = tmp_path_factory.mktemp("sock") / "s"
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(path))
    unix.listen()
    yield {"tcp": f"tcp:{tcp.getsockname()[1]}", "unix": f"unix:{path}"}
    tcp.close()
    unix.close()


@pytest.mark.parametrize(
    "attack",
    [
        "ReadsParentMemory",
        "ReadsParentMemoryByCall",
        "PtracesParent",
        "ForksGrandchild",
        "Allocates10GB",
        "Writes10GB",
        "Opens100kFiles",
        "SignalsParent",
    ],
)
def test_each_attack_is_a_failed_attempt(attack):
    if missing_for(attack):
        pytest.skip(f"this system lacks {missing_for(attack)}")
    result = duel(f"{ATTACKS}:{attack}")
    assert result.error is None, result.error  # a failed attempt: it played on
    assert result.over


@pytest.mark.parametrize("kind", ["tcp", "unix"])
def test_no_socket_reaches_this_machine(listeners, kind):
    if missing_for("OpensSocket"):
        pytest.skip(f"this system lacks {missing_for('OpensSocket')}")
    result = duel(f"{ATTACKS}:OpensSocket(target={listeners[kind]!r})")
    assert result.error is None, result.error


def test_no_file_is_written_outside_its_scratch_folder(tmp_path):
    if missing_for("WritesOutside"):
        pytest.skip(f"this system lacks {missing_for('WritesOutside')}")
    victim = tmp_path / "manifest.jsonl"
    result = duel(f"{ATTACKS}:WritesOutside(target={str(victim)!r})")
    assert result.error is None, result.error
    assert not victim.exists()


def test_the_engine_process_is_not_dumpable_once_it_has_isolated_seats():
    libc = ctypes.CDLL(None, use_errno=True)
    with open_seats(["greedy"], ISOLATED):
        assert libc.prctl(3, 0, 0, 0, 0) == 0  # PR_GET_DUMPABLE


@pytest.mark.once
def test_the_whole_run_finishes_and_other_tables_are_as_clean(tmp_path):
    """The issue's tournament: a seat that tries every attack sits at some tables; the run
    completes, and the tables without it hold the very games of a run without it."""
    attacker = {"strategy": f"{ATTACKS}:EveryAttack", "name": "attacker"}
    hostile = {
        "name": "hostile",
        "entrants": ["greedy", "random", attacker],
        "deals": 2,
        "isolation": "process",
    }
    clean = {**hostile, "name": "clean", "entrants": ["greedy", "random"]}
    notes: list[str] = []
    run = run_tournament(hostile, out=tmp_path / "h", workers=1, echo=notes.append)
    reference = run_tournament(clean, out=tmp_path / "c", workers=1)
    assert run.status == "complete" and run.stored == 12
    games = run.games
    escaped = [e for e in games["error"].dropna() if "ESCAPED" in e]
    assert not escaped, escaped
    both = games[(games["seat0_strategy"] != "attacker") & (games["seat1_strategy"] != "attacker")]
    keep = [c for c in reference.games.columns if c not in ("table",)]
    pd.testing.assert_frame_equal(
        both[keep].reset_index(drop=True), reference.games[keep].reset_index(drop=True)
    )
    missing = probe()
    said = [n for n in notes if "isolated seats run without" in n]
    assert bool(said) == bool(missing), (notes, missing)


def test_a_missing_protection_is_one_line():
    assert missing_note([]) is None
    line = missing_note(["Landlock (not in this kernel)", "a user namespace (unshare: EPERM)"])
    assert line is not None and "\n" not in line
    assert "Landlock (not in this kernel); a user namespace" in line


def test_a_seats_process_group_dies_with_it(tmp_path):
    """Where the filter cannot stop a new process (no seccomp), what the seat started
    dies with it: its whole process group is killed."""
    note = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(note)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    seat = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    while not note.exists() or not note.read_text():
        time.sleep(0.05)
    grandchild = int(note.read_text())
    left, right = socket.socketpair()
    right.close()
    _reap(seat, left, str(tmp_path / "scratch"))
    for _ in range(100):
        try:
            with open(f"/proc/{grandchild}/status") as f:
                if "Z" in next(line for line in f if line.startswith("State:")):
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the seat's grandchild outlived it")


def test_the_scratch_folder_goes_with_the_seat():
    process = SeatProcess({"ref": ("greedy", ())}, "greedy", 60)
    process.start()
    process.wait_ready()
    scratch = process.scratch
    assert scratch is not None and os.path.isdir(scratch)
    process.kill()
    assert not os.path.exists(scratch)


def test_a_seat_that_burns_cpu_between_its_decisions_is_ended_by_the_kernel(tmp_path):
    plugin = tmp_path / "burner.py"
    plugin.write_text(
        "import threading\n"
        "from harness.strategy import Strategy\n"
        "def burn():\n"
        "    while True:\n"
        "        pass\n"
        "threading.Thread(target=burn, daemon=True).start()\n"
        "class Burner(Strategy):\n"
        "    def pick(self, view):\n"
        "        return max(view.choices)\n"
        "    def stop(self, view):\n"
        "        return True\n"
    )
    process = SeatProcess({"ref": (f"{plugin}:Burner", ())}, "burner", cpu_seconds=1)
    process.start()
    process.wait_ready()
    for _ in range(600):  # CPU limits are read at the kernel's tick: within seconds
        if not process.alive:
            break
        time.sleep(0.05)
    assert process.death() in ("killed by SIGXCPU", "killed by SIGKILL")
    process.kill()


def test_a_seat_process_is_replaced_before_its_cpu_budget_runs_out(monkeypatch):
    seats = open_seats(["greedy", "greedy"], ISOLATED)
    try:
        first = seats.strategies[0].process.pid
        plain = play_game(seats.strategies, seed=4, names=seats.names)
        monkeypatch.setattr("harness.seats.isolation.sandbox.cpu_used", lambda pid: 10**6)
        again = play_game(seats.strategies, seed=4, names=seats.names)
        assert seats.strategies[0].process.pid != first  # a fresh process, the same game
        assert again == plain
    finally:
        seats.close()


def test_what_a_seat_wrote_is_handed_over_before_its_kill_returns(tmp_path):
    """A seat's output is read by a thread of its own; when the seat is ended (the game
    over, the command about to print and exit), every line it wrote has reached the
    output first, however far the reader lagged (under load it lagged the game: the last
    lines and the note that output was capped were lost)."""
    plugin = tmp_path / "talker.py"
    plugin.write_text(
        "from harness.strategy import Strategy\n"
        "for i in range(40):\n"
        "    print(f'line {i}', flush=True)\n"
        "class Talker(Strategy):\n"
        "    def pick(self, view):\n"
        "        return max(view.choices)\n"
        "    def stop(self, view):\n"
        "        return True\n"
    )
    seen = []

    def slow(line):  # a reader far behind the seat
        time.sleep(0.02)
        seen.append(line)

    process = SeatProcess({"ref": (f"{plugin}:Talker", ())}, "talker", 60, output=slow)
    process.start()
    process.wait_ready()  # the module has run: all 40 lines are in the pipe
    process.kill()
    assert [line for line in seen if "line " in line] == [
        f"[talker] line {i}"
        for i in range(40)  # labelled by the child
    ]
