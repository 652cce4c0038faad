"""Mixed native tables (issue 12): a Python plugin at a table the C engine plays.

A seat with no native version plays as a *Python seat* (harness/native/seats.py): the
C code plays the game, the dice and the built-ins, and calls back into Python for that
seat's decisions, through the same view and the same containment as the Python engine.
So every chunk here is played twice, natively and by ``chunks.play_chunk`` on the
Python engine, and compared: every stored column, the forfeit messages, the standings
counters and the code loaded. Plugins copy greedy, draw from ``view.rng``, decide from
everything their view shows (a view fed differently plays different games), or are
hostile: they raise, lie through ``__eq__``, scribble on their view, exit.

Bad callbacks (junk answers, bad forfeit codes, exceptions that are not forfeits) are
played against the C entry points directly, in a child process where a crash would be
one: they must be one-line exceptions, never a crash, and leave nothing half-done.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import as_at_a_terminal

from harness import interrupts, native
from harness.plugins import resolve
from harness.rules import Rules
from harness.tourney import chunks, run_tournament
from harness.tourney.plan import ChunkSpec, EntrantRef

pytestmark = [
    pytest.mark.interpreter,
    pytest.mark.skipif(not native.available(), reason="native engine not built"),
]
ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"

# Decides from everything its view shows: any value fed differently changes its games.
NOSY = """
import hashlib
from harness.strategy import Strategy


def _h(view, *more):
    text = repr((view.snapshot(), view.claims, view.rolled, view.kept_faces,
                 view.bust_cost(), view.rng.random(), *more))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big")


class Nosy(Strategy):
    name = "nosy"

    def new_game(self, seat, rules):
        self.seat = seat

    def pick(self, view):
        return view.choices[_h(view) % len(view.choices)]

    def stop(self, view):
        return _h(view) % 3 != 0

    def claim(self, view, choices):
        return choices[_h(view, choices) % len(choices)]
