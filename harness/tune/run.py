"""A tune, iteration by iteration, kept in its run folder: resumable, then confirmed.

The folder is ``OUT/tune/<bot>/<key>`` (the key: :attr:`TuneSetup.key`, of everything
asked): ``setup.json``; ``iterations.jsonl``, one line an iteration, written and synced
before the next starts (its point, signs, perturbation, the two points played, their
deals, the paired sums, whether they were identical, the coefficient, the difference and
the scale it was measured in, the step); ``confirm.json``; ``summary.json``; ``path.png``.

**Determinism.** Iteration k plays deals ``k * batch`` .. ``(k + 1) * batch - 1``; its
signs come from the seed and k (:func:`~harness.tune.spsa.signs`), its perturbation and
its step's scale from the iterations before (and its own sums); its games are summed in
spec order (:mod:`harness.tune.games`). So a setup gives the same path on any worker
count or backend, and a resumed tune replays the stored lines (each checked: it must
follow from the lines before; the first that does not, and everything after it, is
played again) and goes on exactly as an uninterrupted one would have.

**The luck account.** An iteration's value is the paired difference of the two points'
win shares over its deals, (sum Y+ - Y- - b (C+ - C-)) / sum M, with b fitted (the
report's fit, :meth:`harness.stats.ControlMoments.fit`) on the iterations *before*:
predictable, so the difference stays an unbiased estimate. The step divides it by the
root mean square of the differences so far, its own included (:func:`spsa.scale`): that
bends a step's size (a large difference counts a little less than in proportion), never
its sign.

**The confirmation** plays the tuned values and the starting values against the field on
``confirm`` deals that the tuning never saw (from deal ``iterations x batch`` on), paired,
and reports the difference of their win shares with its 95% interval (luck-adjusted, the
report's cross-fitted estimate, fixed-sample: the deals are fixed in advance).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from harness.errors import HarnessError
from harness.game import seating as seating_design
from harness.runfolder.layout import atomic_write
from harness.stats import CONTROL_FIELDS, ControlMoments, z_quantile
from harness.stats.sequential import PRIOR_COEF
from harness.tourney.backends import Backend, local_backend
from harness.tune import spsa
from harness.tune.games import DealSums, play_points, point_config, point_specs
from harness.tune.setup import TuneError, TuneSetup

ITERATIONS = "iterations.jsonl"
SETUP = "setup.json"
CONFIRM = "confirm.json"
SUMMARY = "summary.json"
CHART = "path.png"


def games_per_iteration(setup: TuneSetup) -> int:
    """Both points' games of one iteration (turn-capped ones included)."""
    tables = comb(len(setup.field), setup.players - 1)
    orders = len(seating_design.design(setup.players, seating_design.DEFAULT_SEATING))
    return 2 * tables * setup.batch * orders


def iterations_of(setup: TuneSetup) -> int:
    """Iterations the budget pays for; TuneError when it pays for none."""
    each = games_per_iteration(setup)
    if setup.budget < each:
        raise TuneError(
            f"--budget: {setup.budget:,} games; one iteration is {each:,} (2 points x "
            f"{each // 2 // setup.batch:,} games a deal x {setup.batch} deals)"
        )
    return setup.budget // each


