"""The ``harness tune BOT --param NAME=LO..HI --against FIELD`` command: a thin click layer
over :mod:`harness.tune`.

Registered by :mod:`harness.commands.group`; like every command module it imports
:mod:`harness.commands.common` and lower rooms, never the group. The tuner (numpy, the
tourney) is imported when the command runs. Progress lines go to stderr as the tune
goes; the result, or with ``--json`` the summary, to stdout.
"""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import click

from harness.commands.common import (
    complete_strategy,
    console_log,
    echo_err,
    engine_option,
    user_errors,
    verbosity_options,
)
from harness.jsonsafe import json_safe

SHOW_EVERY = 2.0  # seconds between progress lines (the last one always shown)


def _value(x: float) -> str:
    return f"{x:g}" if float(x).is_integer() else f"{x:.3g}"


def progress_line(state: Any, of: int) -> str:
    """One look at the tune: iteration, games, each parameter now and its average."""
    setup = state.setup
    u, spread = state.estimate()
    now = state.path[-1]
    parts = []
    for i, p in enumerate(setup.params):
        width = p.high - p.low
        avg = p.low + u[i] * width
        pm = "" if spread[i] != spread[i] else f" +-{_value(spread[i] * width)}"
        parts.append(f"{p.name} {_value(p.value(now[i]))} (average {_value(avg)}{pm})")
    return f"iteration {state.k:,}/{of:,}  games {state.games:,}  " + "  ".join(parts)


def result_lines(result: Any) -> list[str]:
    """The answer for people: each parameter's start, tuned value and spread, the
    confirmation, the folder."""
    s = result.summary()
    lines = [
        f"Tuned {s['setup']['bot']} against {', '.join(s['setup']['field'])}: "
        f"{s['iterations']:,} iterations, {s['games']:,} games."
    ]
    for p in s["params"]:
        spread = p["spread"]
        pm = "" if spread != spread else f" (average {_value(p['average'])} +-{_value(spread)})"
        lines.append(f"  {p['name']}: {_value(p['start'])} -> {_value(p['tuned'])}{pm}")
    c = s["confirmation"]
    if c.get("verdict") in ("skipped", "same values"):
        lines.append(f"Confirmation: {c.get('note', 'skipped (--confirm 0)')}.")
    else:
        lines.append(
            f"Confirmation on {c['deals']:,} unseen deals ({c['games']:,} games): win share "
            f"{c['win_share_tuned']:.1%} tuned, {c['win_share_start']:.1%} at the start; "
            f"difference {c['difference'] * 100:+.2f} points (95% "
            f"{c['low'] * 100:+.2f} to {c['high'] * 100:+.2f}, luck-adjusted): "
            f"{c['verdict']}."
        )
    if s["forfeits"]:
        lines.append(f"Note: {s['forfeits']:,} tuning games ended in a forfeit (counted as lost).")
    lines.append(f"Run folder: {s['folder']} (path.png: each parameter's path)")
    return [part for line in lines for part in _wrapped(line)]


def _wrapped(line: str) -> list[str]:
    """A line in lines of at most 100 columns, the others indented (paths never split)."""
    return textwrap.wrap(line, 100, subsequent_indent="  ", break_long_words=False) or [line]


def _backend_of(
    backend: str | None, address: str | None, workers: int, out: Path, talk: bool
) -> Any:
    """Dask when asked (by --backend dask or an --address), else None: run_tune's local
    worker processes. A local cluster has at least one worker; its scratch space is under
    the results folder."""
    if backend == "local" and address:
        raise click.UsageError("--address names a Dask scheduler: it needs --backend dask")
    if backend != "dask" and address is None:
        return None
    from harness.tourney.backends.dask import DaskBackend

    return DaskBackend(
        address=address,
        workers=max(workers, 1),
        scratch=out / "tune" / ".dask-scratch",
        echo=echo_err if talk else None,
    )


