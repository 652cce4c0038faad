"""Win luck as a vector: what the control of a 3- or 4-player win share gains when each
roll's luck is booked in every seat's chance, not only the roller's, measured on the
Python engine before it was built (docs/luck.md: "Win luck as a vector"). The product
keeps it now (harness.analysis.units.WinAccountant.vector, stored as ``winvec``, schema 6;
benchmarks/win_luck_variance.py measures it natively); this accountant is the
measurement's own, kept because win_luck_residue.py builds on its ``roller_play`` hook
(luck against the rollers' own play), and at 3 and 4 players it books the stored vector's
values bit for bit (tests/analysis/test_win_luck_vector.py).

    python benchmarks/win_luck_vector.py --players 3 --deals 600 [--seed 1] [--workers 2] [--json]

Today's stored win luck (``winluck``, harness.analysis.units.WinAccountant and its C
mirror) books each roll's luck in the *roller's* chance to win; a seat's win share is
controlled by its own luck minus the mean of the others' (harness.stats.versus_others),
which assumes the roller's gain comes out of every other seat alike. At two players that
is exact (the chances sum to one); at three and four it is not: a roll that lets the
roller steal from seat j costs j, not the others. The vector account books, for every
roll and every seat j, ``V_j(after) - R_j(state)``: seat j's chance under the roller's
best play (the win programme's policy, its ties broken as the account's) after the
roll's best keep, minus its mean over the roll (policy evaluation of the same turn
graph with j's ending chances); mean zero given the game before the roll, whoever
decides, so an unbiased control. A seat's control is then the sum of its component
over every roll of the game (scaled by P/(P - 1) against versus_others, which the fitted
coefficient absorbs).

The pools: the field of win_luck_variance.py (greedy, worm-first, tactician; simple at 4),
each deal on duplicate dice in every cyclic rotation, played on the Python engine with
the accountant below (its own component must equal the stored account's luck: checked
per game, as is that a roll's luck sums to 0 over the seats). Per target, the variance
per deal raw over adjusted (harness.stats.ControlMoments, folds by deal parity, as the
other luck benchmarks), with today's control and with the vector.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from typing import Any

import numpy as np
from luck_pool import DealPool, deal_totals
from win_luck_variance import _row, targets, with_control

from harness.analysis import turn
from harness.analysis.turn import Payoff, best_keep, policy_arrays, solve_arrays
from harness.analysis.units import WinAccountant
from harness.game.board import legal_claims
from harness.game.dice import DuplicateDice
from harness.game.rules import Rules
from harness.play import play_game
from harness.winprob import Position, evaluator
from harness.winprob.position import endings

FIELD = ("greedy", "worm-first", "tactician", "simple")
TOLERANCE = 1e-9  # the own component against the stored luck; a roll's sum against 0


class VectorAccountant(WinAccountant):
    """The win account, and each roll's luck in every seat's chance (``measured[j]``: this
    benchmark's own, beside the product's ``vector``);
    ``own[j]``: seat j's component of its own rolls (the stored luck, recomputed)."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules, vector=True)
        self.measured = np.zeros(rules.players)
        self.own = np.zeros(rules.players)
        self.worst_sum = 0.0  # the largest |sum over seats| of a roll's luck

    def turn_started(self, turn_number: int, seat: int) -> None:
        super().turn_started(turn_number, seat)
        board = self.board
        assert board is not None
        position = Position(board.grill, tuple(tuple(s) for s in board.stacks), seat)
        ends = endings(position, self.rules)
        chances = evaluator(self.rules).chances_many([after for _, after in ends])
        claims: dict[tuple[int, int | None], np.ndarray] = {}
        bust = np.zeros(self.players)
        for (ending, _), chance in zip(ends, chances, strict=True):
            if ending is None:
                bust = np.array(chance)
            else:
                claims[ending] = np.array(chance)
        tops = tuple(s[-1] if s else 0 for s in position.stacks)
        lower_any = self.rules.lower_tile == "any"
        legal = [
            legal_claims(seat, total, True, position.grill, tops, lower_any)
            for total in range(turn.MAX_TOTAL + 1)
        ]
        chosen, play = self.roller_play(seat, position, legal, claims, bust)

        def payoff(j: int) -> Payoff:
            return Payoff(tuple(None if v is None else float(v[j]) for v in chosen), bust[j])

        if play is None:
            value, _, stops = solve_arrays(payoff(seat))
            play = (value, stops)
        self._mover = play[0]
        self._seats = [policy_arrays(play, payoff(j)) for j in range(self.players)]
        self._busts = bust

    def roller_play(
        self,
        seat: int,
        position: Position,
        legal: list,
        claims: dict[tuple[int, int | None], np.ndarray],
        bust: np.ndarray,
    ) -> tuple[list[np.ndarray | None], tuple[np.ndarray, np.ndarray] | None]:
        """The play the roller's luck is measured against: the chance vector of the claim
        it makes at each total (None: no claim, R7) and its (value, stops) per state
        (None: the best play for its own chance, solved from those claims). Here the win
        programme's best play: at each total the claim best for the roller (the first)."""
        chosen = [max((claims[c.tile, c.victim] for c in at), key=lambda v: v[seat], default=None)
                  for at in legal]  # fmt: skip
        return chosen, None

    def _rolled(self, roll_faces: tuple[int, ...], counts, mask: int) -> float:  # noqa: ANN001
        state = self._state
        new = mask & self._free
        child = best_keep(self._mover, state, counts, new) if new else -1
        luck = np.array(
            [
                (self._busts[j] if child < 0 else vals[child]) - roll[state]
                for j, (vals, roll) in enumerate(self._seats)
            ]
        )
        self.measured += luck
        self.own[self._seat] += luck[self._seat]
        self.worst_sum = max(self.worst_sum, abs(float(luck.sum())))
        return super()._rolled(roll_faces, counts, mask)


