"""What every ``harness`` command shares: one-line errors and the rules options.

Command modules (tourney, report, analyze, sprt) import this, never :mod:`harness.cli`,
which imports them in turn.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from harness.errors import HarnessError, RecordError
from harness.rules import PRESETS, VARIANTS, Rules

F = TypeVar("F", bound=Callable[..., Any])


class RecordInvalid(click.ClickException):
    """A record that is malformed or illegal: exit status 2."""

    exit_code = 2


def user_errors(func: F) -> F:
    """Turn HarnessError into a one-line click error."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RecordError as exc:
            raise RecordInvalid(str(exc)) from None
        except HarnessError as exc:
            raise click.ClickException(str(exc)) from None

    return wrapper  # type: ignore[return-value]


def parse_variants(preset: str, settings: tuple[str, ...], players: int | None = None) -> Rules:
    """Rules from a preset name and ``KEY=VALUE`` overrides (``--set bust_flip=none``)."""
    data: dict[str, Any] = {"preset": preset}
    for item in settings:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep:
            raise click.BadParameter(
                f"{item!r}: write KEY=VALUE, e.g. bust_flip=none", param_hint="--set"
            )
        if key == "players":
            data[key] = int(value) if value.strip().isdigit() else value
        elif key in VARIANTS and isinstance(VARIANTS[key][0], bool):
            lowered = value.strip().lower()
            data[key] = {"true": True, "false": False}.get(lowered, value)
        else:
            data[key] = value.strip()
    if players is not None and "players" not in data:
        data["players"] = players
    return Rules.from_dict(data, where="--set")


RULES_HELP = f"Rules preset: {', '.join(PRESETS)}."
SET_HELP = (
    "Override a variant key, KEY=VALUE (repeatable): "
    + "; ".join(f"{k}: {'/'.join(str(v).lower() for v in vs)}" for k, vs in VARIANTS.items())
    + "."
)


def rules_options(func: F) -> F:
    """``--rules PRESET`` and ``--set KEY=VALUE`` (as ``preset`` and ``settings``)."""
    func = click.option("--set", "settings", multiple=True, metavar="KEY=VALUE", help=SET_HELP)(
        func
    )
    return click.option(
        "--rules",
        "preset",
        default="official",
        show_default=True,
        type=click.Choice(list(PRESETS)),
        help=RULES_HELP,
    )(func)
