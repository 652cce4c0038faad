"""Calibrating a trained model: a small monotone map of its chances, kept in the file.

``python -m harness.training.calibrate --players 3 --seed 1 --positions 100000 --out
winprob-3p.bin``: plays games of its own (seeds ``fit-<seed>-<n>``: neither the
training's ``train-`` nor the calibration benchmark's held-out ``calib-``), every seat
drawn from a stated pool (:data:`POOLS`; ``mixed``, the default, is the calibration
benchmark's mixed field; a ``win-optimal`` seat plays with the model being calibrated,
so the games depend on the input file only, never on the installed models), keeps the
position at every turn's start with the game's result shares (R11), and fits a map of
the model's logits ``z`` or chances (seats from the mover, k = 0 the mover) by the
softmax cross-entropy to those results:

- ``temperature``: ``z'_k = z_k / T``, one number;
- ``seat-temperature``: ``z'_k = z_k / T_k``, one temperature per seat from the mover;
- ``seat-affine``: ``z'_k = z_k / T_k + c_k``, with ``c_0 = 0`` (a common shift does
  not change a softmax).

Each of those is affine per output row, so it folds into the last integer layer: row
k's weights and bias scaled by ``1/T_k`` (the bias plus ``c_k``), with ``e`` more
fraction bits in the weights and ``e`` more in the layer's shift (``e`` as large as
keeps the weights within int16 when they were, the native engine's fast rows): the map
is in the weights. The folded model's int32 and int64 bounds are re-checked
(:func:`harness.training.quantize.check_bounds`) and its logits compared with the exact
map of the input's.

- ``knots``: each seat's chance ``q`` through an increasing line ``g`` with ``--knots
  K`` pieces (knots at ``q = k / K``), the seats' ``g`` divided by their sum. A
  temperature scales every logit alike and so cannot mend a shape (too timid for the
  leader in the middle, right at the ends); this can. It is not affine in the logits,
  so it is kept beside the network, as the file's chance map (an ``HWP2`` file:
  harness/winprob/model.py); fitted to the input's chances as they come out of its
  network, a map the input had is replaced. Fit after ``temperature``: the temperature
  does the most, the knots the shape.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy import sparse
from scipy.optimize import minimize

from harness.errors import HarnessError
from harness.training.args import (
    OneLineParser,
    add_out,
    add_rules,
    model_file,
    out_path,
    parse,
)
from harness.training.net import cross_entropy, softmax
from harness.training.progress import Bar
from harness.training.quantize import check_bounds
from harness.training.run import FEATURE_BOUND
from harness.training.selfplay import play_positions
from harness.winprob import (
    Model,
    ModelError,
    Position,
    features,
    shipped_model,
)
from harness.winprob.model import MAX_KNOTS, Layer

#: The games' seed tag: ``fit-<seed>-<game>``, apart from the training's and the benchmark's.
TAG = "fit"

#: The pools the seats are drawn from (each seat independently, seeded): the fields of
#: benchmarks/winprob_calibration.py, which reads them from here. ``mixed`` is the
#: issue's held-out field; ``strong`` and ``weak`` the other two.
POOLS: dict[str, tuple[str, ...]] = {
    "mixed": (
        "optimal",
        "optimal(endgame=0)",
        "tactician",
        "simple",
        "greedy",
        "win-optimal",
        "worm-first",
    ),  # fmt: skip
    "strong": ("optimal", "optimal(endgame=0)", "win-optimal"),
    "weak": ("simple", "greedy", "tactician", "worm-first"),
}

#: The logit maps, from one number to ``2P - 1``: folded into the last layer.
LOGIT_MAPS = ("temperature", "seat-temperature", "seat-affine")
#: Every map: the logit maps and the chance map, kept beside the network.
MAPS = (*LOGIT_MAPS, "knots")
#: The chance map's pieces unless ``--knots`` says otherwise: the calibration target's deciles.
KNOTS = 10

#: Extra fraction bits the folded last layer may take (its weights x 2**e, shift + e).
MAX_EXTRA_BITS = 8
#: The smallest scale (1/T) the fit may give: a temperature of at most 100.
MIN_SCALE = 0.01
INT16 = 32767


class CalibrationError(HarnessError):
    """The map cannot be fitted or folded (too few positions, a bound exceeded)."""


@dataclass(frozen=True)
class Settings:
    """What a calibration is: the input model, the games, the map."""

    players: int
    model: Model
    seed: int = 1
    positions: int = 100_000
    pool: str = "mixed"
    kind: str = "temperature"
    knots: int = KNOTS  # the chance map's pieces (kind "knots")
    rules: str = "official"  # the preset the games are played under


@dataclass(frozen=True)
class Map:
    """``z'_k = z_k * scale[k] + shift[k]`` (scale = 1/T_k), seats from the mover; or,
    with ``knots``, the chance map (the logits unchanged)."""

    scale: tuple[float, ...]
    shift: tuple[float, ...]
    knots: tuple[float, ...] = ()

    def apply(self, z: np.ndarray) -> np.ndarray:
        return z * np.asarray(self.scale) + np.asarray(self.shift)

    def describe(self) -> str:
        if self.knots:
            k = len(self.knots) - 1
            at = ", ".join(f"{v:.4f}" for v in self.knots)
            return f"chance map, {k} pieces: g(k/{k}) = {at} (divided by their sum)"
        temps = ", ".join(f"{1.0 / a:.4f}" for a in self.scale)
        text = f"temperature per seat from the mover: {temps}"
        if any(self.shift):
            text += "; bias: " + ", ".join(f"{c:+.4f}" for c in self.shift)
        return text


@dataclass
class Outcome:
    """The calibrated model and what the calibration measured."""

    model: Model
    fitted: Map
    positions: int
    games: int
    loss_before: float
    loss_after: float
    brier_before: float
    brier_after: float
    worst_before: float  # the largest |realised - predicted| over deciles, in-sample
    worst_after: float
    fold_error: float  # largest |folded logit - mapped logit| over the positions
    extra_bits: int
    cpu_seconds: float = 0.0
    polished: bool = True  # a chance map's knots polished to the optimum (fit_knots)


def play(
    model: Model,
    count: int,
    seed: int,
    pool: Sequence[str],
    tick: Callable[[int], None] | None = None,
    rules: str = "official",
) -> tuple[list[Position], np.ndarray, int]:
    """At least ``count`` turn-start positions of whole games (seeds ``fit-<seed>-<n>``,
    under the preset ``rules``), each seat drawn from ``pool``, a ``win-optimal`` seat playing
    with ``model``: the training's self-play (:func:`harness.training.selfplay.play_positions`)
    with this step's seeds; each position's result shares rotated from its mover; and the
    number of games that gave them."""
    positions, labels, games = play_positions(model.players, count, seed, tag=TAG, pool=pool,
                                              rules=rules, model=model, tick=tick)  # fmt: skip
    return positions, np.array(labels, dtype=float), len(set(games))


def float_logits(model: Model, rows: np.ndarray) -> np.ndarray:
    """The model's integer logits as the softmax takes them (times ``2**-out_shift``)."""
    return model.logits(rows).astype(float) * 2.0**-model.out_shift


