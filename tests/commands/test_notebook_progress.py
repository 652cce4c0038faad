"""The progress bar in a notebook: detected (no tty, an IPython kernel), one line redrawn in
place through IPython's display, never when told off or given another stream; without a
usable display, a line on the stream now and then."""

from __future__ import annotations

import io
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from harness.tourney import progress as progress_mod
from harness.tourney.progress import Progress, in_notebook

pytestmark = pytest.mark.interpreter


class Handle:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def update(self, obj: Any) -> None:
        self.log.append(obj.text)


class FakePretty:
    def __init__(self, text: str) -> None:
        self.text = text


def fake_ipython(monkeypatch: pytest.MonkeyPatch, *, kernel: bool = True, broken: bool = False):
    """IPython as a Jupyter kernel has it: get_ipython().kernel, display(display_id=True)."""
    shown: list[Any] = []  # what display() was given (one item per displayed output)
    updates: list[str] = []
    ipython = types.ModuleType("IPython")
    shell = types.SimpleNamespace(kernel=object()) if kernel else types.SimpleNamespace()
    ipython.get_ipython = lambda: shell  # type: ignore[attr-defined]
    display_mod = types.ModuleType("IPython.display")

    def display(obj: Any, display_id: bool = False) -> Handle:
        if broken:
            raise RuntimeError("no frontend")
        assert display_id is True  # an updatable output, not a new one per update
        shown.append(obj)
        return Handle(updates)

    display_mod.display = display  # type: ignore[attr-defined]
    display_mod.Pretty = FakePretty  # type: ignore[attr-defined]
    ipython.display = display_mod  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display_mod)
    return shown, updates


class NotATty(io.StringIO):
    def isatty(self) -> bool:
        return False


