"""The luck account's cost: CPU per game with and without it, on both engines.

    python benchmarks/luck_cost.py [--games 4000] [--warm 20000] [--repeats 5]
        [--python-games 200] [--python-warm 400] [--players 2] [--tables greedy,optimal,plugin]
    python benchmarks/luck_cost.py --capacity 100000 [--sets 1024,4096,16384] [--players 2,3,4]

Tables, official rules, independent dice, the cyclic seating (at 3 and 4 players the first
entrant meets copies of the second):

* ``greedy``: the greedy mirror, native built-ins;
* ``optimal``: optimal v simple;
* ``plugin``: a Python plugin (greedy's code in a file, its class renamed: it cannot go
  native, so the C engine calls it back as a Python seat) v native simple.

Each (engine, table, account off/on) plays in a process of its own, warmed once with
``--warm`` games (``--python-warm`` on the Python engine): the solved-turn caches then are
as in a long run, where they live for a worker's life across its chunks. Then, round by
round, every process plays the same new games (``--games`` natively, ``--python-games``
on the Python engine), in alternating order; CPU time per game (time.process_time, the
process's own), medians, the ratio on/off side by side. The accounts of the games both
engines played are checked bit for bit (native against the Python Accountant). For the
native account, the hit rate of its solved-turn cache in the measured games: turns whose
programme was solved already, half solved (an optimal seat's, completed) or new.

``--capacity N``: the native account's cache over a long run: N games of each table
(account on) in a fresh process for each cache size (``--sets``, 4 ways each), the hit
rate in each fifth of the run and the memory its entries took.

What a figure means for a verdict: with the account the luck-adjusted statistics need
fewer games; CPU to a verdict with / without = (CPU per game with / without) x (games
with / without). The issue's targets (<= 0.5x for optimal v simple, < 1x for the plugin)
need the ratio here below 0.5x and 1x times the saving in games.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads count as CPU time

SEED = 20
TABLES = {"greedy": ("greedy", "greedy"), "optimal": ("optimal", "simple"),
          "plugin": (None, "simple")}  # fmt: skip
LABELS = {"greedy": "greedy mirror", "optimal": "optimal v simple",
          "plugin": "Python plugin v simple"}  # fmt: skip


def plugin_file(where: Path) -> str:
    """Greedy's code as a file plugin, its class renamed: not a built-in."""
    source = (ROOT / "harness" / "strategies" / "greedy.py").read_text()
    path = where / "copied_greedy.py"
    path.write_text(source.replace("class Greedy(", "class CopiedGreedy("))
    return f"{path}:CopiedGreedy"


def entrants(table: str, players: int, plugin: str) -> list[str]:
    first, other = TABLES[table]
    return [first or plugin] + [other] * (players - 1)