@dataclass
class State:
    """The tune so far: the iterates u_0 .. u_k, the lines, the luck moments."""

    setup: TuneSetup
    path: list[np.ndarray] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    moments: ControlMoments = field(default_factory=ControlMoments.empty)
    games: int = 0

    @property
    def k(self) -> int:
        return len(self.lines)

    @property
    def coef(self) -> float:
        fit = self.moments.fit()
        return PRIOR_COEF if math.isnan(fit) else fit

    def plan(self) -> dict[str, Any]:
        """Iteration k's points (before its games): u, the signs, plus and minus; the
        perturbation grown after iterations whose points played identical games."""
        setup, k = self.setup, self.k
        u = self.path[-1]
        delta = spsa.signs(setup.seed, k, len(u))
        wide = spsa.widening([line["identical"] for line in self.lines])
        c = setup.gains.perturbation(k, wide)
        plus, minus = spsa.points(u, delta, c, setup.steps)
        return {"k": k, "u": u, "delta": delta, "plus": plus, "minus": minus, "c": c}

    def apply(self, step: dict[str, Any], y: float, c: float, m: float, rows: list) -> dict:
        """Iteration k's sums applied: its line (what iterations.jsonl keeps)."""
        b = self.coef
        diff = (y - b * c) / m if m > 0 else 0.0
        a = self.setup.gains.step(step["k"])
        scale = spsa.scale([ln["diff"] for ln in self.lines if not ln["identical"]], diff)
        u_next = spsa.update(step["u"], step["plus"], step["minus"], diff / scale, a)
        line = {
            "k": step["k"],
            "u": step["u"].tolist(),
            "delta": step["delta"].tolist(),
            "plus": step["plus"].tolist(),
            "minus": step["minus"].tolist(),
            "values_plus": self.setup.values(step["plus"]),
            "values_minus": self.setup.values(step["minus"]),
            "sums": [y, c, m],
            "moments": rows,
            "coef": b,
            "c": step["c"],
            "identical": identical(rows),
            "diff": diff,
            "scale": scale,
            "next": u_next.tolist(),
        }
        self.moments = self.moments + ControlMoments(np.array(rows))
        self.lines.append(line)
        self.path.append(u_next)
        return line

    def estimate(self) -> tuple[np.ndarray, np.ndarray]:
        """The averaged iterates (the answer so far) and their spread, in the cube."""
        return spsa.averaged(self.path)


_SYY, _SCC = CONTROL_FIELDS.index("syy"), CONTROL_FIELDS.index("scc")


def identical(rows: Any) -> bool:
    """Whether an iteration's two points played identical games: every deal's paired
    difference of win points and of control exactly 0 (from its luck moments)."""
    r = np.asarray(rows, dtype=float).reshape(-1, len(CONTROL_FIELDS))
    return bool(r[:, _SYY].sum() == 0 and r[:, _SCC].sum() == 0)


def _follows(state: State, line: Any) -> bool:
    """Whether a stored line is the next iteration of ``state`` (then applied)."""
    if not isinstance(line, dict):
        return False
    try:
        step = state.plan()
        same = (
            all(line[key] == step[key].tolist() for key in ("u", "delta", "plus", "minus"))
            and line["k"] == step["k"]
        )
        y, c, m = (float(v) for v in line["sums"])
        rows = np.array(line["moments"], dtype=float).tolist()
        ControlMoments(np.array(rows))  # the right shape, or raise
        games, forfeits = int(line["games"]), int(line.get("forfeits", 0))
    except (KeyError, TypeError, ValueError, OverflowError):
        return False
    if not same or games < 0:
        return False
    applied = state.apply(step, y, c, m, rows)
    applied["games"], applied["forfeits"] = games, forfeits
    if applied["next"] != line.get("next"):
        state.lines.pop()
        state.path.pop()
        return False
    state.games += games
    return True


def replay(state: State, path: Path) -> tuple[int, str | None]:
    """The stored iterations that follow one from another, applied; how many, and a
    note when the file held more (a line cut by a kill, or edited): those are dropped
    (the file rewritten without them) and played again."""
    if not path.exists():
        return 0, None
    raw = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    kept = 0
    for text in raw:
        try:
            line = json.loads(text)
        except ValueError:
            break
        moments_before = state.moments
        if not _follows(state, line):
            state.moments = moments_before
            break
        kept += 1
    if kept < len(raw):
        good = "".join(json.dumps(line, sort_keys=True) + "\n" for line in state.lines)
        atomic_write(path, good.encode())
        return (
            kept,
            f"{len(raw) - kept} stored iteration(s) did not follow from the ones before: "
            "played again",
        )
    return kept, None


