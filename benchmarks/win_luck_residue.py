"""What win luck leaves in a win share: the evaluator's drift and the players' decisions,
measured apart. Why the per-deal variance gains stop where they do (docs/luck.md:
"What is left after win luck").

    python benchmarks/win_luck_residue.py --players 2 --deals 1000 [--seed 1] [--workers 2] [--json]

Every seat's result telescopes over the game's turns relative to the evaluator
(harness.winprob) that the win account stands on. For seat j, with n_j(s) the
evaluator's chance of j at a turn's start s and V_j the chance of j under the roller's
best play through the turn (the programme the win account solves, policy-evaluated for
j: benchmarks/win_luck_vector.py):

    W_j = n_j(s_0) + sum over turns of [V_j(START) - n_j(s)]      (drift)
                   + sum over rolls of [V_j(best keep) - V_j(roll)] (luck: the vector)
                   + what is left                                  (decisions)

``drift`` is the evaluator's own error at each turn's start (its value against the
turn's exact programme on its values: a perfect evaluator has none); ``luck`` is the
vector win account (at 2 players the stored win luck, and its negative for the other
seat); what is left is what the decisions did against the roller's best play, plus
nothing else (exact: the identity is the telescoping). n_j(s_0) is the same in every game
of a seat, so a deal's mean over its seatings carries it as a constant.

Per target (a field member's win share), the variance of the per-deal means of: the raw
result, the result less its luck (what the control leaves, coefficient 1), and each of
the two parts of that; the gains raw over "less luck", and over each part alone: what a
perfect evaluator (no drift) or perfect play (no decisions left) would leave, as bounds
on the gain of any control of this shape. Pools as win_luck_variance.py's (duplicate
dice, every cyclic rotation), played on the Python engine (the vector needs it).

``--policy`` measures the same identity with each roll's luck taken against the
*roller's own* play instead of the best play (AIVAT's construction): V_j is then j's
chance under the roller's own turn policy, so a seat that keeps to its policy leaves no
decisions' part, and the drift term holds what each turn's start offered it (its policy's
value there, against the evaluator's chance). Only seats whose turn policy is a solved
programme can be measured so: ``optimal`` (with any settings: its plan, the values it
picks and stops by and the claims it makes) and ``win-optimal`` (the win account's best
play); the pools are then ``win-optimal v optimal`` and ``optimal v optimal(endgame=0)``
(POLICY_POOLS).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from types import SimpleNamespace
from typing import Any

import numpy as np
from win_luck_vector import TOLERANCE, VectorAccountant

from harness import stats
from harness.analysis.turn import START
from harness.errors import HarnessError
from harness.game.dice import DuplicateDice
from harness.game.rules import Rules
from harness.play import play_game
from harness.play.building import build_strategies
from harness.strategies.optimal import Optimal
from harness.strategies.win_optimal import WinOptimal
from harness.winprob import Position, evaluator

POOLS = {
    2: [("greedy", "worm-first"), ("optimal", "simple")],
    3: [("greedy", "worm-first", "tactician")],
    4: [("greedy", "worm-first", "tactician", "simple")],
}
POLICY_POOLS = [("win-optimal", "optimal"), ("optimal", "optimal(endgame=0)")]


class ResidueAccountant(VectorAccountant):
    """The vector account, and each seat's drift: per turn, its chance under the roller's
    best play at the turn's start minus the evaluator's chance there."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        self.drift = np.zeros(rules.players)
        self.first: np.ndarray | None = None  # n(s_0): the evaluator at the first turn

    def turn_started(self, turn_number: int, seat: int) -> None:
        super().turn_started(turn_number, seat)
        board = self.board
        assert board is not None
        position = Position(board.grill, tuple(tuple(s) for s in board.stacks), seat)
        chances = np.array(evaluator(self.rules).chances(position))
        if self.first is None:
            self.first = chances
        start = np.array([roll[START] for _, roll in self._seats])
        self.drift += start - chances