class Player:
    """Plays deals of one table on one engine, with or without the account (in a worker)."""

    def __init__(self, engine: str, table: str, players: int, account: bool, plugin: str):
        from harness.game import seating
        from harness.plugins import resolve
        from harness.rules import Rules

        self.engine, self.account = engine, account
        self.rules = Rules(players=players)
        self.names = entrants(table, players, plugin)
        self.specs = [resolve(n) for n in self.names]
        self.orders = seating.design(players, "cyclic")

    def play(self, first: int, games: int, check: int = 0) -> tuple[float, str, dict]:
        """Games from deal ``first`` on: (CPU seconds, a digest of the accounts of the
        first ``check`` of them, what the native cache did meanwhile)."""
        from harness import native

        deals = max(1, games // len(self.orders))
        before = native._core.account_stats()
        start = time.process_time()
        rows = (self._native if self.engine == "native" else self._python)(first, deals)
        cpu = time.process_time() - start
        after = native._core.account_stats()
        stats = {k: after[k] - before[k] for k in ("turns", "hits", "completed", "checked")}
        stats["residual"] = after["residual"]
        return cpu, hashlib.sha256(repr(rows[:check]).encode()).hexdigest()[:16], stats

    def _native(self, first: int, deals: int) -> list:
        from harness import native

        host = native.seat_host(
            self.rules, self.specs, self.names, self.orders, lambda s: s.create,
            max_turns=1000, first=first,
        )  # fmt: skip
        res = native.play_deals(
            self.rules, self.specs, SEED, first, first + deals, orders=self.orders,
            host=host, account=self.account,
        )  # fmt: skip
        if host is not None and host.errors:
            raise RuntimeError(f"a forfeit: {host.errors}")
        if not self.account:
            return []
        from harness.runfolder.schema import ACCOUNT_FIELDS

        n = len(res.seats)
        return [
            [[res.seats[s][f][row] for s in range(n)] for f in ACCOUNT_FIELDS]
            for row in range(res.rows)
        ]

    def _python(self, first: int, deals: int) -> list:
        from harness.analysis.account import Accountant, ledger_row
        from harness.game.dice import SeededDice
        from harness.game.engine import Game
        from harness.tourney.plan import deal_seed, game_seed

        rows = []
        for deal in range(first, first + deals):
            dseed = deal_seed(SEED, deal)
            for k, order in enumerate(self.orders):
                gseed = game_seed(dseed, k, "independent")
                seats = [self.specs[e].create() for e in order]
                accountant = Accountant(self.rules) if self.account else None
                Game(seats, self.rules, SeededDice(gseed), seed=gseed, observer=accountant).play()
                if accountant is not None:
                    rows.append(list(ledger_row(accountant.ledgers).values()))
        return rows


def worker(conn: Any, args: tuple, sets: int) -> None:
    if sets:
        from harness import native

        native._core.dp_cache_size(sets)
    player = Player(*args)
    while True:
        command = conn.recv()
        if command is None:
            return
        conn.send(player.play(*command))


def capacity_worker(conn: Any, table: str, players: int, plugin: str, sets: int, games: int):
    from harness import native

    native._core.dp_cache_size(sets)
    player = Player("native", table, players, True, plugin)
    fifths, before = [], native._core.account_stats()
    step = games // 5
    for k in range(5):
        player.play(2 * 10**6 + k * step, step)
        now = native._core.account_stats()
        turns = now["turns"] - before["turns"]
        fifths.append((now["hits"] - before["hits"]) / turns)
        before = now
    conn.send((fifths, now))


def spawn(target: Any, *args: Any) -> tuple[Any, Any]:
    ctx = multiprocessing.get_context("spawn")
    mine, theirs = ctx.Pipe()
    proc = ctx.Process(target=target, args=(theirs, *args), daemon=True)
    proc.start()
    return proc, mine


def cost(args: argparse.Namespace, plugin: str) -> None:
    for players in args.players:
        for table in args.tables:
            procs = {}
            for engine in ("native", "python"):
                for account in (False, True):
                    table_args = (engine, table, players, account, plugin)
                    proc, conn = spawn(worker, table_args, args.cost_sets)
                    warm = args.warm if engine == "native" else args.python_warm
                    conn.send((10**6, warm))  # warm-up deals, apart from the measured ones
                    procs[engine, account] = (proc, conn)
            for _, conn in procs.values():
                conn.recv()
            cpu: dict[tuple[str, bool], list[float]] = {key: [] for key in procs}
            hits: list[tuple[float, float]] = []
            checked, residual = 0, 0.0
            check = max(1, args.python_games // players) * players
            for r in range(args.repeats):
                digests = {}
                for key in list(procs) if r % 2 == 0 else list(reversed(procs)):
                    games = args.games if key[0] == "native" else args.python_games
                    conn = procs[key][1]
                    conn.send((r * args.games, games, check))  # the same deals on both engines
                    seconds, digests[key], stats = conn.recv()
                    cpu[key].append(seconds / (max(1, games // players) * players))
                    if key == ("native", True):
                        turns = max(1, stats["turns"])
                        hits.append((stats["hits"] / turns, stats["completed"] / turns))
                        checked += stats["checked"]
                        residual = max(residual, stats["residual"])
                if digests["native", True] != digests["python", True]:
                    print(f"luck_cost: {table}, {players} players: the engines' accounts differ",
                          file=sys.stderr)  # fmt: skip
                    sys.exit(1)
            for proc, conn in procs.values():
                conn.send(None)
                proc.join()
            report(players, table, cpu, hits)
            print(f"  per-turn identity checked on {checked:,} turns: largest |swing - (par + "
                  f"luck - regret)| {residual:.1e}")  # fmt: skip


def report(players: int, table: str, cpu: dict, hits: list) -> None:
    med = {key: statistics.median(v) * 1e6 for key, v in cpu.items()}
    print(f"{LABELS[table]}, {players} players (CPU per game, medians):")
    for engine in ("native", "python"):
        off, on = med[engine, False], med[engine, True]
        print(f"  {engine:7s} off {off:>10,.1f} us   on {on:>10,.1f} us   on/off {on / off:6.2f}x")
    rates = statistics.median(h for h, _ in hits)
    done = statistics.median(c for _, c in hits)
    print(f"  native account: {rates:.1%} of turns found solved, {done:.1%} half solved "
          f"(optimal's, completed), {1 - rates - done:.1%} new")  # fmt: skip


def capacity(args: argparse.Namespace, plugin: str) -> None:
    print(f"the native account's cache over {args.capacity:,} games (hit rate per fifth)")
    for players in args.players:
        for table in args.tables:
            for sets in args.sets:
                proc, conn = spawn(capacity_worker, table, players, plugin, sets, args.capacity)
                fifths, stats = conn.recv()
                proc.join()
                mb = stats["entries"] * stats["entry_bytes"] / 1e6
                print(f"  {LABELS[table]:24s} {players}p  {sets * stats['ways']:>6,} entries: "
                      + " ".join(f"{h:6.1%}" for h in fifths)
                      + f"   {stats['entries']:>6,} used, {mb:,.0f} MB")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="native games a round")
    parser.add_argument("--warm", type=int, default=20000, help="native warm-up games")
    parser.add_argument("--python-games", type=int, default=200, help="Python games a round")
    parser.add_argument("--python-warm", type=int, default=400, help="Python warm-up games")
    parser.add_argument("--repeats", type=int, default=5, help="rounds; medians are shown")
    parser.add_argument("--players", default="2", help="player counts, e.g. 2,3,4")
    parser.add_argument("--tables", default="greedy,optimal,plugin", help="of " + ",".join(TABLES))
    parser.add_argument("--capacity", type=int, default=0, help="games of the cache's long run")
    parser.add_argument(
        "--sets",
        default="",
        help="cache sets (4 ways each): sizes to compare "
        "with --capacity (default 1024,4096,16384), else the one to use",
    )
    args = parser.parse_args()
    args.cost_sets = int(args.sets) if args.sets and not args.capacity else 0
    args.sets = args.sets or "1024,4096,16384"
    args.players = [int(p) for p in args.players.split(",")]
    args.tables = args.tables.split(",")
    args.sets = [int(s) for s in args.sets.split(",")]
    from harness import native

    if not native.available():
        print("luck_cost: the native engine is not built", file=sys.stderr)
        sys.exit(1)
    print("$ python benchmarks/luck_cost.py " + " ".join(sys.argv[1:]))
    print(f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        plugin = plugin_file(Path(tmp))
        if args.capacity:
            capacity(args, plugin)
        else:
            print(f"{args.warm:,} native / {args.python_warm:,} Python warm-up games a process; "
                  f"{args.repeats} rounds of {args.games:,} native / {args.python_games:,} "
                  "Python games")  # fmt: skip
            cost(args, plugin)


if __name__ == "__main__":
    main()
