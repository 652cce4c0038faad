"""``python -m harness.training``: train a win-probability model (see harness.training)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from harness.errors import HarnessError
from harness.training.args import (
    OneLineParser,
    add_out,
    add_rules,
    model_file,
    out_path,
    parse,
)
from harness.training.progress import Bar
from harness.training.quantize import QuantizeError, dequantize
from harness.training.run import Settings, train
from harness.training.selfplay import POOLS
from harness.winprob import feature_count


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m harness.training",
        description="Train a win-probability model (docs/winprob.md): self-play positions,"
        " fitted value iteration on the exact turn backup, the integer network.",
    )
    p.add_argument("--players", type=int, default=2, help="seats, 2-7 (R3)")
    p.add_argument("--seed", type=int, default=1, help="games, tables, network: all from it")
    p.add_argument("--positions", type=int, default=Settings.positions,
                   help="turn-start positions to play (whole games)")  # fmt: skip
    p.add_argument("--sweeps", type=int, default=Settings.sweeps,
                   help="fitted value iteration sweeps (turn backups, then a refit)")  # fmt: skip
    p.add_argument("--epochs", type=int, default=Settings.first_epochs, help="first fit")
    p.add_argument("--sweep-epochs", type=int, default=Settings.sweep_epochs)
    p.add_argument("--hidden", default="64,64", help="hidden layer widths, e.g. 64,64")
    p.add_argument("--pool", choices=sorted(POOLS), default=Settings.pool,
                   help="the strategies the games' seats are drawn from")  # fmt: skip
    p.add_argument("--decay", type=float, default=Settings.decay,
                   help="each sweep's learning rate: the first times decay**sweep")  # fmt: skip
    p.add_argument("--pool-model", type=Path, default=None, metavar="PATH",
                   help="the model file the pool's win-optimal seats play with"
                   " (default: the normal approximation)")  # fmt: skip
    p.add_argument("--init", type=Path, default=None, metavar="PATH",
                   help="warm start: the network begins as this model file's"
                   " (its widths are the network's; --epochs 0 skips the first fit)")  # fmt: skip
    add_rules(p)
    add_out(p)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    a = parse(parser, argv)
    if a.positions < 1 or a.sweeps < 0 or a.epochs < 0 or a.sweep_epochs < 1:
        parser.error("--positions and --sweep-epochs must be at least 1, --sweeps at least 0")
    if a.epochs < 1 and a.init is None:
        parser.error("--epochs 0 needs --init (a new network must first be fitted)")
    try:
        hidden = tuple(int(w) for w in a.hidden.split(","))
    except ValueError:
        parser.error(f"--hidden {a.hidden!r}: give widths such as 64,64")
    if not hidden or min(hidden) < 1:
        parser.error(f"--hidden {a.hidden!r}: every width must be at least 1")
    if not 0.0 < a.decay <= 1.0:
        parser.error(f"--decay {a.decay}: give a factor in (0, 1]")
    pool_model = (
        model_file(parser, "--pool-model", a.pool_model, a.players) if a.pool_model else None
    )
    init = model_file(parser, "--init", a.init, a.players) if a.init else None
    if init is not None:
        widths = tuple(layer.weights.shape[0] for layer in init.layers[:-1])
        if init.layers[0].weights.shape[1] != feature_count(a.players):
            parser.error(f"--init {a.init}: its inputs are not the features of {a.players} players")
        if a.hidden != _parser().get_default("hidden") and widths != hidden:
            parser.error(f"--init {a.init}: hidden widths {widths}, not --hidden's {hidden}")
        try:
            dequantize(init, np.ones(feature_count(a.players)))
        except QuantizeError as exc:
            parser.error(f"--init {a.init}: {exc}")
        hidden = widths
    settings = Settings(a.players, a.seed, a.positions, a.sweeps, hidden, a.epochs,
                        a.sweep_epochs, decay=a.decay, pool=a.pool, rules=a.rules,
                        pool_model=pool_model, init=init)  # fmt: skip
    out = out_path(a)
    try:
        result = train(settings, Bar())
        out.write_bytes(result.model.to_bytes())
    except HarnessError as exc:
        sys.stderr.write(f"python -m harness.training: error: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"python -m harness.training: error: {out}: {exc.strerror}\n")
        return 1
    for flag, model in (("--pool-model", pool_model), ("--init", init)):
        if model is not None:
            print(f"{flag}: sha256 {model.sha256}")
    losses = ", ".join(f"{v:.4f}" for v in result.losses)
    changes = ", ".join(f"{v:.4f}" for v in result.backup_change)
    print(f"positions: {result.games_positions:,} under the {a.rules} rules"
          f" (data sha256 {result.data_sha256})")  # fmt: skip
    print(f"losses (fit, then each sweep): {losses}")
    print(f"mean change of the targets per sweep: {changes or '-'}")
    print(f"integer vs float model: max abs error {result.quantize_error:.2e}")
    print(f"wrote {out}")
    print(f"sha256 {result.model.sha256}  {out.name}")
    print(f"CPU time {result.cpu_seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