"""


@pytest.fixture(scope="module")
def plugins(tmp_path_factory) -> dict[str, str]:
    """File plugins: greedy's, random's and tactician's code (so none can go native)
    and the nosy one."""
    where = tmp_path_factory.mktemp("plugins")
    for name in ("greedy", "random_play", "tactician"):
        shutil.copy(ROOT / "harness" / "strategies" / f"{name}.py", where / f"my_{name}.py")
    (where / "nosy.py").write_text(NOSY)
    return {
        "greedy": f"{where / 'my_greedy.py'}:Greedy",
        "random": f"{where / 'my_random_play.py'}:RandomPlay(p_stop=0.3)",
        "tactician": f"{where / 'my_tactician.py'}:Tactician",
        "nosy": f"{where / 'nosy.py'}:Nosy",
    }


_REFS: dict[str, EntrantRef] = {}


def ref_of(text: str) -> EntrantRef:
    if text not in _REFS:
        spec = resolve(text)
        _REFS[text] = EntrantRef(spec.label, spec.ref, spec.params, spec.identity()["code"])
    return _REFS[text]


def spec_of(entrants, rules, dice="independent", first=0, stop=20, mode="cyclic", **extra):
    refs = tuple(ref_of(e) for e in entrants)
    return ChunkSpec("key", "tbl", refs, rules, dice, 23, first, stop, 1000, seating=mode, **extra)


def both(spec: ChunkSpec, start: int = 0) -> tuple:
    mine = chunks.play_native(spec, start=start)
    theirs = chunks.play_chunk(spec, start=start)
    return mine, theirs


def assert_same(spec: ChunkSpec, start: int = 0) -> chunks.ChunkResult:
    mine, theirs = both(spec, start)
    for name in mine.games:
        assert mine.games[name] == theirs.games[name], f"{name}: {spec.entrants}"
    assert mine.seats == theirs.seats
    assert mine.errors == theirs.errors
    assert (mine.stats, mine.loaded) == (theirs.stats, theirs.loaded)
    return mine


def h(name: str) -> str:
    return str(HOSTILE / name)


# -- the same games -------------------------------------------------------------------------
# HARNESS_NATIVE_SWEEP=k plays k times the deals (a longer sweep, by hand or in CI).
SWEEP = max(1, int(os.environ.get("HARNESS_NATIVE_SWEEP", "1") or 1))


@pytest.mark.parametrize("preset", ["official", "piko-blog", "french", "short"])
@pytest.mark.once
def test_mixed_tables_play_the_python_engines_games(plugins, preset):
    rows = 0
    cells = [
        (["greedy", plugins["greedy"]], "cyclic", "independent", 150),
        ([plugins["random"], "tactician", "random"], "balanced", "duplicate", 30),
        (["optimal", plugins["nosy"]], "cyclic", "duplicate", 10),
        ([plugins["tactician"], "greedy", plugins["greedy"], "worm-first"], "permutations",
         "independent", 2),
        ([plugins["nosy"], plugins["random"], "simple"], "permutations", "duplicate", 3),
        ([plugins["nosy"], "env-heuristic", "threshold", "tactician"], "balanced",
         "independent", 3),
    ]  # fmt: skip
    for entrants, mode, dice, deals in cells:
        rules = Rules.preset(preset, len(entrants))
        rows += assert_same(spec_of(entrants, rules, dice, 5, 5 + SWEEP * deals, mode)).rows
    assert rows > 600 * SWEEP


def test_a_table_of_plugins_only_plays_natively_too(plugins):
    spec = spec_of([plugins["nosy"], plugins["greedy"], plugins["random"]], Rules(players=3),
                   "duplicate", stop=15, mode="balanced")  # fmt: skip
    assert assert_same(spec).rows == 15 * len(spec.orders)


@pytest.mark.parametrize("start", [1, 39, 40])
def test_a_resumed_mixed_chunk_is_the_tail_of_the_whole(plugins, start):
    spec = spec_of([plugins["nosy"], "random"], Rules(players=2), "independent", 3, 23)
    assert_same(spec, start)
    dup = spec_of([plugins["random"], plugins["nosy"], "greedy"], Rules(players=3), "duplicate",
                  3, 17, "balanced")  # fmt: skip
    assert_same(dup, start)


def test_a_stateful_plugin_starts_every_game_fresh():
    # It remembers games across instances only through module state: both engines make
    # the same instances in the same order, so they see the same history.
    spec = spec_of([h("seats_state.py:RemembersGames"), "greedy"], Rules(players=2), stop=12)
    assert_same(spec)
    assert_same(spec_of([h("workers_stateful.py:Stateful"), "tactician"], Rules(players=2)))


# -- hostile plugins: the same forfeits, row for row ------------------------------------------
LIARS = [
    "engine_liars.py:Rekeeper",
    "engine_liars.py:Rekeeper(value=0)",
    "engine_liars.py:Rekeeper(value=7)",
    "engine_liars.py:LyingStop",
    "engine_liars.py:LyingStop(value=2)",
    *(f"engine_liars.py:LyingClaim(kind='{k}')" for k in ("tuple", "tile", "victim", "bare")),
    "engine_reach.py:Scribbler",
    "engine_raisers.py:NoPick",
    "inputs_init_exit.py:Quitter",
    *(f"engine_liars.py:Answers(method='{m}', answer={a})"
      for m, a in [("pick", "None"), ("pick", "True"), ("pick", "4.0"), ("pick", "7"),
                   ("pick", "-1"), ("pick", "9007199254740992"), ("pick", "'5'"), ("stop", "2"),
                   ("stop", "'yes'"), ("stop", "None"), ("stop", "1"), ("stop", "0"),
                   ("claim", "(21, 5)"), ("claim", "99"), ("claim", "(30,)"),
                   ("claim", "'x'"), ("claim", "(36, None)")]),
]  # fmt: skip
# "nameless": an exception whose metaclass makes reading its type's __name__ raise.
THROWN = ["exit", "exit-text", "generator-exit", "memory", "recursion", "unprintable", "huge",
          "multiline", "controls", "unpicklable", "class-property", "str-not-str",
          "nameless"]  # fmt: skip


@pytest.mark.parametrize("plugin", LIARS)
def test_liars_forfeit_as_on_the_python_engine(plugin):
    for entrants, preset in (
        ([h(plugin), "tactician", "greedy"], "french"),  # several claims: claim() is asked
        (["random", h(plugin)], "official"),
    ):
        rules = Rules.preset(preset, len(entrants))
        assert_same(spec_of(entrants, rules, "duplicate", stop=6, mode="balanced"))


@pytest.mark.parametrize("method", ["new_game", "pick", "stop", "claim"])
def test_raisers_forfeit_as_on_the_python_engine(method):
    forfeits = 0
    for what in THROWN:
        plugin = h(f"engine_raisers.py:Throws(method='{method}', what='{what}')")
        result = assert_same(spec_of(["tactician", plugin, "greedy"], Rules.preset("french", 3),
                                     stop=3))  # fmt: skip
        forfeits += len(result.errors)
    assert forfeits >= len(THROWN)


@pytest.mark.once
def test_a_cheat_that_finds_the_game_cannot_change_a_native_one(plugins):
    # GcWalker finds the Python engine's Game through gc and moves tiles on it (in-process,
    # the Python engine cannot forbid it). At a native table the game is in C: it finds
    # only the shadow game of its seat, and the games are greedy's.
    walker = spec_of([h("engine_reach.py:GcWalker"), "greedy"], Rules(players=2), stop=8)
    honest = spec_of([plugins["greedy"], "greedy"], Rules(players=2), stop=8)
    cheated = chunks.play_chunk(walker)
    mine, fair = chunks.play_native(walker), chunks.play_native(honest)
    assert (mine.games, mine.seats) == (fair.games, fair.seats)
    assert cheated.seats != mine.seats  # the cheat works on the Python engine


# -- interrupts and failures that are not forfeits ------------------------------------------------
def test_a_plugins_keyboard_interrupt_is_the_users_by_default():
    plugin = h("engine_raisers.py:Throws(method='pick', what='interrupt')")
    spec = spec_of([plugin, "greedy"], Rules(players=2), stop=4)
    with pytest.raises(KeyboardInterrupt):
        chunks.play_chunk(spec)
    now = chunks.Playing()
    with pytest.raises(KeyboardInterrupt):
        chunks.play_native(spec, now=now)
    assert now.spec is None  # nothing left behind: the next chunk plays
    assert_same(spec_of([h("engine_raisers.py:Throws"), "greedy"], Rules(players=2), stop=4))


def test_under_user_interrupts_a_plugins_interrupt_is_its_forfeit_and_ctrl_c_stops():
    plugin = h("engine_raisers.py:Throws(method='stop', what='interrupt')")
    spec = spec_of([plugin, "random"], Rules(players=2), stop=4)
    with interrupts.user_interrupts():
        result = assert_same(spec)
    assert result.errors and all("KeyboardInterrupt" in e for e in result.errors.values())
    # The user's Ctrl-C, turned into something else by the plugin: still stops the run.
    spec = spec_of([h("engine_raisers.py:Converts"), "greedy"], Rules(players=2), stop=4)
    converts = chunks._spec(spec.entrants[0]).cls
    original = converts.__init__

    def pressing(self):  # as if the user pressed Ctrl-C inside the plugin's pick
        original(self, interrupts.interrupt_as_user)

    for play in (chunks.play_chunk, chunks.play_native):
        with interrupts.user_interrupts(), pytest.raises(KeyboardInterrupt):
            try:
                converts.__init__ = pressing
                play(spec)
            finally:
                converts.__init__ = original


CTRL_C = textwrap.dedent(
    """
    import sys
    from harness import interrupts, native
    from harness.rules import Rules
    from harness.tourney import chunks
    sys.path[:0] = ["tests/native", "tests"]  # the test module, and the helpers it imports
    from test_native_plugins import spec_of

    play = chunks.play_native if sys.argv[1] == "native" else chunks.play_chunk
    spec = spec_of(["harness/strategies/greedy.py:Greedy", "greedy"], Rules(players=2), stop=10**6)
    print("ready", flush=True)
    try:
        with interrupts.user_interrupts():
            play(spec)
    except KeyboardInterrupt:
        print("interrupted", interrupts.user_pressed() or "after", flush=True)
        sys.exit(130)
    """
)


def test_ctrl_c_stops_a_mixed_chunk_as_on_the_python_engine(engine="native"):
    # (engine="python" gives the same lines: the reference, run by hand when changed)
    import signal
    import time

    child = subprocess.Popen([sys.executable, "-c", CTRL_C, engine], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=as_at_a_terminal)  # fmt: skip
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert (child.returncode, out.strip()) == (130, "interrupted after"), err[-2000:]


def test_a_failing_host_leaves_the_c_code_with_its_exception(plugins):
    spec = spec_of([plugins["greedy"], "greedy"], Rules(players=2), stop=10)
    calls = []

    class Boom(Exception):
        pass

    def mark(row):
        calls.append(row)
        if row == 5:
            raise Boom("row 5")

    class Watch:
        game = staticmethod(mark)

    now = chunks.Playing()
    with pytest.raises(Boom):
        chunks.play_native(spec, watch=Watch(), now=now)
    assert calls == list(range(6)) and now.spec is None
    assert_same(spec)  # nothing left half-done: the same chunk plays again, whole


def test_the_watch_is_told_every_row_at_a_mixed_table(plugins):
    seen = []

    class Watch:
        def game(self, row):
            seen.append(row)

    spec = spec_of([plugins["greedy"], "greedy"], Rules(players=2), stop=10)
    chunks.play_native(spec, start=3, watch=Watch())
    assert seen == list(range(3, 20))
    seen.clear()
    chunks.play_native(spec_of(["greedy", "simple"], Rules(players=2), stop=10), watch=Watch())
    assert seen == [0]  # built-ins only: the first row


def test_seat_limits_stay_on_the_python_engine(plugins):
    spec = spec_of([plugins["greedy"], "greedy"], Rules(players=2), stop=2, move_time=5.0)
    with pytest.raises(native.NotNative, match="seat limits"):
        chunks.play_native(spec)
    auto = chunks.play_chunk(replace(spec, engine="auto"))
    assert auto.engine == "python"


def test_chunks_play_mixed_tables_natively_under_auto_and_native(plugins, monkeypatch):
    spec = spec_of([plugins["greedy"], "threshold"], Rules(players=2), stop=6)
    reference = chunks.play_chunk(spec)

    def refuse(*args, **kwargs):
        raise AssertionError("the Python engine played a game")

    monkeypatch.setattr(chunks, "_play_one", refuse)
    for engine in ("auto", "native"):
        got = chunks.play_chunk(replace(spec, engine=engine))
        assert got.engine == "native"
        assert (got.games, got.seats, got.stats) == (reference.games, reference.seats,
                                                     reference.stats)  # fmt: skip


def test_a_run_with_a_plugin_plays_natively_and_stores_the_python_engines_games(plugins, tmp_path):
    import pandas as pd

    config = {
        "name": "mixed", "players": 2, "deals": 6, "chunk": 3, "seed": 3,
        "entrants": ["greedy", "threshold", plugins["greedy"]],
    }  # fmt: skip
    auto = run_tournament(config, workers=0, out=tmp_path / "auto")
    py = run_tournament({**config, "engine": "python"}, workers=0, out=tmp_path / "py")
    assert auto.engine_used == {"native": 6, "python": 0}

    def frame(run):
        df = pd.read_parquet(run.run_dir / "games")
        return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(frame(py), frame(auto))
    assert auto.counts == py.counts


# -- the C door: refcounts, bad callbacks, never a crash -------------------------------------------
def test_callbacks_and_their_arguments_are_not_leaked(plugins):
    from harness.native.seats import SeatHost

    host = SeatHost(Rules(players=2), [chunks._factory(resolve(plugins["greedy"])), None],
                    ["a", "b"], [(0, 1), (1, 0)], max_turns=1000)  # fmt: skip
    kept = []
    turn = host.turn

    def keep_turn(seat, t, grill, flipped, stacks):
        kept.append(stacks)
        return turn(seat, t, grill, flipped, stacks)

    host.callbacks = (host.start, keep_turn, host.pick, host.stop, host.claim)
    before = [sys.getrefcount(c) for c in host.callbacks]
    native.play_deals(Rules(players=2), [resolve(plugins["greedy"]), "greedy"], 5, 0, 50,
                      orders=[(0, 1), (1, 0)], host=host)  # fmt: skip
    assert [sys.getrefcount(c) for c in host.callbacks] == before
    # Each stacks tuple is held by the list alone (but the last, still in the host's view):
    # as many references as a copy made here.
    del kept[-1]
    copies = [tuple(list(s)) for s in kept]
    assert kept and [sys.getrefcount(s) for s in kept] == [sys.getrefcount(c) for c in copies]


BAD_HOSTS = textwrap.dedent(
    """
    import sys
    from harness import native
    from harness.rules import Rules

    core = native._core
    rules = native.rules_c(Rules(players=2))
    seats = ((core.PYTHON_SEAT,), (0,))
    orders = native.orders_c([(0, 1)], 2)

    def run(host, rows=4):
        games, cols = native.columns.new_columns(2, rows)
        try:
            core.play_deals(rules, seats, 1000, 0, b"1\\x1fdeal\\x1f", 0, rows, 0, orders,
                            native.columns.flat(games, cols), None, host)
        except BaseException as exc:
            return type(exc).__name__
        return "ok"

    def ok(*args):
        return 0

    free = [0x7E]

    def turn(*args):
        free[0] = 0x7E
        return 0

    def pick(seat, shown):  # the highest face shown and not yet set aside: legal
        face = max(f for f in range(1, 7) if shown >> (4 * f) & 15 and free[0] >> f & 1)
        free[0] &= ~(1 << face)
        return face

    def raising(exc):
        def call(*args):
            raise exc
        return call

    cases = {
        "no host": None,
        "short host": (ok, ok),
        "not callable": (ok, ok, 3, ok, ok),
        "pick returns str": (ok, ok, lambda s, c: "5", ok, ok),
        "pick returns huge": (ok, ok, lambda s, c: 10**30, ok, ok),
        "pick returns 9": (ok, ok, lambda s, c: 9, ok, ok),
        "bad forfeit code": (ok, ok, lambda s, c: -10**6, ok, ok),
        "forfeit of seat 5": (ok, ok, lambda s, c: -1 - 5, ok, ok),
        "start raises": (lambda *a: 1 / 0, ok, ok, ok, ok),
        "turn raises MemoryError": (ok, raising(MemoryError()), ok, ok, ok),
        "pick raises KeyboardInterrupt": (ok, ok, raising(KeyboardInterrupt()), ok, ok),
        "wrong arity": (lambda: 0, ok, ok, ok, ok),
        "stop returns None": (ok, turn, pick, lambda s: None, ok),
        "claim returns junk": (ok, turn, pick, lambda s: 1, lambda s, t: 12345),
        "legal all along": (ok, turn, pick, lambda s: 1, lambda s, t: -1 - (1 * 8 + s)),
        "forfeit at once": (lambda *a: -1 - (1 * 8 + 0), ok, ok, ok, ok),
    }
    for name, host in cases.items():
        print(name, run(host, rows=40), flush=True)
    """
)


def test_bad_callbacks_are_exceptions_never_a_crash():
    done = subprocess.run([sys.executable, "-c", BAD_HOSTS], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    got = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert got == {
        "no host": "ValueError",
        "short host": "ValueError",
        "not callable": "ValueError",
        "pick returns str": "TypeError",
        "pick returns huge": "OverflowError",
        "pick returns 9": "RuntimeError",
        "bad forfeit code": "RuntimeError",
        "forfeit of seat 5": "RuntimeError",
        "start raises": "ZeroDivisionError",
        "turn raises MemoryError": "MemoryError",
        "pick raises KeyboardInterrupt": "KeyboardInterrupt",
        "wrong arity": "TypeError",
        "stop returns None": "TypeError",
        "claim returns junk": "RuntimeError",
        "forfeit at once": "ok",
        "legal all along": "ok",
    }


def test_play_games_takes_a_host_too(plugins):
    from harness.game.dice import SeededDice
    from harness.game.engine import Game

    rules, orders = Rules(players=2), [(0, 1), (1, 0)]
    specs = [resolve(plugins["nosy"]), resolve("tactician")]
    host = native.seat_host(rules, specs, ["a", "b"], orders, chunks._factory, max_turns=1000,
                            first=None)  # fmt: skip
    seeds = list(range(40))
    played = native.play_games(rules, specs, seeds, seatings=[s % 2 for s in seeds],
                               orders=orders, host=host)  # fmt: skip
    for row, seed in enumerate(seeds):
        seats = [specs[e].create() for e in orders[seed % 2]]
        game = Game(seats, rules, SeededDice(seed), seed=seed).play()
        assert [played.seats[i]["worms"][row] for i in range(2)] == game.scores
        assert [played.seats[i]["busts"][row] for i in range(2)] == game.busts
        assert played.games["turns"][row] == game.turns
    assert native.seat_host(rules, [specs[1]] * 2, ["a", "b"], orders, chunks._factory,
                            max_turns=1000) is None  # built-ins only: no host  # fmt: skip
    with pytest.raises(native.NotNative):  # a plugin with no host: not native on its own
        native.play_games(rules, specs, seeds)