def test_no_ipython_is_no_notebook(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert not in_notebook()


def test_a_terminal_ipython_is_no_notebook(monkeypatch):
    fake_ipython(monkeypatch, kernel=False)
    assert not in_notebook()


def test_a_kernel_is_a_notebook(monkeypatch):
    fake_ipython(monkeypatch)
    assert in_notebook()


def test_the_bar_is_one_line_redrawn_in_place(monkeypatch):
    shown, updates = fake_ipython(monkeypatch)
    monkeypatch.setattr(sys, "stderr", NotATty())
    bar = Progress(1000, 200)
    for _ in range(8):
        bar.add(100)
    bar.finish()
    assert len(shown) == 1  # one output, updated: not a line per update
    assert updates[0].startswith("[######") and "200/1,000 games (20%)" in updates[0]
    assert "1,000/1,000 games (100%)" in updates[-1]
    assert sys.stderr.getvalue() == ""  # nothing printed besides the display


def test_updates_are_throttled(monkeypatch):
    _, updates = fake_ipython(monkeypatch)
    monkeypatch.setattr(sys, "stderr", NotATty())
    bar = Progress(10_000)
    for _ in range(500):  # far faster than twice a second
        bar.add(10)
    assert len(updates) <= 3  # the first, perhaps one more: never one per chunk


@pytest.mark.parametrize("how", ["off", "own stream"])
def test_no_display_when_told_off_or_given_a_stream(monkeypatch, how):
    shown, _ = fake_ipython(monkeypatch)
    monkeypatch.setattr(sys, "stderr", NotATty())
    bar = Progress(10, bar=False) if how == "off" else Progress(10, stream=NotATty())
    bar.add(10)
    bar.finish()
    assert shown == [] and bar.line_out is None


def test_a_display_that_fails_gives_lines_on_the_stream(monkeypatch):
    fake_ipython(monkeypatch, broken=True)
    err = NotATty()
    monkeypatch.setattr(sys, "stderr", err)
    bar = Progress(100, every=0.0)
    bar.add(50)
    bar.add(50)
    bar.finish()
    lines = err.getvalue().splitlines()
    assert lines and all(line.startswith("progress: ") for line in lines)
    assert "100/100 games" in lines[-1] and "\r" not in err.getvalue()


def test_a_display_that_goes_away_mid_run_falls_back_to_lines(monkeypatch):
    _, updates = fake_ipython(monkeypatch)
    err = NotATty()
    monkeypatch.setattr(sys, "stderr", err)
    bar = Progress(100, every=0.0)

    def gone(text: str) -> None:
        raise RuntimeError("kernel shutting down")

    bar.line_out.show = gone  # type: ignore[union-attr]
    bar.add(100)
    bar.finish()
    assert "100/100 games" in err.getvalue()


def test_a_terminal_keeps_its_bar(monkeypatch):
    shown, _ = fake_ipython(monkeypatch)

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    monkeypatch.setattr(sys, "stderr", out)
    bar = Progress(10)
    bar.add(10)
    bar.finish()
    assert shown == [] and "\r[" in out.getvalue()


def test_a_run_in_a_notebook_shows_its_progress(monkeypatch, tmp_path: Path):
    shown, updates = fake_ipython(monkeypatch)
    monkeypatch.setattr(sys, "stderr", NotATty())
    monkeypatch.setattr(progress_mod.time, "monotonic", _clock())  # every update is drawn
    from harness.tourney import run_tournament

    run = run_tournament(
        {
            "name": "nb",
            "entrants": ["random", {"strategy": "random", "name": "other"}],
            "deals": 40,
            "chunk": 10,
            "seed": 1,
            "workers": 0,
            "engine": "python",
        },
        out=tmp_path,
    )
    assert run.status == "complete"
    assert len(shown) == 1
    assert f"{run.planned:,}/{run.planned:,} games (100%)" in updates[-1]
    assert len(updates) >= 4  # redrawn as chunks landed, not only at the end


def _clock():
    now = [0.0]

    def tick() -> float:
        now[0] += 1.0
        return now[0]

    return tick


def test_games_of_chunks_in_play_show_as_done_and_count_in_the_rate(monkeypatch):
    bar = Progress(1000, 200, bar=False)
    monkeypatch.setattr(progress_mod.time, "monotonic", lambda: bar.start + 10.0)
    bar.add(100)  # a chunk stored: 300 done, 100 of them played now
    assert bar.rate() == 10.0
    bar.pending = 150  # the backend's in_flight(): played, not stored yet
    assert bar.line() == "450/1,000 games (45%), 25 games/s, ETA 22s"
    bar.pending = 10**6  # never more than the run
    assert bar.line().startswith("1,000/1,000 games (100%)")
    bar.pending = 0
    assert bar.line().startswith("300/1,000 games (30%)")


# -- notes where the person is (issue 30, item 5) -------------------------------------------
NOTEBOOK_CLASSES = """
import sys, types
# A Jupyter kernel as harness sees one: IPython with a kernel and an updatable display.
ipython = types.ModuleType("IPython")
shell = types.SimpleNamespace(kernel=object())
ipython.get_ipython = lambda: shell
shown = types.ModuleType("IPython.display")
shown.Pretty = lambda text: text
shown.display = lambda obj, display_id=False: types.SimpleNamespace(update=lambda obj: None)
ipython.display = shown
sys.modules["IPython"], sys.modules["IPython.display"] = ipython, shown

from harness.strategy import Strategy
from harness.tourney import run_tournament

class Mine(Strategy):
    name = "mine"
    def pick(self, view):
        return max(view.choices)
    def stop(self, view):
        return view.total >= 25

class Other(Mine):
    name = "other"
    def stop(self, view):
        return view.total >= 27

run = run_tournament(
    {"name": "nb", "entrants": [Mine, Other, "greedy"], "deals": 4, "seed": 3,
     "workers": 2, "engine": "python"},
    out=OUT, progress=PROGRESS,
)
print(run.run_dir)
"""


def _notebook_run(tmp_path: Path, progress: bool | None) -> tuple[str, str]:
    import subprocess

    source = NOTEBOOK_CLASSES.replace("OUT", repr(str(tmp_path))).replace(
        "PROGRESS", repr(progress)
    )
    done = subprocess.run(
        [sys.executable, "-"], input=source, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    run_dir = Path(done.stdout.strip().splitlines()[-1])
    return done.stderr, (run_dir / "run.log").read_text()


def test_a_notebook_class_s_workers_0_notes_show_in_the_notebook_and_run_log(tmp_path):
    """No echo (a notebook calls run_tournament as it is): the notes about playing in
    this process (workers: 0) reach the cell's output, not run.log alone."""
    err, log = _notebook_run(tmp_path, None)
    here = "entrant mine is defined in this notebook or script (__main__)"
    told = "Note: workers: 0 put every plugin in one process: later runs will not reuse"
    assert err.count(here) == 1 and err.count(told) == 1, err
    assert "Traceback" not in err
    assert here in log and "workers: 0 plays every table in this one process" in log


@pytest.mark.once  # the notebook's process on a newer Python: the test above
def test_no_notes_when_the_progress_is_off(tmp_path):
    err, log = _notebook_run(tmp_path, False)
    assert err == ""
    assert "defined in this notebook or script" in log  # run.log keeps them all the same


def test_a_note_never_lands_on_the_bars_line():
    from harness.tourney.runner import Options

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    options = Options(stream=out)
    bar = Progress(10, stream=out)
    options.drawn.append(bar)
    bar.add(4)
    options.say("Note: something")
    bar.add(6)
    bar.finish()
    lines = out.getvalue().split("\n")
    assert "Note: something" in lines  # a line of its own
    assert lines[0].startswith("\r[") and "4/10 games" in lines[0]
    assert "10/10 games" in lines[-2]


@pytest.mark.parametrize("tty", [True, False])
@pytest.mark.parametrize("notebook", [True, False])
@pytest.mark.parametrize("bar", [None, True, False])
@pytest.mark.parametrize("own_stream", [True, False])
def test_notes_go_where_the_progress_is_drawn(monkeypatch, tty, notebook, bar, own_stream):
    from harness.tourney.progress import watched

    fake_ipython(monkeypatch, kernel=notebook)

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return tty

    stream = Stream()
    if not own_stream:
        monkeypatch.setattr(sys, "stderr", stream)
    given = stream if own_stream else None
    drawn = Progress(10, stream=given, bar=bar)
    assert watched(given, bar) == (drawn.bar or drawn.line_out is not None)
