"""Builders of small run folders for the report tests (no tests here).

Run folders follow harness/runfolder/schema.py (schema 3): ``run.json`` plus ``games/*.parquet``.
Two kinds: ``write_run`` stores hand-made rows (exact checks), ``play_run`` plays real
deals through the engine as the tournament runner does (contracts of issue 10): deal d
has the same seed at every table (:func:`deal_seed`: config seed and d only), is played
once in every seat order of the run's design (stored ``seating`` = the order's index),
with duplicate dice shared by every order, or independent dice of one stream per order
(equal across tables); each table's deals are stored in chunks with the same boundaries
at every table, named ``{table}-{first:09d}.parquet``.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pandas as pd

from harness.errors import GameError
from harness.game import seating as seating_design
from harness.game.dice import DuplicateDice, SeededDice, derive_seed
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import Rules
from harness.runfolder.schema import column_type, columns, is_optional, seat_column
from harness.tourney.plan import SEED_MASK, game_seed


def deal_seed(seed: int, deal: int) -> int:
    """Deal ``deal``'s seed in a run of config seed ``seed``: no table in it (contract 1)."""
    return derive_seed(seed, "deal", deal) & SEED_MASK


def frame(rows: list[dict[str, Any]], players: int) -> pd.DataFrame:
    """Rows (dicts with every schema column) as a frame with the schema's types; the
    account's columns, which a row may leave out (no account), nullable."""
    df = pd.DataFrame(rows, columns=columns(players))
    return df.astype({name: _dtype(name) for name in df.columns})


def _dtype(name: str) -> str:
    kind = column_type(name)
    if is_optional(name) and kind.startswith("int"):
        return kind.capitalize()  # pandas' nullable integers: Int16
    return kind