@click.command()
@click.argument("bot", shell_complete=complete_strategy)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=LO..HI",
    help="A parameter to tune and its range, within the bot's declared bounds (repeatable).",
)
@click.option(
    "--against",
    "against",
    multiple=True,
    metavar="FIELD",
    help="The field: strategies, comma-separated or repeated (e.g. greedy,tactician).",
)
@click.option("--players", type=int, default=2, show_default=True, help="Players at a table.")
@click.option(
    "--budget", type=int, default=20_000, show_default=True, help="Games of the tuning at most."
)
@click.option("--batch", type=int, default=50, show_default=True, help="Deals an iteration plays.")
@click.option(
    "--confirm",
    type=int,
    default=2_000,
    show_default=True,
    help="Deals of the confirmation (tuned against start, unseen deals; 0: none).",
)
@click.option(
    "--perturb",
    type=float,
    default=0.1,
    show_default=True,
    help="SPSA's first perturbation, a share of each range (c); it widens on plateaus.",
)
@click.option(
    "--gain",
    type=float,
    default=0.08,
    show_default=True,
    help="SPSA's step gain (a): a step is gain/(k+6)^0.602 x the difference in units of "
    "its root mean square so far, over the gap between the points.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of deals and signs.")
@click.option(
    "--workers",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Worker processes (0 plays in this process).",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    help="Where points are played: local worker processes (the default), or Dask (a local "
    "Dask cluster of --workers processes, or the scheduler at --address). Same path either way.",
)
@click.option(
    "--address",
    metavar="tcp://HOST:PORT",
    help="The Dask scheduler to play on (implies --backend dask); see docs/cluster.md.",
)
@click.option("--out", default="results", show_default=True, help="Folder of run folders.")
@click.option("--fresh", is_flag=True, help="Start again instead of resuming the tune's folder.")
@engine_option(config=False)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON instead.")
@verbosity_options(quiet="No progress lines on stderr; the result as ever.")
@user_errors
def tune(
    bot: str,
    params: tuple[str, ...],
    against: tuple[str, ...],
    players: int,
    budget: int,
    batch: int,
    confirm: int,
    perturb: float,
    gain: float,
    seed: int,
    workers: int,
    backend: str | None,
    address: str | None,
    out: str,
    fresh: bool,
    engine: str,
    as_json: bool,
    verbose: int,
    quiet: bool,
) -> None:
    """Tune BOT's parameters against a field: SPSA on paired, duplicate-dice,
    luck-adjusted games (docs/tune.md).

    Each iteration plays two points (every parameter moved up or down at once) on the
    same deals against the field; their difference moves the parameters. The answer is
    the average of the second half of the iterates; it is then played against the
    starting values on deals the tuning never saw. Same seed, same path, on any number
    of workers; run the same command again to resume.

    \b
    Examples:
      harness tune threshold --param target=21..40 --against greedy
      harness tune tactician --param caution=0.2..5 --against greedy,simple --json
    """
    from harness.tune import Gains, make_setup, run_tune
    from harness.tune.run import iterations_of

    console_log(verbose)
    field = [ref.strip() for item in against for ref in item.split(",") if ref.strip()]
    setup = make_setup(
        bot,
        list(params),
        field,
        players=players,
        seed=seed,
        budget=budget,
        batch=batch,
        confirm=confirm,
        engine=engine,
        gains=Gains(a=gain, c=perturb),
    )
    of = iterations_of(setup)
    talk = not quiet and (not as_json or sys.stderr.isatty())
    shown = [0.0]

    def tell(state: Any) -> None:
        now = time.monotonic()
        if state.k == of or now - shown[0] >= SHOW_EVERY:
            shown[0] = now
            echo_err(progress_line(state, of))

    if talk:
        header = (
            f"Tuning {bot} ({', '.join(p.name for p in setup.params)}) against "
            f"{', '.join(field)}: {of:,} iterations of {setup.batch} deals, at most "
            f"{setup.budget:,} games, then {setup.confirm:,} unseen deals to confirm."
        )
        for line in _wrapped(header):
            echo_err(line)
    result = run_tune(
        setup,
        out=out,
        workers=workers,
        backend=_backend_of(backend, address, workers, Path(out), talk),
        fresh=fresh,
        on_iteration=tell if talk else None,
    )
    if talk and result.resumed:
        echo_err(f"(resumed: {result.resumed:,} iterations were stored in {result.folder})")
    if as_json:
        click.echo(json.dumps(json_safe(result.summary())))
    else:
        for line in result_lines(result):
            click.echo(line)
