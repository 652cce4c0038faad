"""How much of `optimal`'s turn programmes could be reused or skipped (the way to a 10x speed-up).

    python benchmarks/optimal_reuse.py [--games 100]

Plays `optimal` against `simple` (2 players, duplicate dice, the Python engine), records
every turn's payoff (stop values and bust), and for the fresh ones (never seen before)
measures, with the rows of the turn programme (harness.analysis.turn) as the unit:

1. window: reuse from a programme of the same game every state whose window of
   reachable stop values (totals s..s+5n) and bust are unchanged; rows still needed.
2. memo: the same across every game so far (a global memo of state, window, bust).
3. keeps: states whose keep values (the values of their children, slot by slot) are
   identical share their value; rows that repeat one within a programme, and across all.
4. bounds: the float programme is monotone (max, adding, multiplying by a positive
   probability all round monotonically), so a solved programme whose payoff is at
   least (at most) the new one bounds every value exactly (the forced claim with no
   dice left compared as ``stop if present else bust``). With the tightest bounds of all
   earlier programmes: how many fresh payoffs have both, whether the bounds hold (they
   must), how many first-roll decisions the bounds decide (10 rolls each) and the rows
   the first decision then needs, against the lazy solve's.

Analysis only (numpy solves; no timing). Its figures are in docs/speed.md.
"""

from __future__ import annotations

import argparse
import os
import random

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import harness.strategies.optimal as optimal  # noqa: E402
from harness.analysis.turn import (  # noqa: E402
    CHILD,
    EPS,
    LAYERS,
    N_STATES,
    START,
    STATES,
    Payoff,
    solve_arrays,
)
from harness.game.dice import DuplicateDice, derive_seed  # noqa: E402
from harness.game.engine import Game  # noqa: E402
from harness.plugins import resolve  # noqa: E402
from harness.rules import Rules  # noqa: E402


def payoffs(games: int) -> list[list[tuple[tuple, float]]]:
    """Every turn's (stop, bust) of `optimal`, game by game."""
    seen: list[tuple[tuple, float]] = []
    solved = optimal._solved

    def spy(stop: tuple, bust: float):  # noqa: ANN202
        seen.append((stop, bust))
        return solved(stop, bust)

    optimal._solved = spy
    try:
        a, b = resolve("optimal").create(), resolve("simple").create()
        per_game = []
        for deal in range(games):
            seen.clear()
            Game([a, b], Rules(players=2), DuplicateDice(derive_seed("reuse", deal))).play()
            per_game.append(list(seen))
        return per_game
    finally:
        optimal._solved = solved


def state_table() -> list[tuple[int, int, int, int, list[int], int]]:
    """Per rolling state: (index, dice left, total, free faces, children in slot order, rows)."""
    table = []
    for layer in LAYERS[1:]:  # n = 0 rolls nothing: no rows
        for i, span in zip(range(layer.lo, layer.hi), layer.spans, strict=True):
            mask, n, s = STATES[i]
            free = [f for f in range(6, 0, -1) if not mask >> f & 1]
            kids = [CHILD[i << 6 | f << 3 | c - 1] for f in free for c in range(1, n + 1)]
            table.append((i, n, s, len(free), kids, len(span)))
    return table


def fresh_of(per_game: list) -> list[tuple[int, tuple, float]]:
    """(game, stop, bust) of every payoff not seen before, in order."""
    seen, fresh = set(), []
    for g, turns in enumerate(per_game):
        for stop, bust in turns:
            if (stop, bust) not in seen:
                seen.add((stop, bust))
                fresh.append((g, stop, bust))
    return fresh


def window_reuse(per_game: list, table: list, total: int) -> tuple[float, float]:
    """1 and 2: the share of rows still needed, same game and across all games."""
    fresh = fresh_of(per_game)
    needed_game = needed_all = 0
    earlier: dict[int, list[tuple[tuple, float]]] = {}
    windows: set = set()
    for g, stop, bust in fresh:
        best = total
        for other, other_bust in earlier.get(g, []):
            if other_bust == bust:
                diff = [t for t in range(41) if stop[t] != other[t]]
                best = min(best, sum(r for _, n, s, _, _, r in table
                                     if any(s <= t <= s + 5 * n for t in diff)))  # fmt: skip
        needed_game += best
        earlier.setdefault(g, []).append((stop, bust))
        for i, n, s, _, _, r in table:
            key = (i, stop[s : s + 5 * n + 1], bust)
            if key not in windows:
                windows.add(key)
                needed_all += r
    return needed_game / len(fresh) / total, needed_all / len(fresh) / total