class PolicyAccountant(ResidueAccountant):
    """:class:`ResidueAccountant` with each roll's luck measured against the roller's own
    turn policy: ``seats[s]`` the strategy seated at s, each an ``optimal`` or a
    ``win-optimal`` (whose policy is the best play itself)."""

    def __init__(self, rules: Rules, seats: list[str]) -> None:
        super().__init__(rules)
        self.shadows = build_strategies(seats)[0]  # planners of the seats' own turns
        for shadow in self.shadows:
            if not isinstance(shadow, Optimal):
                raise ValueError(f"{shadow.name}: its turn policy is not a solved programme")

    def roller_play(self, seat, position, legal, claims, bust):  # noqa: ANN001, ANN201
        shadow = self.shadows[seat]
        if isinstance(shadow, WinOptimal):
            return super().roller_play(seat, position, legal, claims, bust)
        stacks = position.stacks
        view = SimpleNamespace(grill=position.tiles, seat=seat, rules=self.rules, stacks=stacks,
                               tops=tuple(s[-1] if s else None for s in stacks),
                               scores=position.scores)  # fmt: skip
        shadow._plan(view)  # optimal's own plan of this turn: what it picks, stops, claims
        chosen: list[np.ndarray | None] = []
        for at in legal:
            made = shadow.claim(view, at) if at else None  # type: ignore[arg-type]
            chosen.append(None if made is None else claims[made.tile, made.victim])
        stops = np.frombuffer(shadow._stops, dtype=np.bool_)
        return chosen, (np.frombuffer(shadow._value, dtype=float), stops)


def play_deal(job: tuple[tuple[str, ...], int, int, bool]) -> dict[str, np.ndarray]:
    """One deal in every cyclic rotation: per game and seat the strategy, win points,
    n(s_0), drift and luck (the vector; with ``policy`` against the rollers' own play);
    and the checks' largest miss: a roll's luck summed over the seats against 0, and (best
    play only) the roller's component against the stored account's luck."""
    field, deal, seed, policy = job
    players = len(field)
    rules = Rules(players=players)
    dice = DuplicateDice(f"residue-{seed}-{deal}")
    out: dict[str, list] = {k: [] for k in ("strat", "win", "first", "drift", "luck", "over")}
    worst = 0.0
    for r in range(players):
        seats = [(k + r) % players for k in range(players)]
        names = [field[i] for i in seats]
        acc = PolicyAccountant(rules, names) if policy else ResidueAccountant(rules)
        result = play_game(names, rules, f"residue-{seed}-{deal}-{r}", observer=acc, dice=dice)
        worst = max(worst, acc.worst_sum)
        if not policy:
            stored = np.array([acc.ledgers[s].luck for s in range(players)])
            worst = max(worst, float(np.abs(stored - acc.own).max()))
        out["strat"].append(seats)
        out["win"].append(stats.win_points(np.array([result.ranks]))[0])
        out["first"].append(acc.first)
        out["drift"].append(acc.drift.copy())
        out["luck"].append(acc.measured.copy())
        out["over"].append(result.over)
    arrays = {k: np.array(v) for k, v in out.items()}
    arrays["check"] = np.array(worst)
    return arrays


def play(
    field: tuple[str, ...], deals: int, seed: int, workers: int, policy: bool = False
) -> dict[str, np.ndarray]:
    jobs = [(field, d, seed, policy) for d in range(deals)]
    if workers > 1:
        with Pool(workers) as pool:
            parts = pool.map(play_deal, jobs, chunksize=4)
    else:
        parts = [play_deal(job) for job in jobs]
    return {k: np.stack([p[k] for p in parts]) for k in parts[0]}


def _var(x: np.ndarray) -> float:
    return float(np.var(x, ddof=1))


def _ratio(raw: float, left: float) -> float | None:
    """A gain, raw variance over what is left; None where nothing is left (a pool too
    small, or a part that is exactly 0)."""
    return raw / left if left > 0 else None