#: The chance map's knots are rounded to this grid once polished: every library's fit then
#: gives the same file (the polish leaves them about 1e-15 apart; a knot of the grid
#: moves a chance by at most 2e-10).
KNOT_GRID = 2.0**-32
#: The first knot when the fit wants it at 0 (a file's knots stay above 0).
KNOT_FLOOR = 2.0**-40
#: An increment between two knots below this (the knots scaled to end at 1) has collapsed
#: onto its bound, 0: the polish holds it there.
FLAT = 1e-7
#: The polish moves a knot at most this far from where the fit stopped (a farther move is
#: no polish: the knots given are kept, rounded).
SETTLED = 1e-4
#: Newton steps of the polish: two reach the rounding noise from L-BFGS-B's endpoint.
POLISH_STEPS = 5


class FittedKnots(NamedTuple):
    """A chance map's knots and whether the polish took them to the optimum (False: the
    fit stopped too far from it, and its knots were only rounded: their last digits may
    then move with the libraries)."""

    knots: tuple[float, ...]
    polished: bool


def fit_knots(q: np.ndarray, y: np.ndarray, pieces: int = KNOTS) -> FittedKnots:
    """The chance map's knots (``pieces`` + 1 of them, the last 1.0) that minimise the
    cross-entropy of the mapped chances of ``q`` (rows of chances summing to one) to the
    result shares ``y`` (rows summing to one): L-BFGS with the exact gradient, the knots
    kept increasing and above 0 as cumulative sums of exponentials; then
    :func:`polish_knots`, so that the file does not depend on where the library's
    L-BFGS-B stopped."""
    if not 1 <= pieces <= MAX_KNOTS:
        raise CalibrationError(f"--knots {pieces}: give 1 to {MAX_KNOTS}")
    n = len(q)
    t = q * pieces
    k = np.minimum(t.astype(int), pieces - 1)
    f = t - k

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        ex = np.exp(theta)
        knots = np.cumsum(ex)
        g = knots[k] + f * (knots[k + 1] - knots[k])
        total = g.sum(axis=1, keepdims=True)
        value = float(-(y * np.log(g / total)).sum() / n)
        d = -(y / g - y.sum(axis=1, keepdims=True) / total) / n  # d loss / d g
        dy = np.bincount(k.ravel(), (d * (1 - f)).ravel(), pieces + 1)
        dy += np.bincount((k + 1).ravel(), (d * f).ravel(), pieces + 1)
        return value, ex * np.cumsum(dy[::-1])[::-1]

    start = np.log(np.concatenate([[1e-3], np.full(pieces, 1.0 / pieces)]))
    result = minimize(loss, start, jac=True, method="L-BFGS-B",
                      options={"maxiter": 2000, "gtol": 1e-10, "ftol": 1e-15})  # fmt: skip
    knots = np.cumsum(np.exp(result.x))
    return polish_knots(knots / knots[-1], q, y)


