"""Pools of played deals with the luck and skill account: what the luck benchmarks draw on.

    python benchmarks/luck_pool.py greedy,worm-first [tactician,greedy ...] [--players 2]
                                  [--deals 20000] [--seed 1] [--workers 1] [--luck on]
                                  [--cache results/luck_pools] [--json]

A pool is a field of strategies (as many as the players) played on ``--deals`` deals by
the runner's own chunk function (harness.tourney.chunks.play_chunk) with ``luck: on``:
one table, each deal one set of duplicate dice (the tourney's deal seed from ``--seed``
and the deal's index) played in every cyclic rotation of the seats (both seat orders at
two players). Per game and seat it keeps the strategy, rank, worms, luck and win-weighted
luck: the per-seat columns a run with the account stores. With ``--luck win`` the games
keep the win account too, and the pool also holds each seat's win luck (``winluck``, the
stored control of luck-adjusted win shares since schema 5, docs/luck.md); such a pool is
cached under its own name. The other luck benchmarks
(luck_variance.py, luck_coverage.py, luck_sprt.py) read pools through :func:`pool` and
turn them into deal totals with :func:`deal_totals` (or :func:`cases`); with ``--cache``
a pool is played once and read back (an .npz per field, players, deals and seed).

The chunks go to the native engine where it keeps the account, else to the Python
engine (the engine is printed), in this process or ``--workers`` processes. Printed:
per pool, games, CPU per game, and per strategy its win share and mean luck per game.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from dataclasses import dataclass, replace
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from harness import stats
from harness.runfolder.schema import OVER
from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk

FIELDS = ("strat", "rank", "worms", "luck", "wluck")
WIN_FIELDS = (*FIELDS, "winluck", "winvec")  # a pool played with ``luck: win``
# the win share's control: win-weighted worm luck, win luck, win luck as a vector
CONTROLS = ("wluck", "winluck", "winvec")
CHUNK_DEALS = 100  # deals a worker plays per job


@dataclass
class DealPool:
    """Played deals: arrays (deals, orders, seats) per field of :data:`FIELDS`, with
    ``over`` (deals, orders) False for a game that did not finish (turn cap)."""

    field: tuple[str, ...]
    players: int
    seed: int
    data: dict[str, np.ndarray]
    cpu: float  # CPU seconds the games took (all processes)
    engine: str = ""  # the engine(s) that played the games
    luck: str = "on"  # the account the games kept: "on" (worms) or "win" (and winluck)

    @property
    def deals(self) -> int:
        return self.data["rank"].shape[0]

    @property
    def games(self) -> int:
        return self.deals * self.data["rank"].shape[1]

    def take(self, rows: np.ndarray) -> DealPool:
        """The pool of deals ``rows`` (repeats allowed: a resampled world)."""
        return DealPool(
            self.field,
            self.players,
            self.seed,
            {k: v[rows] for k, v in self.data.items()},
            0.0,
            self.engine,
            self.luck,
        )

    def controlled_by(self, control: str) -> DealPool:
        """The pool with ``control`` as its win shares' control: "wluck" (as played),
        "winluck" or "winvec" (the win luck, or its vector, in place of ``wluck``; a pool
        played with ``luck: win``). Margins and worms keep the worm luck."""
        if control == "wluck":
            return self
        if control not in CONTROLS or control not in self.data:
            raise SystemExit(f"no {control} in a pool played with luck: {self.luck}")
        return replace(self, data={**self.data, "wluck": self.data[control]})


def config_of(field: tuple[str, ...], players: int, deals: int, seed: int, luck: str = "on") -> Any:
    """The tourney config of a pool: one table of the field, every cyclic seat rotation,
    duplicate dice, the account on (``luck``: "on", or "win" to keep the win account too;
    a round robin of a field as large as the table)."""
    return load_config(
        {
            "name": "luck-pool",
            "players": players,
            "entrants": list(field),
            "deals": deals,
            "seed": seed,
            "seating": "cyclic",
            "luck": luck,
            "chunk": min(deals, CHUNK_DEALS),
        }
    )


def _play(
    job: tuple[Any, dict[str, int], tuple[str, ...]],
) -> tuple[dict[str, np.ndarray], float, str]:
    """A chunk's rows as pool arrays (deals, orders, seats), with the chunk's worker CPU
    and the engine that played it. Seat i of order k holds table entrant
    ``spec.orders[k][i]``; strategies are numbered by their place in the field."""
    spec, index, fields = job
    result = play_chunk(spec)
    n, k = spec.rules.players, len(spec.orders)
    deals = spec.stop - spec.first

    def column(name: str) -> np.ndarray:
        seats = [np.asarray(result.seats[i][name], dtype=float) for i in range(n)]
        return np.stack(seats, axis=-1).reshape(deals, k, n)

    out = {name: column(name) for name in fields[1:]}
    seating = np.asarray(result.games["seating"]).reshape(deals, k)
    of_entrant = np.array([index[e.name] for e in spec.entrants])
    out["strat"] = of_entrant[np.asarray(spec.orders)[seating]]
    out["over"] = np.asarray(result.games["status"]).reshape(deals, k) == OVER
    return out, result.cpu, result.engine


def play_pool(
    field: tuple[str, ...],
    players: int,
    deals: int,
    seed: int = 1,
    workers: int = 1,
    luck: str = "on",
) -> DealPool:
    """Play a pool (see the module docstring) in ``workers`` processes (1: this one)."""
    if len(field) != players:
        raise SystemExit(f"a field of {len(field)} strategies for {players} players")
    fields = WIN_FIELDS if luck == "win" else FIELDS
    config = config_of(field, players, deals, seed, luck)
    index = {e.name: i for i, e in enumerate(config.entrants)}  # the field's order
    jobs = [(spec, index, fields) for spec in plan.chunks(config)]
    if workers > 1:
        with Pool(workers) as pool:
            parts = pool.map(_play, jobs)
    else:
        parts = [_play(job) for job in jobs]
    data = {k: np.concatenate([p[0][k] for p in parts]) for k in (*fields, "over")}
    data["strat"] = data["strat"].astype(np.int64)
    data["rank"] = data["rank"].astype(np.int64)
    engines = ",".join(sorted({p[2] for p in parts}))
    cpu = sum(p[1] for p in parts)
    return DealPool(tuple(field), players, seed, data, cpu, engines, luck)


def pool(
    field: tuple[str, ...],
    players: int,
    deals: int,
    seed: int = 1,
    workers: int = 1,
    cache: Path | None = None,
    say: Any = None,
    luck: str = "on",
) -> DealPool:
    """The pool, read from ``cache`` when it was played before (and written there).
    ``luck``: "on" (the worm account) or "win" (the win account too: ``winluck``,
    ``winvec``)."""
    fields = WIN_FIELDS if luck == "win" else FIELDS
    path = None
    if cache is not None:
        key = [list(field), players, deals, seed, "official", "cyclic"]
        if luck != "on":  # the worm account's pools keep the names they were cached under
            key.append(f"luck={luck}")
        digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]
        slug = re.sub(r"[^A-Za-z0-9_-]+", "", "_".join(field))
        mode = "" if luck == "on" else f"_{luck}"
        path = cache / f"{slug}_{players}p_{deals}_{seed}{mode}_{digest}.npz"
        saved = np.load(path) if path.exists() else None
        if saved is not None and all(k in saved for k in fields):  # else played again
            data = {k: saved[k] for k in (*fields, "over")}
            cpu, engine = float(saved["cpu"]), str(saved["engine"])
            return DealPool(tuple(field), players, seed, data, cpu, engine, luck)
    started = time.perf_counter()
    played = play_pool(field, players, deals, seed, workers, luck)
    if say is not None:
        say(
            f"played {' v '.join(field)} ({players} players, luck: {luck}, "
            f"{played.engine} engine): "
            f"{played.games:,} games in "
            f"{time.perf_counter() - started:.0f} s, {played.cpu / played.games * 1000:.1f} "
            "ms CPU a game"
        )
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, cpu=played.cpu, engine=played.engine, **played.data)
    return played


# -- what is measured: the pools, their targets, deal totals ------------------------------
POOLS: dict[str, list[tuple[str, ...]]] = {
    "2p": [
        ("greedy", "worm-first"),
        ("greedy", "tactician"),
        ("optimal", "simple"),
        ("tactician", "worm-first"),
        ("simple", "greedy"),
        ("threshold(target=25)", "worm-first"),
    ],
    "3p": [("greedy", "worm-first", "tactician")],
    "4p": [("greedy", "worm-first", "tactician", "simple")],
}

# Two runs that differ in one entrant (what harness compare pairs): field member 0 of
# each, on the same deals, seats and opponents.
PAIRED = [(("threshold(target=26)", "worm-first"), ("threshold(target=27)", "worm-first"))]


def targets(players: int) -> list[tuple[str, int, int | None]]:
    """(kind, a, b) of every target of a field: at 2 players field member 0's win share
    and margin (its head to head is its win share); at more, every member's win share
    and margin and every pair's head to head."""
    members = 1 if players == 2 else players
    out: list[tuple[str, int, int | None]] = []
    for kind in ("win", "margin"):
        out += [(kind, a, None) for a in range(members)]
    if players > 2:
        out += [("h2h", a, b) for a in range(players) for b in range(a + 1, players)]
    return out


