"""What the training's commands (``python -m harness.training``, ``python -m
harness.training.calibrate``) share in reading their arguments: every mistake in one
line and exit 2, the player count (R3), a model file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from harness.winprob import Model, ModelError, load


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line (as every harness error ends)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def check_players(parser: argparse.ArgumentParser, players: int) -> None:
    if not 2 <= players <= 7:
        parser.error(f"--players {players}: Pickomino is for 2 to 7 players (R3)")


def model_file(parser: argparse.ArgumentParser, flag: str, path: Path, players: int) -> Model:
    """The model in ``path`` for ``players`` seats; a user's mistake in one line."""
    try:
        model = load(path)
    except ModelError as exc:
        parser.error(f"{flag} {exc}")
    if model.players != players:
        parser.error(f"{flag} {path}: a {model.players}-player model, not {players} (R3)")
    return model
