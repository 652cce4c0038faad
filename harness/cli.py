"""The ``harness`` command line: a thin click layer over the Python API.

User mistakes surface as one line through click's exceptions (exit status 1, or 2
for usage and record errors), never as a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from harness import __version__
from harness.cli_common import (  # noqa: F401 - parse_variants, user_errors: shared API
    RecordInvalid,
    parse_variants,
    rules_options,
    user_errors,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harness")
def main() -> None:
    """Tournament harness for the dice game Pickomino (Heckmeck, Piko Piko)."""


@main.command()
@click.argument("strategies", nargs=-1, required=True)
@rules_options
@click.option("--seed", type=int, default=None, help="Seed of the dice (random if not given).")
@click.option(
    "--dice",
    type=click.Choice(["independent", "duplicate"]),
    default="independent",
    show_default=True,
    help="independent: one seeded stream; duplicate: dice fixed by (seed, seat, turn, roll), "
    "as a tournament deal with that seed deals them.",
)
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the game record (JSON) to this file.",
)
@click.option(
    "--max-turns",
    type=click.IntRange(1),
    default=None,
    help="Turn cap: stop the game unfinished after this many turns.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the final scores.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead.")
@user_errors
def play(
    strategies: tuple[str, ...],
    preset: str,
    settings: tuple[str, ...],
    seed: int | None,
    dice: str,
    record_path: str | None,
    max_turns: int | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Play one game between STRATEGIES (one per seat; seat 0 starts) and tell it.

    A strategy is a built-in name (see `harness strategies`), an installed plugin's
    name, or path/to/file.py:ClassName; parameters go in parentheses:
    'threshold(target=28)'.

    \b
    Example:
      harness play greedy 'threshold(target=28)' random --seed 7
    """
    import random

    from harness.dice import DuplicateDice
    from harness.engine import DEFAULT_MAX_TURNS
    from harness.narrate import Narrator, summary_lines
    from harness.play import build_strategies, play_game
    from harness.record import save_record

    if not 2 <= len(strategies) <= 7:
        raise click.UsageError(
            f"{len(strategies)} strategies given; a game has 2 to 7 players (R3)"
        )
    rules = parse_variants(preset, settings, players=len(strategies))
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    instances, names = build_strategies(list(strategies))
    narrator = None if (quiet or as_json) else Narrator(names, click.echo)
    if narrator is not None:
        shown = "" if dice == "independent" else " (duplicate dice)"
        click.echo(f"Pickomino: {rules.describe()}, seed {seed}{shown}")
        for seat, name in enumerate(names):
            click.echo(f"  seat {seat}: {name}")
    result = play_game(
        instances,
        rules,
        seed,
        dice=DuplicateDice(seed) if dice == "duplicate" else None,
        record=bool(record_path),
        observer=narrator,
        max_turns=max_turns or DEFAULT_MAX_TURNS,
        forfeit=True,
        names=names,
    )
    if record_path:
        result.record["seats"] = names
        save_record(result.record, record_path)
    if as_json:
        payload = {
            "seed": seed,
            "rules": rules.to_dict(),
            "seats": names,
            "status": result.status,
            "turns": result.turns,
            "ranks": result.ranks,
            **result.state(),
            "error": str(result.error) if result.error else None,
        }
        click.echo(json.dumps(payload))
    else:
        for line in summary_lines(result):
            click.echo(line)
        if record_path:
            click.echo(f"Record written to {record_path}")
    if result.error is not None:
        sys.exit(1)


@main.command()
@click.argument("record_file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the final state as JSON.")
@user_errors
def replay(record_file: str, as_json: bool) -> None:
    """Re-apply a game record through the engine, checking every step, and print the state.

    An inconsistent or illegal record exits with status 2 and one line naming the
    turn, the seat and the rule.
    """
    from harness.narrate import summary_lines
    from harness.record import load_record
    from harness.record import replay as replay_record

    data = load_record(record_file)
    result = replay_record(data)
    if as_json:
        click.echo(json.dumps(result.state()))
        return
    click.echo(f"{record_file}: {len(data['turns'])} turns replayed, all legal.")
    click.echo(f"Grill: {' '.join(map(str, result.grill)) or '-'}")
    click.echo(f"Face down: {' '.join(map(str, result.flipped)) or '-'}")
    for line in summary_lines(result):
        click.echo(line)


@main.command("strategies")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@user_errors
def list_strategies(as_json: bool) -> None:
    """List every available strategy with its description and parameters."""
    from harness.plugins import broken_builtins, builtin_strategies, entry_point_strategies

    rows: list[dict[str, Any]] = []
    for name, cls in builtin_strategies().items():
        rows.append(
            {
                "name": name,
                "origin": "built-in",
                "description": cls.description(),
                "params": cls.parameters(),
            }
        )
    for name, ep in sorted(entry_point_strategies().items()):
        try:
            cls = ep.load()
            desc, params = cls.description(), cls.parameters()
        except Exception as exc:  # a broken plugin must not hide the others
            desc, params = f"(cannot load: {type(exc).__name__}: {exc})", {}
        rows.append(
            {"name": name, "origin": f"plugin {ep.value}", "description": desc, "params": params}
        )
    if as_json:
        click.echo(json.dumps(rows, default=lambda v: None if v is ... else str(v)))
        return
    width = max(len(r["name"]) for r in rows)
    for row in rows:
        params = ", ".join(k if v is ... else f"{k}={v!r}" for k, v in row["params"].items())
        click.echo(f"{row['name']:<{width}}  {row['description']}")
        if params:
            click.echo(f"{'':<{width}}    parameters: {params}")
    click.echo("\nAlso: path/to/file.py:ClassName or package.module:ClassName.")
    for module, why in broken_builtins().items():
        click.echo(f"Not available: {module} could not be loaded: {why}", err=True)


from harness.tourney.cli import tourney  # noqa: E402

main.add_command(tourney)
from harness.analysis.cli import analyze  # noqa: E402

main.add_command(analyze)

from harness.report.cli import compare_cmd, report  # noqa: E402

main.add_command(report)
main.add_command(compare_cmd)
from harness.tourney.sprt_cli import sprt  # noqa: E402

main.add_command(sprt)

if __name__ == "__main__":  # pragma: no cover
    main()