def deal_totals(p: DealPool, kind: str, a: int, b: int | None = None) -> tuple[np.ndarray, ...]:
    """Per deal: (Y, M, C) totals of field member ``a``'s outcome, games and control.

    ``kind``: "win" (win share, ties split; control W - the others' mean W), "margin"
    (worms - the others' mean; control L - the others' mean L), "worms" (its own worms,
    what ``harness compare`` pairs as "mean worms"; control L - the others' mean L, as
    compare's) or "h2h" (a's point against ``b``: ahead 1, tied 1/2; control W_a - W_b).
    """
    d = p.data
    over = d["over"][..., None]
    mine = d["strat"] == a
    if kind == "win":
        y = stats.win_points(d["rank"])
        c = stats.versus_others(d["wluck"])
    elif kind == "margin":
        y = stats.versus_others(d["worms"])
        c = stats.versus_others(d["luck"])
    elif kind == "worms":
        y = d["worms"]
        c = stats.versus_others(d["luck"])
    elif kind == "h2h":
        theirs = d["strat"] == b
        # seat values of a and of b in each game (each sits once per game)
        rank_a = (d["rank"] * mine).sum(-1)
        rank_b = (d["rank"] * theirs).sum(-1)
        w_a = (d["wluck"] * mine).sum(-1)
        w_b = (d["wluck"] * theirs).sum(-1)
        ok = d["over"]
        y = np.where(ok, stats.ahead(rank_a, rank_b), 0.0).sum(-1)
        c = np.where(ok, w_a - w_b, 0.0).sum(-1)
        return y, ok.sum(-1).astype(float), c
    else:
        raise ValueError(kind)
    keep = mine & over
    return (
        np.where(keep, y, 0.0).sum((1, 2)),
        keep.sum((1, 2)).astype(float),
        np.where(keep, c, 0.0).sum((1, 2)),
    )