def _append(path: Path, line: dict[str, Any]) -> None:
    """One line, on disk before the next iteration starts."""
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())


def _specs(setup: TuneSetup, values: dict[str, Any], first: int, stop: int) -> list:
    config = point_config(
        setup.load,
        values,
        setup.field,
        players=setup.players,
        seed=setup.seed,
        stop=stop,
        engine=setup.engine,
    )
    return point_specs(config, first, stop)


def iterate(state: State, backend: Backend) -> dict[str, Any]:
    """Play iteration k and apply it; its line."""
    setup, step = state.setup, state.plan()
    first, stop = step["k"] * setup.batch, (step["k"] + 1) * setup.batch
    plus = _specs(setup, setup.values(step["plus"]), first, stop)
    minus = _specs(setup, setup.values(step["minus"]), first, stop)
    sums_plus, sums_minus = play_points(backend, [plus, minus], setup.batch)
    y, c, m, rows = paired(sums_plus, sums_minus, first)
    line = state.apply(step, y, c, m, rows)
    line["games"] = int(sums_plus.m.sum() + sums_minus.m.sum())
    line["forfeits"] = sums_plus.forfeits + sums_minus.forfeits  # games a seat forfeited
    state.games += line["games"]
    return line


def paired(a: DealSums, b: DealSums, first: int) -> tuple[float, float, float, list]:
    """The paired difference a - b over the deals both finished alike: its sums Y, C, M
    and its luck moments (rows, for the coefficient's fit)."""
    same = (a.m == b.m) & (a.m > 0)
    y, c, m = (a.y - b.y)[same], (a.c - b.c)[same], a.m[same]
    deal = np.flatnonzero(same) + first
    rows = ControlMoments.of(y, c, m, deal).rows.tolist()
    return float(y.sum()), float(c.sum()), float(m.sum()), rows


def confirm(state: State, backend: Backend, cap: int) -> dict[str, Any]:
    """The tuned values against the starting ones on deals the tuning never saw."""
    setup = state.setup
    u, _ = state.estimate()
    tuned, start = setup.values(spsa.snap(u, setup.steps)), setup.values(setup.start)
    out: dict[str, Any] = {"tuned": tuned, "start": start, "deals": setup.confirm}
    if setup.confirm == 0:
        return {**out, "verdict": "skipped"}
    if tuned == start:
        return {**out, "verdict": "same values", "note": "the tuning kept the starting values"}
    first = cap * setup.batch
    stop = first + setup.confirm
    a, b = play_points(
        backend,
        [_specs(setup, tuned, first, stop), _specs(setup, start, first, stop)],
        setup.confirm,
    )
    same = (a.m == b.m) & (a.m > 0)
    deal = np.flatnonzero(same) + first
    moments = ControlMoments.of((a.y - b.y)[same], (a.c - b.c)[same], a.m[same], deal)
    adjusted, raw = moments.adjusted(), moments.raw
    z = z_quantile(0.975)
    est, se = adjusted.estimate, adjusted.se
    low, high = est - z * se, est + z * se
    verdict = "gain confirmed" if low > 0 else "worse" if high < 0 else "no gain shown"
    return {
        **out,
        "games": int(a.m.sum() + b.m.sum()),
        "win_share_tuned": float(a.y.sum() / a.m.sum()) if a.m.sum() else math.nan,
        "win_share_start": float(b.y.sum() / b.m.sum()) if b.m.sum() else math.nan,
        "difference": est,
        "low": low,
        "high": high,
        "raw_difference": raw.estimate,
        "verdict": verdict,
    }