def measure(field: tuple[str, ...], data: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Per member's win share: the variances of the per-deal means and the gains."""
    rows = []
    players = len(field)
    ok = data["over"].all(axis=1)  # deals whose every game finished (the turn cap aside)
    for a in range(1 if players == 2 else players):
        mine = (data["strat"] == a)[ok]

        def deal_mean(name: str, mine: np.ndarray = mine) -> np.ndarray:
            return np.where(mine, data[name][ok], 0.0).sum((1, 2)) / mine.sum((1, 2))

        win, first, drift, luck = (deal_mean(k) for k in ("win", "first", "drift", "luck"))
        decisions = win - first - drift - luck
        raw, left = _var(win), _var(win - luck)
        rows.append({
            "target": field[a],
            "deals": int(ok.sum()),
            "win_share": float(win.mean()),
            "var_raw": raw,
            "var_less_luck": left,
            "var_drift": _var(drift),
            "var_decisions": _var(decisions),
            "cov_drift_decisions": float(np.cov(drift, decisions)[0, 1]),
            "gain_less_luck": _ratio(raw, left),
            "gain_without_drift": _ratio(raw, _var(decisions)),
            "gain_without_decisions": _ratio(raw, _var(drift)),
            "mean_drift": float(drift.mean()),
            "mean_decisions": float(decisions.mean()),
        })  # fmt: skip
    return rows


def _gain(g: float | None) -> str:
    """A gain for people: none where nothing is left (a part of variance 0 or within
    rounding of it)."""
    return f"{g:.2f}" if g is not None and g < 1e6 else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument(
        "--policy",
        action="store_true",
        help="luck against the rollers' own play (POLICY_POOLS, 2 players)",
    )
    ap.add_argument(
        "--field",
        action="append",
        default=[],
        help="a pool of its own, e.g. win-optimal,optimal (repeatable; its size the players)",
    )
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    fields = [tuple(f.split(",")) for f in a.field]
    if any(len(f) != a.players for f in fields):
        ap.error(f"a --field of {a.players} strategies (--players)")
    if a.policy and a.players != 2:
        ap.error("--policy measures the 2-player pools of solved programmes")
    for field in fields:  # a name unknown, or a policy not solved: one line, before any game
        try:
            if a.policy:
                PolicyAccountant(Rules(players=len(field)), list(field))
            else:
                build_strategies(field)
        except (HarnessError, ValueError) as exc:
            ap.error(f"--field {','.join(field)}: {exc}")
    out = []
    for field in fields or (POLICY_POOLS if a.policy else POOLS[a.players]):
        wall = time.perf_counter()
        data = play(field, a.deals, a.seed, a.workers, a.policy)
        wall = time.perf_counter() - wall
        check = float(data["check"].max())
        if check > TOLERANCE:
            sys.stderr.write(f"win_luck_residue: the vector's checks failed: {check:.1e}\n")
            return 1
        out.append({"field": list(field), "deals": a.deals, "wall_seconds": wall,
                    "check": check, "rows": measure(field, data)})  # fmt: skip
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"evaluator: {evaluator(Rules(players=a.players)).describe()}"
          + ("; luck against the rollers' own play" if a.policy else ""))  # fmt: skip
    for pool in out:
        print(f"\n{' v '.join(pool['field'])}: {pool['deals']:,} deals, "
              f"{pool['wall_seconds']:.0f} s wall (checks {pool['check']:.1e})")  # fmt: skip
        print(
            "  target          share | var: raw  less luck    drift  decisions   2cov |"
            " gain: less luck  no drift  no decisions"
        )
        for r in pool["rows"]:
            print(f"  {r['target']:<12} {r['win_share']:.4f} | {r['var_raw']:.2e} "
                  f"{r['var_less_luck']:.2e} {r['var_drift']:.2e} {r['var_decisions']:.2e} "
                  f"{2 * r['cov_drift_decisions']:+.1e} | {_gain(r['gain_less_luck']):>9} "
                  f"{_gain(r['gain_without_drift']):>9} "
                  f"{_gain(r['gain_without_decisions']):>13}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