def paired_totals(before: DealPool, after: DealPool, kind: str) -> tuple[np.ndarray, ...]:
    """Per deal: (Y, M, C) of field member 0's paired difference, after - before, over its
    twin games (same deal, seat order and seat): y_after - y_before, control c_after -
    c_before. A deal with an unfinished game in either run is left out (M = 0)."""
    yb, mb, cb = deal_totals(before, kind, 0)
    ya, ma, ca = deal_totals(after, kind, 0)
    same = ma == mb
    return np.where(same, ya - yb, 0.0), np.where(same, ma, 0.0), np.where(same, ca - cb, 0.0)


def centred(y: np.ndarray, m: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The control with the pool's own mean taken out (c - M sum C / sum M): in a world
    that resamples the pool's deals, the control then has mean exactly 0, as in the real one."""
    return c - m * c.sum() / m.sum()


@dataclass
class Case:
    """What a benchmark measures on one pool (or pair of pools): its targets' deal totals,
    each (kind, name, Y, M, C)."""

    title: str
    players: int
    deals: int
    games: int
    cpu_ms_per_game: float | None
    targets: list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray]]


GROUPS = (*POOLS, "paired")


def cases(
    group: str,
    deals: int,
    seed: int,
    workers: int,
    cache: Path | None,
    say: Any,
    control: str = "wluck",
    fields: list[tuple[str, ...]] | None = None,
):
    """The cases of a group of :data:`GROUPS`, pools played (or read) as they are needed.
    ``control``: the win shares' control, "wluck" (pools played with ``luck: on``),
    "winluck" or "winvec" (pools played with ``luck: win``); margins keep the worm luck
    either way.
    ``fields``: only the group's pools of these fields (None: all of them)."""
    luck = "on" if control == "wluck" else "win"
    if group == "paired":
        for before, after in PAIRED:
            a = pool(before, 2, deals, seed, workers, cache, say, luck).controlled_by(control)
            b = pool(after, 2, deals, seed, workers, cache, say, luck).controlled_by(control)
            name = f"{after[0]} - {before[0]}"
            # win and worms: the two differences harness compare adjusts (win share, mean
            # worms); margin: the worm margin (worms - the others' mean), not shown by it.
            found = [
                (f"{kind}_diff", name, *paired_totals(a, b, kind))
                for kind in ("win", "margin", "worms")
            ]
            title = f"{name}, v {' v '.join(before[1:])} (paired)"
            cpu = (a.cpu + b.cpu) / (a.games + b.games) * 1000 if a.cpu and b.cpu else None
            yield Case(title, 2, a.deals, a.games + b.games, cpu, found)
        return
    players = int(group[0])
    for field in POOLS[group]:
        if fields is not None and field not in fields:
            continue
        p = pool(field, players, deals, seed, workers, cache, say, luck).controlled_by(control)
        found = []
        for kind, a, b in targets(players):
            name = field[a] if b is None else f"{field[a]} ahead of {field[b]}"
            found.append((kind, name, *deal_totals(p, kind, a, b)))
        cpu = p.cpu / p.games * 1000 if p.cpu else None
        yield Case(
            f"{' v '.join(field)} ({players} players)", players, p.deals, p.games, cpu, found
        )


