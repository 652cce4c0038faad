"""The luck account kept by the native engine (harness/native/c/account.inc.c): the Accountant's.

Every game here is played twice: natively with ``account=True``, and on the Python engine
with :class:`harness.analysis.account.Accountant` as its observer (the reference). Every
stored field of every seat must be the same, floats as bits: par, luck, win-weighted
luck, the three regrets and the four counts. Over every built-in in pairs (optimal,
random and their parameters among them), every preset at 2, 3, 4 and 7 players, both dice
modes, a Python plugin's seat (called back through the host) that decides all over the
place, and plugins that forfeit at a pick, a stop or a claim (a game cut short keeps what
was booked: the roll of a pick that forfeits is not, as the Python engine's observer
never hears of it).

The C code also checks the identity the account exists for on every turn it closes:
swing = par + luck - regret (to 1e-9; rounding leaves about 1e-15), over tens of thousands
of turns. With the account off the rows are the rows played without it, and carry no
account's columns. The account shares optimal's solved turns: an optimal seat's turn is
found in the cache (solved by optimal, completed by the account), never solved again.
"""

from __future__ import annotations

import contextlib
import struct
import textwrap
import threading
import time
from array import array
from pathlib import Path

import pytest
from test_native import SPECS as BUILTINS

from harness import native
from harness.analysis.account import Accountant, ledger_row
from harness.errors import GameError
from harness.game import seating
from harness.game.dice import DuplicateDice, SeededDice
from harness.game.engine import Game, build_instances
from harness.plugins import resolve
from harness.rules import PRESETS, Rules
from harness.runfolder.schema import (
    ACCOUNT_ARRAYS,
    ACCOUNT_FIELDS,
    WIN_ACCOUNT_ARRAYS,
    WIN_ACCOUNT_FIELDS,
)
from harness.tourney.plan import deal_seed, game_seed

pytestmark = [
    pytest.mark.interpreter,
    pytest.mark.skipif(not native.available(), reason="native engine not built"),
]
ROOT = Path(__file__).resolve().parents[2]

# Every built-in with a native version (test_native's), and optimal in its three ways to
# value a turn.
SPECS = [*BUILTINS, "optimal", "optimal(endgame=6, flip=1.0)", "optimal(endgame=0)"]

# Decides all over the place (every kind of regret, claims included), and forfeits at the
# `after`-th call of `method` in a game (0: never).
WAYWARD = """
from harness.strategy import Strategy


class Wayward(Strategy):
    name = "wayward"

    def __init__(self, after=0, method="pick"):
        self.after, self.method, self.calls = after, method, 0

    def _tick(self, method):
        if method == self.method and self.after:
            self.calls += 1
            if self.calls >= self.after:
                raise RuntimeError("enough")

    def pick(self, view):
        self._tick("pick")
        return view.choices[(view.total * 7 + view.dice_left) % len(view.choices)]

    def stop(self, view):
        self._tick("stop")
        return (view.total + view.dice_left) % 3 == 0

    def claim(self, view, choices):
        self._tick("claim")
        return choices[-1]
"""


