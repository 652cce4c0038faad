"""``python -m harness.training``: train a win-probability model (see harness.training)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.errors import HarnessError
from harness.training.progress import Bar
from harness.training.run import Settings, train
from harness.training.selfplay import POOLS


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # One line, as every harness error ends.
        sys.stderr.write(f"python -m harness.training: error: {message}\n")
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
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
    p.add_argument("--out", type=Path, default=None, help="default: winprob-<P>p.bin")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    a = parser.parse_args(argv)
    if not 2 <= a.players <= 7:
        parser.error(f"--players {a.players}: Pickomino is for 2 to 7 players (R3)")
    if a.positions < 1 or a.sweeps < 0 or a.epochs < 1 or a.sweep_epochs < 1:
        parser.error("--positions and the epochs must be at least 1, --sweeps at least 0")
    try:
        hidden = tuple(int(w) for w in a.hidden.split(","))
    except ValueError:
        parser.error(f"--hidden {a.hidden!r}: give widths such as 64,64")
    if not hidden or min(hidden) < 1:
        parser.error(f"--hidden {a.hidden!r}: every width must be at least 1")
    if not 0.0 < a.decay <= 1.0:
        parser.error(f"--decay {a.decay}: give a factor in (0, 1]")
    settings = Settings(a.players, a.seed, a.positions, a.sweeps, hidden, a.epochs,
                        a.sweep_epochs, decay=a.decay, pool=a.pool)  # fmt: skip
    out = a.out if a.out is not None else Path(f"winprob-{a.players}p.bin")
    try:
        result = train(settings, Bar())
        out.write_bytes(result.model.to_bytes())
    except HarnessError as exc:
        sys.stderr.write(f"python -m harness.training: error: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"python -m harness.training: error: {out}: {exc.strerror}\n")
        return 1
    losses = ", ".join(f"{v:.4f}" for v in result.losses)
    changes = ", ".join(f"{v:.4f}" for v in result.backup_change)
    print(f"positions: {result.games_positions:,} (data sha256 {result.data_sha256})")
    print(f"losses (fit, then each sweep): {losses}")
    print(f"mean change of the targets per sweep: {changes or '-'}")
    print(f"integer vs float model: max abs error {result.quantize_error:.2e}")
    print(f"wrote {out}")
    print(f"sha256 {result.model.sha256}  {out.name}")
    print(f"CPU time {result.cpu_seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
