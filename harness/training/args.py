"""What the training's commands (``python -m harness.training``, ``python -m
harness.training.calibrate``) share in reading their arguments: every mistake in one
line and exit 2, the player count (R3), a model file, where the model is written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from harness.winprob import Model, ModelError, load, model_name


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line (as every harness error ends)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def check_players(parser: argparse.ArgumentParser, players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        parser.error(
            f"--players {players}: Pickomino is for {MIN_PLAYERS} to {MAX_PLAYERS} players (R3)"
        )


def parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The command's arguments, the player count checked (R3)."""
    args = parser.parse_args(argv)
    check_players(parser, args.players)
    return args


def add_rules(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", choices=list(PRESETS), default="official",
                        help="the preset the games are played under (RULES.md)")  # fmt: skip


def add_out(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=None,
                        help="default: the shipped name, winprob-<P>p.bin"
                        " (winprob-<P>p-<preset>.bin for a preset's own model)")  # fmt: skip


def out_path(args: argparse.Namespace) -> Path:
    """Where the model is written: ``--out``, else the name it would ship under, here
    (both commands take ``--rules``: :func:`add_rules`)."""
    if args.out is not None:
        return args.out
    return Path(model_name(args.players, args.rules))


def model_file(parser: argparse.ArgumentParser, flag: str, path: Path, players: int) -> Model:
    """The model in ``path`` for ``players`` seats; a user's mistake in one line."""
    try:
        model = load(path)
    except ModelError as exc:
        parser.error(f"{flag} {exc}")
    if model.players != players:
        parser.error(f"{flag} {path}: a {model.players}-player model, not {players} (R3)")
    return model