@pytest.fixture(scope="module")
def wayward(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("plugins") / "wayward.py"
    path.write_text(textwrap.dedent(WAYWARD))
    return f"{path}:Wayward"


def bits(value: float) -> bytes:
    return struct.pack("<d", value)


def same(a: list, b: list) -> bool:
    """Per seat values of a field: floats by their bits, counts by value."""
    return [bits(x) if type(x) is float else x for x in a] == [
        bits(y) if type(y) is float else y for y in b
    ]


def reference(entrants, rules, dice, seed, first, deals, orders, max_turns=1000) -> list[dict]:
    """The Python engine's games of the chunk rows (deal by deal, then seat order), each
    with the Accountant listening: its ledgers' stored fields (schema.ACCOUNT_FIELDS)."""
    specs = [resolve(e) for e in entrants]
    rows = []
    for deal in range(first, first + deals):
        dseed = deal_seed(seed, deal)
        for k, order in enumerate(orders):
            gseed = game_seed(dseed, k, dice)
            source = DuplicateDice(dseed) if dice == "duplicate" else SeededDice(gseed)
            accountant = Accountant(rules)
            names = [entrants[e] for e in order]
            seats, failed = build_instances([specs[e].create for e in order], names)
            if failed is None:
                game = Game(seats, rules, source, names=names, max_turns=max_turns, seed=gseed,
                            observer=accountant)  # fmt: skip
                with contextlib.suppress(GameError):  # a forfeit: its open turn taken back
                    game.play()
                accountant.finish()
            rows.append(ledger_row(accountant.ledgers))
    return rows


def native_rows(entrants, rules, dice, seed, first, deals, orders, max_turns=1000, **kw):
    specs = [resolve(e) for e in entrants]
    host = native.seat_host(rules, specs, entrants, orders, lambda s: s.create,
                            max_turns=max_turns, first=first)  # fmt: skip
    return native.play_deals(rules, specs, seed, first, first + deals, orders=orders, dice=dice,
                             max_turns=max_turns, host=host, **kw)  # fmt: skip


def check(entrants, rules, dice, seed, deals, first=0, orders=None, max_turns=1000) -> int:
    """The native accounts of a chunk's rows are the Accountant's, field by field."""
    orders = seating.design(rules.players, "cyclic") if orders is None else orders
    res = native_rows(entrants, rules, dice, seed, first, deals, orders, max_turns, account=True)
    expected = reference(entrants, rules, dice, seed, first, deals, orders, max_turns)
    assert res.rows == len(expected)
    for row, want in enumerate(expected):
        for name in ACCOUNT_FIELDS:
            got = [res.seats[s][name][row] for s in range(rules.players)]
            assert same(got, want[name]), (
                f"{entrants} {rules.describe()} {dice} row {row} {name}: {got} != {want[name]}"
            )
    return res.rows


# -- bit for bit -------------------------------------------------------------------------
@pytest.mark.once
def test_every_builtin_pairing_is_the_accountants():
    played = 0
    for i, a in enumerate(SPECS):
        for j, b in enumerate(SPECS[i:], start=i):
            dice = "duplicate" if (i + j) % 2 else "independent"
            played += check([a, b], Rules(players=2), dice, 100 + 17 * i + j, 1)
    assert played == len(SPECS) * (len(SPECS) + 1)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.once
def test_every_preset_at_two_three_four_and_seven_players(preset):
    played = 0
    for players, deals in ((2, 10), (3, 4), (4, 3), (7, 1)):
        for cell in range(2):
            start = 5 * cell + players + 3 * list(PRESETS).index(preset)
            entrants = [SPECS[(start + 4 * s) % len(SPECS)] for s in range(players)]
            dice = ("independent", "duplicate")[cell]
            played += check(entrants, Rules.preset(preset, players), dice, start, deals)
    assert played == 2 * (2 * 10 + 3 * 4 + 4 * 3 + 7)


def test_a_python_seat_is_accounted_in_c(wayward):
    """A plugin at a native table: its seat's decisions are called back, its account is
    kept in C, and it is the Accountant's (every kind of regret: it claims the worst)."""
    played = check([wayward, "simple"], Rules(players=2), "independent", 7, 15)
    played += check([wayward, "optimal", "greedy"], Rules.preset("french", 3), "duplicate", 8, 4)
    played += check(["tactician", wayward], Rules.preset("piko-blog", 2), "duplicate", 9, 10)
    assert played == 2 * 15 + 3 * 4 + 2 * 10
    res = native_rows([wayward, "simple"], Rules(players=2), "independent", 7, 0, 15,
                      seating.design(2, "cyclic"), account=True)  # fmt: skip
    for name in ("regret_pick", "regret_stop", "regret_claim"):  # it does regret each kind
        assert any(res.seats[s][name][row] > 0 for s in range(2) for row in range(res.rows))


@pytest.mark.parametrize(("method", "after"), [("pick", 9), ("stop", 4), ("claim", 2)])
def test_a_game_cut_short_keeps_the_turns_before(wayward, method, after):
    """Forfeits at a pick, a stop and a claim: the forfeit's turn is taken back whole and
    the rows keep the turns before, as the Python engine's Accountant has them; a turn
    cap (no turn open) keeps every turn."""
    quitter = wayward.replace("Wayward", f"Wayward(after={after}, method='{method}')")
    rules = Rules.preset("french", 3)  # lower tiles: claims are asked often
    res = native_rows([quitter, "random", "tactician"], rules, "independent", 3, 0, 4,
                      seating.design(3, "cyclic"), account=True)  # fmt: skip
    assert any(status == 2 for status in res.games["status"])  # forfeits did happen
    assert any(r > 0 for s in res.seats for r in s["rolls"])  # after booking something
    check([quitter, "random", "tactician"], rules, "independent", 3, 4)
    check(["greedy", "optimal"], Rules(players=2, bust_flip="none"), "independent", 4, 3,
          max_turns=25)  # fmt: skip


def test_a_forfeit_before_the_first_roll_takes_back_the_turns_par():
    """A seat whose pick cannot even be looked up forfeits at its turn's start, after the
    turn began (par booked on both engines): the turn is taken back, so the seat's ledger
    holds what it held before it (its first turn: nothing), the same bits on both."""
    nopick = str(ROOT / "tests" / "fixtures" / "hostile" / "engine_raisers.py:NoPick")
    orders = [(0, 1)]
    assert check(["tactician", nopick], Rules(players=2), "independent", 5, 3, orders=orders) == 3
    res = native_rows(["tactician", nopick], Rules(players=2), "independent", 5, 0, 3, orders,
                      account=True)  # fmt: skip
    assert list(res.games["status"]) == [2, 2, 2]
    assert list(res.seats[1]["par"]) == [0.0] * 3 and list(res.seats[1]["rolls"]) == [0] * 3


def test_every_width_of_lanes_keeps_the_same_account():
    """The programmes solved four states at a time (AVX2), two, or one by one: the same
    bits (each width from a cold cache)."""
    rules, orders = Rules(players=2), seating.design(2, "cyclic")
    out = []
    sets = native._core.dp_cache_size(256)
    try:
        for lanes in (4, 2, 0):
            native._core.dp_lanes(lanes)
            native._core.dp_cache_size(256)  # a cold cache of its own
            res = native.play_deals(rules, ["optimal", "tactician"], 5, 0, 8, orders=orders,
                                    account=True)  # fmt: skip
            out.append(res.seats)
    finally:
        native._core.set_portable(False)
        native._core.dp_cache_size(sets)
    assert out[0] == out[1] == out[2]
    assert check(["optimal", "tactician"], rules, "independent", 5, 8) == 16


# -- the identity, checked in C on every turn --------------------------------------------
@pytest.mark.once
def test_every_turn_sums_swing_equals_par_plus_luck_minus_regret():
    """account.inc.c checks every turn it closes (a claim or a bust): the realised swing against
    par + luck - regret of the turn; the largest residual over thousands of games."""
    before = native._core.account_stats()
    games = 0
    for n, preset in enumerate(PRESETS):
        for players in (2, 3, 4):
            entrants = [SPECS[(3 * n + 5 * s + players) % len(SPECS)] for s in range(players)]
            orders = seating.design(players, "cyclic")
            res = native.play_deals(Rules.preset(preset, players), entrants, n, 0, 300 // players,
                                    orders=orders, account=True)  # fmt: skip
            games += res.rows
    after = native._core.account_stats()
    checked = after["checked"] - before["checked"]
    assert games >= 4 * 3 * 290 and checked > 20 * games  # every turn of every game
    assert 0 <= after["residual"] <= 1e-9, after


# -- off: nothing changes ------------------------------------------------------------------
def test_the_account_changes_no_game_and_off_stores_nothing(wayward):
    rules, orders = Rules.preset("official", 3), seating.design(3, "balanced")
    entrants = ["optimal", wayward, "tactician"]
    on = native_rows(entrants, rules, "duplicate", 12, 0, 5, orders, account=True)
    off = native_rows(entrants, rules, "duplicate", 12, 0, 5, orders)
    assert on.games == off.games
    assert [{k: s[k] for k in native.SEAT_COLUMNS} for s in on.seats] == off.seats
    assert all(set(s) == set(native.SEAT_COLUMNS) for s in off.seats)  # no account's keys
    assert all(set(s) == set(native.SEAT_COLUMNS) | set(ACCOUNT_ARRAYS) for s in on.seats)
    for s in on.seats:
        assert {k: s[k].typecode for k in ACCOUNT_ARRAYS} == ACCOUNT_ARRAYS
    # account="win": the win account's luck too, and still the same games
    win = native_rows(entrants, rules, "duplicate", 12, 0, 5, orders, account="win")
    assert win.games == off.games
    kept = {**ACCOUNT_ARRAYS, **WIN_ACCOUNT_ARRAYS}
    assert all(set(s) == set(native.SEAT_COLUMNS) | set(kept) for s in win.seats)
    assert [{k: s[k] for k in ACCOUNT_ARRAYS} for s in win.seats] == [
        {k: s[k] for k in ACCOUNT_ARRAYS} for s in on.seats
    ]  # the worm account the same with the win account beside it
    games = native.play_games(rules, ["greedy", "random", "simple"], range(40), account=True)
    plain = native.play_games(rules, ["greedy", "random", "simple"], range(40))
    assert games.games == plain.games and games.seats[0]["rolls"][0] > 0


def test_the_c_order_of_the_account_columns_is_the_schemas():
    assert native.ACCOUNT_COLUMNS == {**ACCOUNT_ARRAYS, **WIN_ACCOUNT_ARRAYS}
    assert sorted(native.columns.ACCOUNT_ORDER) == sorted(ACCOUNT_FIELDS + WIN_ACCOUNT_FIELDS)
    # core.c's get_account: ACC_SUMS doubles (winluck, winvec the last), then ACC_COUNTS
    # int16s
    codes = [native.ACCOUNT_COLUMNS[k] for k in native.columns.ACCOUNT_ORDER]
    assert codes == ["d"] * 8 + ["h"] * 4


# -- the cache: optimal's programmes completed, not solved again --------------------------
def test_an_optimal_seats_turn_is_solved_once():
    """optimal(endgame=0) values every turn by the worm swing with flip 0: the account's
    payoff. Each turn's programme is the entry optimal's plan looked up (the account looks
    up nothing of its own), solved in full once, by the account, when new to the cache;
    optimal's decisions then read it."""
    native._core.dp_cache_size(native._core.dp_cache_size(1))  # emptied, its size kept
    native.play_deals(Rules(players=2), ["optimal(endgame=0)"] * 2, 3, 0, 30,
                      orders=seating.design(2, "cyclic"), account=True)  # fmt: skip
    stats = native._core.account_stats()
    hits, misses = native._core.dp_cache_stats()
    assert stats["misses"] == 0 and stats["completed"] > 0, stats
    assert stats["turns"] == stats["hits"] + stats["completed"]
    assert stats["win_lookups"] == 0  # account=True: the worm account alone
    assert misses == stats["completed"] == stats["entries"]  # one entry, one solve, a payoff
    assert hits + misses == stats["turns"]  # one look-up a turn: optimal's


def test_a_small_cache_evicts_and_still_keeps_the_same_account():
    rules, orders = Rules.preset("short", 2), seating.design(2, "cyclic")
    full = native.play_deals(rules, ["optimal", "random"], 4, 0, 20, orders=orders, account=True)
    sets = native._core.dp_cache_size(1)  # one set: nearly every turn evicts
    try:
        tiny = native.play_deals(rules, ["optimal", "random"], 4, 0, 20, orders=orders,
                                 account=True)  # fmt: skip
        stats = native._core.account_stats()
        assert stats["entries"] <= stats["ways"] * (1 + 4)  # and the end game's 4 sets
    finally:
        native._core.dp_cache_size(sets)
    assert tiny.seats == full.seats and tiny.games == full.games


def test_threads_keep_their_own_accounts():
    """Batches in threads, the GIL released: each thread its own solved turns, the same
    accounts; a thread's cache is freed when the thread ends."""
    rules, orders = Rules.preset("official", 2), seating.design(2, "cyclic")
    expected = native.play_deals(rules, ["optimal", "simple"], 6, 0, 40, orders=orders,
                                 account=True)  # fmt: skip
    got: list = []

    def play() -> None:
        got.append(native.play_deals(rules, ["optimal", "simple"], 6, 0, 40, orders=orders,
                                     account=True))  # fmt: skip

    caches = native._core.account_stats()["caches"]  # this thread's, and any left alive
    workers = [threading.Thread(target=play) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(got) == 3 and all(g.seats == expected.seats for g in got)
    # each thread had a cache of its own, freed when it ended (no leak a thread); join()
    # returns before the system thread has run its exit (the release), so wait for that
    deadline = time.monotonic() + 30
    while native._core.account_stats()["caches"] > caches and time.monotonic() < deadline:
        time.sleep(0.01)
    assert native._core.account_stats()["caches"] == caches


# -- refusals --------------------------------------------------------------------------------
def test_a_stale_account_is_not_native(monkeypatch):
    monkeypatch.setitem(native.sources.SOURCES, "harness.analysis.account", "0" * 64)
    monkeypatch.setattr(native.sources, "STALE", {})
    orders = seating.design(2, "cyclic")
    with pytest.raises(native.NotNative, match="luck account"):
        native.play_deals("official", ["greedy", "greedy"], 1, 0, 2, orders=orders, account=True)
    with pytest.raises(native.NotNative, match="luck account"):
        native.check_table("official", ["greedy", "greedy"], 1, account=True)
    native.play_deals("official", ["greedy", "greedy"], 1, 0, 2, orders=orders)  # off: plays


def zeros(code: str, rows: int) -> array:
    return array(code, bytes(rows * array(code).itemsize))


def test_bad_account_buffers_are_refused():
    """core.c's play_deals given account columns that are not twelve buffers a seat (ten
    without the win account's two) of the right sizes (ACC_SUMS doubles, then ACC_COUNTS
    int16s): a ValueError, nothing played."""
    rows, n = 3, 2
    games = {k: zeros(c, rows) for k, c in native.GAME_COLUMNS.items()}
    seats = [{k: zeros(c, rows) for k, c in native.SEAT_COLUMNS.items()} for _ in range(n)]
    flat = native.columns.flat(games, seats)
    args = (native.rules_c(Rules(players=2)), ((0,), (0,)), 1000, 0, b"1\x1fdeal\x1f", 0, 1, 0,
            native.orders_c(seating.design(2, "cyclic"), 2), flat, None, None)  # fmt: skip
    seat = [zeros(native.ACCOUNT_COLUMNS[k], rows) for k in native.columns.ACCOUNT_ORDER]
    for bad in (
        (),
        tuple(seat),  # one seat's columns for two seats
        (*seat, *seat, seat[0]),
        tuple(zeros("d", rows) for _ in range(20)),  # counts as doubles
        tuple(zeros("h", rows) for _ in range(20)),  # sums as int16s
        tuple(zeros(native.ACCOUNT_COLUMNS[k], 1) for k in native.columns.ACCOUNT_ORDER) * 2,
        tuple(s for s in seat if s is not seat[7]) * 2,  # schema 5's eleven: winvec's left out
        "par",
    ):
        with pytest.raises(ValueError):
            native._core.play_deals(*args, bad)
        assert games["turns"][0] == 0  # nothing played
    fine = tuple(zeros(native.ACCOUNT_COLUMNS[k], rows) for _ in range(n)
                 for k in native.columns.ACCOUNT_ORDER)  # fmt: skip
    native._core.play_deals(*args, fine)
    assert games["turns"][0] > 0 and fine[8][0] > 0  # seat 0's rolls (after 8 sums)


def test_counts_past_int16_are_capped_not_wrapped():
    """A capped game of 32,767 turns rolls more than an int16 holds: stored as 32767."""
    res = native.play_games(Rules(players=2, bust_flip="none"), ["greedy", "greedy"], [3],
                            max_turns=32767, account=True)  # fmt: skip
    assert res.games["turns"][0] == 32767  # this deal never empties the grill
    rolls = [s["rolls"][0] for s in res.seats]
    assert rolls == [32767, 32767], rolls


# A plugin that plays native games of its own in every pick (a nested batch in the thread
# that plays its table), and empties the solved-turn cache's test hook now and then.
NESTER = """
from harness import native
from harness.strategy import Strategy


class Nester(Strategy):
    name = "nester"

    def pick(self, view):
        seed = view.total * 31 + view.dice_left
        native.play_games("official", ["optimal", "tactician", "optimal(flip=1.0)"], [seed],
                          account=True)
        if seed % 7 == 0:
            native._core.dp_cache_size(1)
        return view.choices[-1]

    def stop(self, view):
        return view.total >= 25
"""


@pytest.mark.once
def test_a_plugin_playing_native_games_inside_its_turn_changes_nothing(tmp_path):
    """Its batches run in the thread of the table's: they must not touch the programmes
    the table's optimal and its account hold (a plugin could spoil its rival's play), nor
    free them (a crash). The rows and accounts are the Python engine's."""
    (tmp_path / "nester.py").write_text(NESTER)
    nester = f"{tmp_path / 'nester.py'}:Nester"
    sets = native._core.dp_cache_size(1)  # one set: any look-up of the plugin's evicts
    try:
        assert check([nester, "optimal"], Rules(players=2), "independent", 2, 3) == 6
        res = native_rows([nester, "optimal"], Rules(players=2), "independent", 2, 0, 3,
                          seating.design(2, "cyclic"))  # fmt: skip
    finally:
        native._core.dp_cache_size(sets)
    assert list(res.games["status"]) == [0] * 6  # no forfeit: its batches are its own


def test_a_stale_win_account_refuses_only_the_batches_that_keep_it(monkeypatch):
    """The win account (winluck) mirrors harness.analysis.units and harness.winprob: a
    change there refuses the batches that keep it (they then play in Python), not the
    worm account's."""
    from harness.native import sources

    monkeypatch.setitem(sources.SOURCES, "harness.analysis.units", "0" * 64)
    monkeypatch.setattr(sources, "STALE", {})
    rules = Rules(players=2)
    assert native.play_games(rules, ["greedy", "simple"], range(3), account=True).rows == 3
    with pytest.raises(native.NotNative, match="luck account"):
        native.play_games(rules, ["greedy", "simple"], range(3), account="win")