def play_deal(job: tuple[tuple[str, ...], int, int]) -> dict[str, np.ndarray]:
    """One deal in every cyclic rotation: per game and seat the strategy, rank, win luck
    (the stored account's) and vector luck, and the check figures."""
    field, deal, seed = job
    players = len(field)
    rules = Rules(players=players)
    dice = DuplicateDice(f"vector-{seed}-{deal}")
    out: dict[str, list] = {k: [] for k in ("strat", "rank", "winluck", "vector", "stored", "over")}
    worst_own = worst_sum = 0.0
    for r in range(players):
        seats = [(k + r) % players for k in range(players)]
        acc = VectorAccountant(rules)
        result = play_game([field[i] for i in seats], rules, f"vector-{seed}-{deal}-{r}",
                           observer=acc, dice=dice)  # fmt: skip
        stored = np.array([acc.ledgers[s].luck for s in range(players)])
        worst_own = max(worst_own, float(np.abs(stored - acc.own).max()))
        worst_sum = max(worst_sum, acc.worst_sum)
        out["strat"].append(seats)
        out["rank"].append(result.ranks)
        out["winluck"].append(stored)
        out["vector"].append(acc.measured.copy())
        out["stored"].append(np.array(acc.vector))
        out["over"].append(result.over)
    arrays = {k: np.array(v) for k, v in out.items()}
    arrays["checks"] = np.array([worst_own, worst_sum])
    return arrays


def play(players: int, deals: int, seed: int, workers: int) -> tuple[DealPool, np.ndarray]:
    field = FIELD[:players]
    jobs = [(field, d, seed) for d in range(deals)]
    cpu = time.process_time()
    if workers > 1:
        with Pool(workers) as pool:
            parts = pool.map(play_deal, jobs, chunksize=4)
    else:
        parts = [play_deal(job) for job in jobs]
    data = {k: np.stack([p[k] for p in parts]) for k in ("strat", "rank", "winluck", "vector")}
    data["over"] = np.stack([p["over"] for p in parts])
    checks = np.max([p["checks"] for p in parts], axis=0)
    spent = time.process_time() - cpu  # this process only: with workers, see the wall time
    return DealPool(field, players, seed, data, spent, "python", "win"), checks


def measure(p: DealPool) -> list[dict[str, Any]]:
    """Each target (a member's win share, each pair's head to head) with today's control
    (own win luck minus the others' mean) and the vector (the seat's own component)."""
    today, vector = with_control(p, "winluck"), with_control(p, "vector")
    rows = []
    for kind, a, b, name in targets(p):
        y, m, c = deal_totals(today, kind, a, b)
        _, _, cv = deal_totals(vector, kind, a, b)
        rows.append({"kind": kind, "target": name, "today": _row(y, m, c),
                     "vector": _row(y, m, cv)})  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, choices=(3, 4), default=3)
    ap.add_argument("--deals", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    wall = time.perf_counter()
    pool, checks = play(a.players, a.deals, a.seed, a.workers)
    wall = time.perf_counter() - wall
    rows = measure(pool)
    out = {
        "field": list(pool.field),
        "deals": pool.deals,
        "games": pool.games,
        "wall_seconds": wall,
        "own_component_vs_stored_luck": float(checks[0]),
        "largest_roll_sum": float(checks[1]),
        "evaluator": evaluator(Rules(players=a.players)).describe(),
        "rows": rows,
    }
    if checks.max() > TOLERANCE:
        sys.stderr.write(f"win_luck_vector: the checks failed: {checks.tolist()}\n")
        return 1
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"\n{', '.join(pool.field)} ({a.players} players): {pool.deals:,} deals, "
          f"{pool.games:,} games on the Python engine, {wall:.0f} s wall")  # fmt: skip
    print(f"  evaluator: {out['evaluator']}")
    print(f"  checks: own component vs stored luck {checks[0]:.1e}, a roll's sum {checks[1]:.1e}")
    print("  target                          raw |   today: gain      z |  vector: gain      z")
    for r in rows:
        t, v = r["today"], r["vector"]
        label = ("win " if r["kind"] == "win" else "h2h ") + r["target"]
        print(f"  {label:<26} {t['raw']:.4f} +-{t['raw_se']:.4f} | "
              f"{t['gain']:6.2f} +-{t['gain_se']:.2f} {t['z']:+6.2f} | "
              f"{v['gain']:6.2f} +-{v['gain_se']:.2f} {v['z']:+6.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