def polish_knots(knots: np.ndarray, q: np.ndarray, y: np.ndarray) -> FittedKnots:
    """Knots from any point near the fit's optimum (an L-BFGS-B endpoint: scipy 1.14-1.17
    stop up to 2e-6 apart) to the same float64 values on every library.

    The increments between knots that collapsed onto their bound 0 (below :data:`FLAT`
    of the whole) stay there (the first knot at :data:`KNOT_FLOOR`), and so does the
    first free one (the map does not see the knots' scale); the others take Newton steps,
    the gradient summed exactly (``math.fsum``, whatever the order) so that its root is
    one point (the Hessian's own rounding moves only the steps). Then the knots are scaled
    to end at 1 and rounded to :data:`KNOT_GRID`. Where the steps would leave the bounds
    or not settle (a fit far from its optimum), the knots given are rounded instead."""
    pieces = len(knots) - 1
    t = q * pieces
    k = np.minimum(t.astype(int), pieces - 1).ravel()
    f = (t.ravel() - k).astype(float)
    seats = q.shape[1]
    cells = np.arange(len(k))  # one per position and seat
    # g (each cell's mapped value) = jac @ knots; a position's total = rowsum @ knots
    jac = sparse.csc_matrix(
        (np.concatenate([1 - f, f]), (np.concatenate([cells, cells]), np.concatenate([k, k + 1]))),
        shape=(len(k), pieces + 1),
    )
    rowsum = (
        sparse.csr_matrix((np.ones(len(k)), (cells // seats, cells)), shape=(len(q), len(k))) @ jac
    )
    y = y.ravel()
    ysum = np.repeat(y.reshape(-1, seats).sum(axis=1), seats)

    def knots_of(steps: np.ndarray) -> np.ndarray:
        return np.array([math.fsum(steps[: j + 1]) for j in range(pieces + 1)])

    def on_grid(u: np.ndarray, polished: bool) -> FittedKnots:
        rounded = np.maximum(np.round(u / u[-1] / KNOT_GRID) * KNOT_GRID, KNOT_FLOOR)
        return FittedKnots(tuple(float(v) for v in rounded), polished)

    given = np.asarray(knots, dtype=float)
    steps = np.diff(np.concatenate([[0.0], given]))
    whole = steps.sum()
    collapsed = steps < FLAT * whole
    steps[collapsed] = 0.0
    steps[0] = max(steps[0], KNOT_FLOOR * whole)
    free = np.flatnonzero(~collapsed)
    moving = free[1:]  # free[0] is held: the scale
    lift = np.zeros((pieces + 1, len(moving)))  # d knots / d moving increments
    for col, j in enumerate(moving):
        lift[j:, col] = 1.0
    for _ in range(POLISH_STEPS if len(moving) else 0):
        u = knots_of(steps)
        g = u[k] + f * (u[k + 1] - u[k])
        total = np.repeat(g.reshape(-1, seats).sum(axis=1), seats)
        if not (g > 0).all():
            return on_grid(given, False)
        d = -(y / g - ysum / total)
        per_knot = [  # d loss / d knot, exactly rounded
            math.fsum(jac.data[a:b] * d[jac.indices[a:b]])
            for a, b in zip(jac.indptr[:-1], jac.indptr[1:], strict=True)
        ]
        grad = np.array([math.fsum(per_knot[j:]) for j in moving])
        hessian = (jac.T @ jac.multiply((y / g**2)[:, None])).toarray()
        hessian -= (rowsum.T @ rowsum.multiply((ysum / total**2)[::seats][:, None])).toarray()
        try:
            steps[moving] += np.linalg.solve(lift.T @ hessian @ lift, -grad)
        except np.linalg.LinAlgError:
            return on_grid(given, False)
        if (steps[moving] <= 0).any() or not np.isfinite(steps).all():
            return on_grid(given, False)
    polished = knots_of(steps)
    if np.abs(polished / polished[-1] - given / given[-1]).max() > SETTLED:
        return on_grid(given, False)  # it went elsewhere: not the optimum's neighbourhood
    return on_grid(polished, True)


def fit(z: np.ndarray, y: np.ndarray, kind: str) -> Map:
    """The map of ``kind`` (:data:`LOGIT_MAPS`) of logits ``z`` that minimises the softmax
    cross-entropy to the result shares ``y`` (L-BFGS with the exact gradient)."""
    if kind not in LOGIT_MAPS:
        raise CalibrationError(f"map {kind!r}: give one of {', '.join(LOGIT_MAPS)}")
    players = z.shape[1]
    n = len(z)

    def unpack(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if kind == "temperature":
            return np.full(players, theta[0]), np.zeros(players)
        a = theta[:players]
        c = np.zeros(players)
        if kind == "seat-affine":
            c[1:] = theta[players:]
        return a, c

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        a, c = unpack(theta)
        p = softmax(z * a + c)
        value = float(-(y * np.log(np.maximum(p, 1e-300))).sum() / n)
        d = (p - y) / n  # d loss / d z'
        ga = (d * z).sum(axis=0)
        gc = d.sum(axis=0)
        if kind == "temperature":
            return value, np.array([ga.sum()])
        if kind == "seat-temperature":
            return value, ga
        return value, np.concatenate([ga, gc[1:]])

    size = {"temperature": 1, "seat-temperature": players, "seat-affine": 2 * players - 1}[kind]
    scales = min(size, players)  # then the biases
    start = np.concatenate([np.ones(scales), np.zeros(size - scales)])
    # each scale at least MIN_SCALE: the map stays increasing in every logit (monotone)
    limits = [(MIN_SCALE, None)] * scales + [(None, None)] * (size - scales)
    result = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=limits,
                      options={"maxiter": 500, "gtol": 1e-10, "ftol": 1e-14})  # fmt: skip
    a, c = unpack(result.x)
    return Map(tuple(float(v) for v in a), tuple(float(v) for v in c))


def fold(model: Model, mapping: Map) -> tuple[Model, int]:
    """The model whose logits are ``mapping`` of ``model``'s (the last layer rescaled:
    see the module's text), and the extra fraction bits it took."""
    last = model.layers[-1]
    a = np.asarray(mapping.scale)[:, None]
    c = np.asarray(mapping.shift)
    w = last.weights.astype(float) * a
    # the bias in the layer's sum units: logits carry out_shift bits after the shift
    b = last.biases.astype(float) * a[:, 0] + c * 2.0 ** (model.out_shift + last.shift)
    small = int(np.abs(last.weights).max()) <= INT16
    extra = 0
    for e in range(MAX_EXTRA_BITS, -1, -1):
        wq = np.rint(w * 2.0**e)
        if (not small or np.abs(wq).max() <= INT16) and np.abs(wq).max() <= 2**31 - 1:
            extra = e
            break
    wq = np.rint(w * 2.0**extra).astype(np.int64)
    bq = np.rint(b * 2.0**extra).astype(np.int64)
    layers = (*model.layers[:-1], Layer(wq, bq, last.shift + extra))
    folded = Model(model.players, layers, model.out_shift)
    check_bounds(folded, np.full(model.layers[0].weights.shape[1], FEATURE_BOUND))
    return Model.from_bytes(folded.to_bytes()), extra


def decile_error(pred: np.ndarray, real: np.ndarray, bins: int = 10) -> float:
    """The largest |realised - predicted| mean over the prediction's deciles (seats pooled)."""
    p, r = pred.ravel(), real.ravel()
    which = np.minimum((p * bins).astype(int), bins - 1)
    worst = 0.0
    for b in range(bins):
        sel = which == b
        if sel.any():
            worst = max(worst, abs(float(r[sel].mean() - p[sel].mean())))
    return worst


def calibrate(settings: Settings, bar: Bar | None = None) -> Outcome:
    """Play, fit and fold (see the module's text)."""
    bar = bar if bar is not None else Bar()
    cpu = time.process_time()
    s = settings
    if s.pool not in POOLS:
        raise CalibrationError(f"pool {s.pool!r}: give one of {', '.join(sorted(POOLS))}")
    if s.kind not in MAPS:
        raise CalibrationError(f"map {s.kind!r}: give one of {', '.join(MAPS)}")
    if s.model.knots and s.kind != "knots":
        raise CalibrationError(
            f"the model has a chance map (HWP2) and a {s.kind} map is fitted before one:"
            " calibrate the model it came from, then fit the knots"
        )
    bar.phase(f"{s.players} players: games", s.positions)
    positions, y, games = play(s.model, s.positions, s.seed, POOLS[s.pool], tick=bar.tick,
                               rules=s.rules)  # fmt: skip
    bar.end()
    rows = np.array([features(p) for p in positions], dtype=np.int64)
    z = float_logits(s.model, rows)
    before = np.array(s.model.chances_of(s.model.logits(rows)))
    polished = True
    if s.kind == "knots":
        bare = dataclasses.replace(s.model, sha256="", knots=())
        q = np.array(bare.chances_of(bare.logits(rows)))
        knots, polished = fit_knots(q, y, s.knots)
        mapping = Map((1.0,) * s.players, (0.0,) * s.players, knots)
        folded, extra = Model.from_bytes(dataclasses.replace(bare, knots=knots).to_bytes()), 0
    else:
        mapping = fit(z, y, s.kind)
        folded, extra = fold(s.model, mapping)
    z2 = float_logits(folded, rows)
    after = np.array(folded.chances_of(folded.logits(rows)))
    return Outcome(
        model=folded,
        fitted=mapping,
        positions=len(positions),
        games=games,
        loss_before=cross_entropy(before, y),
        loss_after=cross_entropy(after, y),
        brier_before=float(np.mean((before - y) ** 2)),
        brier_after=float(np.mean((after - y) ** 2)),
        worst_before=decile_error(before, y),
        worst_after=decile_error(after, y),
        fold_error=float(np.abs(z2 - mapping.apply(z)).max()),
        extra_bits=extra,
        cpu_seconds=time.process_time() - cpu,
        polished=polished,
    )


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m harness.training.calibrate",
        description="Calibrate a win-probability model (docs/winprob.md): games of its own,"
        " a monotone map of the logits fitted to their results, folded into the last layer.",
    )
    p.add_argument("--players", type=int, required=True, help="seats, 2-7 (R3)")
    p.add_argument("--model", type=Path, default=None,
                   help="the model to calibrate (default: the shipped one)")  # fmt: skip
    p.add_argument("--seed", type=int, default=1, help="the games (fit-<seed>-<n>)")
    p.add_argument("--positions", type=int, default=Settings.positions,
                   help="turn-start positions to play (whole games)")  # fmt: skip
    p.add_argument("--pool", choices=sorted(POOLS), default=Settings.pool,
                   help="the strategies the seats are drawn from")  # fmt: skip
    p.add_argument("--map", choices=MAPS, default=Settings.kind, help="what is fitted")
    p.add_argument("--knots", type=int, default=KNOTS,
                   help=f"the chance map's pieces (--map knots; 1 to {MAX_KNOTS})")  # fmt: skip
    add_rules(p)
    add_out(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    a = parse(parser, argv)
    if a.positions < 100:
        parser.error(f"--positions {a.positions}: give at least 100")
    if not 1 <= a.knots <= MAX_KNOTS:
        parser.error(f"--knots {a.knots}: give 1 to {MAX_KNOTS}")
    out = out_path(a)
    if a.model is not None:
        model = model_file(parser, "--model", a.model, a.players)
    else:
        try:
            model = shipped_model(a.players, a.rules)
        except ModelError as exc:
            parser.error(str(exc))
        if model is None:
            parser.error(
                f"--players {a.players} --rules {a.rules}: no shipped model; give --model FILE"
            )
    try:
        settings = Settings(a.players, model, a.seed, a.positions, a.pool, a.map, a.knots,
                            a.rules)  # fmt: skip
        result = calibrate(settings, Bar())
        out.write_bytes(result.model.to_bytes())
    except HarnessError as exc:
        sys.stderr.write(f"python -m harness.training.calibrate: error: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"python -m harness.training.calibrate: error: {out}: {exc.strerror}\n")
        return 1
    r = result
    print(f"input  sha256 {model.sha256}")
    print(f"positions: {r.positions:,} from {r.games:,} games"
          f" ({a.pool} pool, {a.rules} rules, seeds {TAG}-{a.seed}-<n>)")  # fmt: skip
    print(f"map ({a.map}): {r.fitted.describe()}")
    print(f"cross-entropy {r.loss_before:.5f} -> {r.loss_after:.5f}; "
          f"Brier {r.brier_before:.5f} -> {r.brier_after:.5f}")  # fmt: skip
    print(f"largest decile error on these games: {100 * r.worst_before:.2f} -> "
          f"{100 * r.worst_after:.2f} points")  # fmt: skip
    if r.fitted.knots:
        print("kept beside the network as the file's chance map (HWP2); the logits unchanged")
        if r.polished:
            print("knots polished to the fit's optimum and rounded: the same on every library")
        else:
            print(
                "knots NOT polished (the fit stopped too far from its optimum): rounded as"
                " fitted, so their last digits may move with scipy's and numpy's versions"
            )
    else:
        print(f"folded into the last layer: {r.extra_bits} more fraction bits; largest logit"
              f" error {r.fold_error:.2e}; int32/int64 bounds checked")  # fmt: skip
    print(f"wrote {out}")
    print(f"output sha256 {r.model.sha256}  {out.name}")
    print(f"CPU time {r.cpu_seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