def summary(p: DealPool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "field": list(p.field),
        "players": p.players,
        "deals": p.deals,
        "games": p.games,
        "cpu_ms_per_game": p.cpu / p.games * 1000 if p.cpu else None,
        "strategies": [],
    }
    for s, name in enumerate(p.field):
        y, m, _ = deal_totals(p, "win", s)
        mine = p.data["strat"] == s
        luck = p.data["luck"][mine]
        out["strategies"].append(
            {
                "strategy": name,
                "win_share": float(y.sum() / m.sum()),
                "luck_per_game": float(luck.mean()),
                "luck_se": float(luck.std(ddof=1) / np.sqrt(luck.size)),
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("fields", nargs="+", help="comma-separated fields, one per pool")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=None, help="folder of played pools")
    ap.add_argument("--luck", choices=("on", "win"), default="on", help="win: keep winluck too")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    results = []
    for spec in args.fields:
        field = tuple(spec.split(","))
        played = pool(
            field, args.players, args.deals, args.seed, args.workers, args.cache, say, args.luck
        )
        results.append(summary(played))
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            print(f"\n{' v '.join(r['field'])}: {r['deals']:,} deals, {r['games']:,} games")
            for s in r["strategies"]:
                print(
                    f"  {s['strategy']:<24} win share {s['win_share']:.3f}  luck/game "
                    f"{s['luck_per_game']:+.3f} +- {s['luck_se']:.3f}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