def write_run(
    folder: Path,
    rows: list[dict[str, Any]],
    *,
    players: int = 2,
    dice: str = "duplicate",
    entrants: list[str] | None = None,
    rules: dict[str, Any] | None = None,
    parts: int = 1,
    name: str = "test",
    extra: dict[str, Any] | None = None,
    by_table: bool = False,
) -> Path:
    """Write a run folder with these game rows split into ``parts`` Parquet files.

    ``part-{k:05d}.parquet`` files of equal row counts, or with ``by_table`` as the runner
    chunks: each table's deals cut into ``parts`` chunks at the same deal boundaries for
    every table, one ``{table}-{first:09d}.parquet`` file per table and chunk.
    """
    folder.mkdir(parents=True, exist_ok=True)
    names = entrants
    if names is None:
        seen: dict[str, None] = {}
        for row in rows:
            for i in range(players):
                seen.setdefault(row[seat_column(i, "strategy")])
        names = list(seen)
    config = {
        "name": name,
        "rules": rules or Rules(players=players).to_dict(),
        "players": players,
        "format": "round_robin",
        "dice": dice,
        "games": len(rows),
        "seed": 1,
        "entrants": [{"name": n, "ref": n, "params": {}, "code": "x"} for n in names],
        "version": "test",
        **(extra or {}),
    }
    (folder / "run.json").write_text(json.dumps(config))
    games = folder / "games"
    games.mkdir(exist_ok=True)
    if rows and by_table:
        df = frame(rows, players)
        deals = int(df["deal"].max()) + 1
        size = -(-deals // parts)
        for table, mine in df.groupby("table", sort=True):
            for first in range(0, deals, size):
                chunk = mine[(mine["deal"] >= first) & (mine["deal"] < first + size)]
                if len(chunk):
                    chunk.to_parquet(games / f"{table}-{first:09d}.parquet", index=False)
    elif rows:
        df = frame(rows, players)
        size = -(-len(df) // parts)
        for k in range(parts):
            chunk = df.iloc[k * size : (k + 1) * size]
            if len(chunk):
                chunk.to_parquet(games / f"part-{k:05d}.parquet", index=False)
    return folder


def row(
    table: str,
    deal: int,
    seating: int,
    seats: list[str],
    worms: list[int],
    *,
    ranks: list[int] | None = None,
    status: str = "over",
    turns: int = 40,
    busts: list[int] | None = None,
    steals: list[int] | None = None,
    stolen: list[int] | None = None,
    error: str | None = None,
    error_seat: int = -1,
) -> dict[str, Any]:
    """One game row (``seating``: the index of its seat order); ranks default to "more
    worms is better" (ties share)."""
    n = len(seats)
    if ranks is None:
        ranks = [1 + sum(o > w for o in worms) for w in worms]
    firsts = [i for i, r in enumerate(ranks) if r == 1]
    out: dict[str, Any] = {
        "table": table,
        "deal": deal,
        "seating": seating,
        "seed": 1000 + deal,
        "game_seed": 1000 + deal,
        "players": n,
        "turns": turns,
        "status": status,
        "winner": firsts[0] if len(firsts) == 1 and status != "turn-cap" else -1,
        "error": error,
        "error_seat": error_seat,
    }
    for i in range(n):
        out[seat_column(i, "strategy")] = seats[i]
        out[seat_column(i, "worms")] = worms[i]
        out[seat_column(i, "rank")] = ranks[i]
        out[seat_column(i, "busts")] = (busts or [0] * n)[i]
        out[seat_column(i, "steals")] = (steals or [0] * n)[i]
        out[seat_column(i, "stolen")] = (stolen or [0] * n)[i]
    return out


def play_run(
    folder: Path,
    refs: list[str],
    *,
    players: int = 2,
    deals: int = 10,
    seed: int = 1,
    dice: str = "duplicate",
    rules: Rules | None = None,
    parts: int = 2,
    name: str = "played",
    max_turns: int = 1000,
    seating: str = "balanced",
) -> Path:
    """Play every table of ``players`` entrants, ``deals`` deals in every seat order."""
    rules = rules or Rules(players=players)
    specs = {ref: resolve(ref) for ref in refs}
    orders = seating_design.design(players, seating)
    rows = []
    by_name = sorted(refs, key=lambda r: specs[r].label)  # table order: by display name
    for table_refs in itertools.combinations(by_name, players):
        table = "-".join(specs[r].label for r in table_refs)
        for deal in range(deals):
            dseed = deal_seed(seed, deal)
            shared = DuplicateDice(dseed)
            for k, order in enumerate(orders):
                seats = seating_design.seats_of(list(table_refs), order)
                names = [specs[r].label for r in seats]
                gseed = game_seed(dseed, k, dice)
                source = shared if dice == "duplicate" else SeededDice(gseed)
                game = Game(
                    [specs[r].create() for r in seats],
                    rules,
                    source,
                    names=names,
                    seed=gseed,
                    max_turns=max_turns,
                )
                try:
                    result = game.play()
                except GameError as exc:
                    result = game.result(error=exc)
                rows.append(_result_row(table, deal, k, dseed, gseed, names, result))
    return write_run(
        folder,
        rows,
        players=players,
        dice=dice,
        entrants=[specs[r].label for r in refs],
        rules=rules.to_dict(),
        parts=parts,
        name=name,
        extra={"seating": seating, "design": [list(o) for o in orders], "games": deals},
        by_table=True,
    )


def _result_row(table, deal, k, dseed, gseed, names, result) -> dict[str, Any]:
    status = result.status if result.status != "unfinished" else "turn-cap"
    return {
        **row(
            table,
            deal,
            k,
            names,
            result.scores,
            ranks=result.ranks,
            status=status,
            turns=result.turns,
            busts=result.busts,
            steals=result.steals,
            stolen=result.stolen,
            error=str(result.error) if result.error else None,
            error_seat=result.forfeit if result.forfeit is not None else -1,
        ),
        "seed": dseed,
        "game_seed": gseed,
        "winner": result.winner if result.winner is not None else -1,
    }