def keep_sharing(per_game: list, table: list, total: int) -> tuple[float, float]:
    """3: the share of rows whose keep values repeat, within a programme and across all."""
    fresh = fresh_of(per_game)
    within = across = 0
    everywhere: set = set()
    for _, stop, bust in fresh:
        value, _, _ = solve_arrays(Payoff(stop, bust))
        local: set = set()
        for _, n, _, nfree, kids, r in table:
            key = (n, nfree, value[kids].tobytes())
            within += r if key in local else 0
            local.add(key)
            across += r if key + (bust,) in everywhere else 0
            everywhere.add(key + (bust,))
    return within / len(fresh) / total, across / len(fresh) / total


def as_vector(stop: tuple, bust: float) -> np.ndarray:
    """What the monotonicity compares: the stops (-inf: none), the bust, and what a state
    with no dice left is worth at each total (a forced claim, or the bust)."""
    return np.array([-1e300 if v is None else v for v in stop] + [bust]
                    + [bust if v is None else v for v in stop])  # fmt: skip


def bounds(per_game: list, table: list) -> dict:
    """4: exact bounds from earlier programmes and the first-roll decisions they decide."""
    rows = [0] * N_STATES
    below: list[frozenset] = [frozenset()] * N_STATES
    for i, _, _, _, _, r in table:
        rows[i] = r
    for i in range(N_STATES):  # successors have lower indices
        found = {i}
        for k in range(64):
            if CHILD[i << 6 | k] >= 0:
                found |= below[CHILD[i << 6 | k]]
        below[i] = frozenset(found)
    rng = random.Random(1)
    vectors: list[np.ndarray] = []
    values: list[np.ndarray] = []
    out = {"fresh": 0, "both": 0, "held": True, "rolls": 0, "decided": 0, "lazy": 0, "need": 0}
    for _, stop, bust in fresh_of(per_game):
        out["fresh"] += 1
        vector = as_vector(stop, bust)
        exact, _, _ = solve_arrays(Payoff(stop, bust))
        if vectors:
            known = np.array(vectors)
            upper, lower = np.all(known >= vector, axis=1), np.all(known <= vector, axis=1)
            if upper.any() and lower.any():
                out["both"] += 1
                high = np.min([v for v, u in zip(values, upper, strict=True) if u], axis=0)
                low = np.max([v for v, lo in zip(values, lower, strict=True) if lo], axis=0)
                out["held"] &= bool(np.all(low <= exact) and np.all(exact <= high))
                for _ in range(10):
                    counts = [0] * 7
                    for _ in range(8):
                        counts[rng.randint(1, 6)] += 1
                    kids = [CHILD[START << 6 | f << 3 | counts[f] - 1]
                            for f in range(6, 0, -1) if counts[f]]  # fmt: skip
                    best, decided = kids[0], True
                    for k in kids[1:]:  # the pick rule: higher face first, v > best + EPS
                        if low[k] > high[best] + EPS:
                            best = k
                        elif not high[k] <= low[best] + EPS:
                            decided = False
                            break
                    lazy = set().union(*(below[k] for k in kids))
                    out["rolls"] += 1
                    out["decided"] += decided
                    out["lazy"] += sum(rows[i] for i in lazy)
                    out["need"] += sum(rows[i] for i in (below[best] if decided else lazy))
        vectors.append(vector)
        values.append(exact)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games of optimal v simple")
    args = parser.parse_args()
    table = state_table()
    total = sum(r for *_, r in table)
    per_game = payoffs(args.games)
    fresh = len(fresh_of(per_game))
    print(f"{args.games} games, {fresh:,} fresh payoffs, {total:,} rows a programme")
    game, everywhere = window_reuse(per_game, table, total)
    print(f"1. window reuse within a game: {game:.1%} of the rows still needed")
    print(f"2. window memo across games:   {everywhere:.1%} still needed")
    within, across = keep_sharing(per_game, table, total)
    print(f"3. identical keep values: {within:.1%} of rows within a programme, {across:.1%} across")
    b = bounds(per_game, table)
    print(
        f"4. bounds: {b['both']:,} of {b['fresh']:,} fresh payoffs have an upper and a lower "
        f"programme; bounds hold: {b['held']}; {b['decided']:,} of {b['rolls']:,} first rolls "
        f"decided; rows needed at the first decision {b['need'] / max(1, b['lazy']):.2f} of "
        "the lazy solve's"
    )


if __name__ == "__main__":
    main()