def folder_of(out: Path, setup: TuneSetup) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", setup.bot.split("(", 1)[0].split(":")[-1]).strip("-")
    return out / "tune" / (slug or "bot") / setup.key


@dataclass
class TuneResult:
    """What :func:`run_tune` did: the setup, its folder, the path, the answer."""

    setup: TuneSetup
    folder: Path
    state: State
    iterations: int
    confirmation: dict[str, Any]
    resumed: int = 0
    seconds: float = 0.0

    @property
    def values(self) -> dict[str, Any]:
        u, _ = self.state.estimate()
        return self.setup.values(spsa.snap(u, self.setup.steps))

    def summary(self) -> dict[str, Any]:
        setup, state = self.setup, self.state
        u, spread = state.estimate()
        params = []
        for i, p in enumerate(setup.params):
            width = p.high - p.low
            params.append(
                {
                    "name": p.name,
                    "start": p.value(p.unit(p.start)),
                    "tuned": self.values[p.name],
                    "average": p.low + u[i] * width,
                    "spread": spread[i] * width,
                    "path": [p.low + x[i] * width for x in state.path],
                }
            )
        return {
            "setup": setup.to_dict(),
            "folder": str(self.folder),
            "iterations": state.k,
            "of": self.iterations,
            "games": state.games,
            "forfeits": sum(line.get("forfeits", 0) for line in state.lines),
            "resumed": self.resumed,
            "params": params,
            "diffs": [line["diff"] for line in state.lines],
            "tuned": self.values,
            "confirmation": self.confirmation,
            "seconds": self.seconds,
        }


def run_tune(
    setup: TuneSetup,
    *,
    out: str | os.PathLike[str] = "results",
    workers: int = 0,
    backend: Backend | None = None,
    fresh: bool = False,
    on_iteration: Callable[[State], None] | None = None,
    chart: bool = True,
) -> TuneResult:
    """Tune (or go on tuning) in the run folder of ``setup``; the result. Ctrl-C leaves
    every finished iteration stored: the same call goes on from there."""
    started = time.monotonic()
    cap = iterations_of(setup)
    folder = folder_of(Path(out), setup)
    if fresh and folder.exists():
        shutil.rmtree(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(
            folder / SETUP, (json.dumps(setup.to_dict(), indent=1, default=str) + "\n").encode()
        )
    except OSError as exc:
        raise HarnessError(
            f"{folder}: cannot write the tune's folder ({exc.strerror or exc})"
        ) from None
    state = State(setup, path=[setup.start])
    resumed, note = replay(state, folder / ITERATIONS)
    if note:
        logging.getLogger("harness.tune").warning("%s", note)
    if backend is None:
        backend = local_backend(workers, logging.NullHandler())
    # One cluster for every iteration where the backend can hold one (Dask).
    with getattr(backend, "held", contextlib.nullcontext)():
        while state.k < cap:
            line = iterate(state, backend)
            _append(folder / ITERATIONS, line)
            if on_iteration is not None:
                on_iteration(state)
        confirmation = _stored_confirmation(folder, state, setup)
        if confirmation is None:
            confirmation = confirm(state, backend, cap)
            text = json.dumps(confirmation, default=str) + "\n"
            atomic_write(folder / CONFIRM, text.encode())
    result = TuneResult(setup, folder, state, cap, confirmation, resumed)
    result.seconds = time.monotonic() - started
    summary = result.summary()
    atomic_write(folder / SUMMARY, (json.dumps(summary, default=str) + "\n").encode())
    if chart:
        from harness.tune.chart import path_chart

        path_chart(summary, folder / CHART)
    return result


def _stored_confirmation(folder: Path, state: State, setup: TuneSetup) -> dict[str, Any] | None:
    """A confirmation stored by an earlier call, if it is of these tuned values."""
    try:
        stored = json.loads((folder / CONFIRM).read_text())
    except (OSError, ValueError):
        return None
    u, _ = state.estimate()
    tuned = setup.values(spsa.snap(u, setup.steps))
    if isinstance(stored, dict) and stored.get("tuned") == tuned:
        return stored
    return None


__all__ = ["State", "TuneResult", "games_per_iteration", "iterations_of", "run_tune"]
