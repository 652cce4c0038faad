"""``harness coach BOT`` and ``harness diff A B``: every decision, seen.

Registered by :mod:`harness.commands.group`; imports :mod:`harness.commands.common`
and lower rooms, never the group. The work is imported when a command runs (``harness --help`` stays
quick). Options are checked before any game is played; mistakes are one line and exit 2
(harness.commands.common's rule), Ctrl-C exits 130.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from harness.commands.common import (
    complete_strategy,
    echo_err,
    engine_option,
    limits_options,
    max_turns_option,
    out_folder,
    parse_variants,
    rules_options,
    seat_settings_of,
    user_errors,
)
from harness.runfolder.layout import DEFAULT_OUT

F = TypeVar("F", bound=Callable[..., Any])


def _common(deals: int | None, noun: str, deals_help: str) -> Callable[[F], F]:
    """The options the coach and the diff share: who they meet, on what, and where to."""

    def decorate(func: F) -> F:
        for option in reversed(
            [
                click.option(
                    "--opponent",
                    "-o",
                    "opponents",
                    multiple=True,
                    shell_complete=complete_strategy,
                    help="An opponent (repeatable) [default: simple]. Fewer than the other "
                    "seats: they fill them in turn; more: one table per group of them.",
                ),
                click.option("--players", type=click.IntRange(2, 7), default=2, show_default=True),
                rules_options,
                click.option(
                    "--deals",
                    type=click.IntRange(1, 10_000_000),
                    default=deals,
                    show_default=deals is not None,
                    help=deals_help,
                ),
                click.option(
                    "--seed",
                    type=int,
                    default=1,
                    show_default=True,
                    help="Seed of the deals (a tournament's deal d with this seed).",
                ),
                engine_option(config=False),
                limits_options(isolation_default="none"),
                click.option(
                    "--workers",
                    type=click.IntRange(1, 1024),
                    default=None,
                    help="Worker processes [default: one per CPU, at most 8].",
                ),
                max_turns_option("Turn cap of every game (default 1000)."),
                click.option(
                    "--situations",
                    type=click.IntRange(0, 1000),
                    default=None,
                    help="Situations to list [default: 10 for the coach, 8 each way for the diff].",
                ),
                click.option(
                    "--examples",
                    type=click.IntRange(0, 50),
                    default=None,
                    help="Example positions played again with their records [default: 3; "
                    "the diff: 2 where B gains, 2 where it loses].",
                ),
                click.option(
                    "--out",
                    type=click.Path(file_okay=False, path_type=Path),
                    default=None,
                    callback=out_folder,  # one line, exit 2, before anything is played
                    help=f"Folder for {noun}.md, {noun}.html, {noun}.json and the examples' "
                    f"records [default: results/{noun}/<time>-<names>].",
                ),
                click.option(
                    "-q", "--quiet", is_flag=True, help="No progress and no notes on stderr."
                ),
                click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON."),
                click.option(
                    "--unit",
                    type=click.Choice(["win", "worms"]),
                    default="win",
                    show_default=True,
                    help="Value decisions in chances to win the game (harness.winprob's "
                    "evaluator) or in worms of the turn's swing.",
                ),
            ]
        ):
            func = option(func)
        return func

    return decorate


def _bands(text: str | None) -> tuple[float, ...] | None:
    if text is None:
        return None
    from harness.errors import HarnessError

    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise HarnessError(f"--bands: {text[:60]!r}: give three numbers, e.g. 0.25,0.5,1") from None


def _folder(out: Path | None, noun: str, *names: str) -> Path:
    if out is not None:
        return out
    slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", "_vs_".join(names))[:120].strip("_.") or noun
    return Path(DEFAULT_OUT) / noun / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}"


class _Progress:
    """Games done on stderr as the work goes (``-q`` and ``--json`` turn it off): a line
    redrawn in place on a terminal or in a notebook, a line every 10 seconds elsewhere
    (the tourney's progress, :class:`harness.tourney.progress.Progress`)."""

    def __init__(self, show: bool) -> None:
        self.show = show
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self.show:
            return
        if self.bar is None:
            from harness.tourney.progress import Progress

            self.bar = Progress(total, lines=True)
        self.bar.total = total
        self.bar.add(done - self.bar.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.finish()


def _workers(workers: int | None) -> int:
    from harness.coach.deals import default_workers

    return default_workers() if workers is None else workers


@click.command("coach")
@click.argument("bot", shell_complete=complete_strategy)
@_common(1000, "coach", "Duplicate deals, each played in every seat order at every table.")
@click.option(
    "--bands",
    default=None,
    metavar="W1,W2,W3",
    help="Regret thresholds of inaccuracy, mistake and blunder, in the unit [default: "
    "0.01,0.02,0.04 in chances to win; 0.25,0.5,1 in worms].",
)
@user_errors
def coach(bot: str, bands: str | None, **options: Any) -> None:
    """Audit every decision BOT takes against the exact turn optimum.

    BOT plays its opponents on duplicate deals (natively where the seats allow), every
    seat order; each of its decisions with a choice (pick a face, stop or roll on, choose
    a claim) is valued exactly: in chances to win the game (--unit win, the default: each
    way the turn can end valued by harness.winprob's evaluator) or for the turn's worm
    swing (--unit worms). Prints what it loses per game to each kind of decision with
    95% intervals (clustered by deal), how often it errs and how badly (inaccuracy,
    mistake, blunder), the costliest recurring situations with the better move, and
    example positions with their game records; writes coach.md, coach.html and
    coach.json (docs/coach.md).

    Every seat is held as in a tourney: a bot that raises, ends its process or runs over
    --move-time / --game-time forfeits that game (left out of the figures, counted and
    shown); what it prints goes to output.log, never to the terminal.

    \b
    Examples:
      harness coach greedy
      harness coach bots/mine.py:MyBot -o tactician -o optimal --deals 2000
      harness coach tactician --players 3 -o greedy -o simple --json
    """
    from harness.coach.coaching import coach as run_coach
    from harness.coach.render import coach_lines

    result = _run("coach", run_coach, (bot,), options, bands=_bands(bands))
    _tell(*result.write(_folder(options["out"], "coach", result.bot)), options, coach_lines)


@click.command("diff")
@click.argument("a", shell_complete=complete_strategy)
@click.argument("b", shell_complete=complete_strategy)
@_common(
    None,
    "diff",
    "Duplicate deals, each played in every seat order at every table [default: until the "
    "answer is settled, at most 500: a sequential rule, at most 5% error; docs/coach.md].",
)
@user_errors
def diff(a: str, b: str, **options: Any) -> None:
    """Where A and B decide differently on the same deals, and what it is worth.

    A and B (two versions of one bot: two files, or NAME=REF for a name of its own) play
    the same duplicate deals against the same opponents; in A's games B is asked every
    question A is asked, and in B's games A. Where they answer differently, both answers
    are valued exactly (in chances to win by default: B's gain is then an estimate of the
    difference in win share; --unit worms: the turn's worm swing), the rest of the turn
    played by the other bot. Prints how often they part, B's gain per game over A with a
    95% interval
    (clustered by deal), where B gains and where it loses, and example positions with
    their game records; writes diff.md, diff.html and diff.json (docs/coach.md). Exact
    per decision, with no game outcome involved: it converges far faster than a compare.
    Without --deals it stops as soon as the answer is settled (at most 500 deals). Seats
    are held as in a tourney (forfeits, --move-time, --isolation, output.log).

    \b
    Examples:
      harness diff 'threshold(target=26)' 'threshold(target=27)'
      harness diff old=bots/v1.py:Bot new=bots/v2.py:Bot -o tactician --deals 2000
    """
    from harness.coach.differ import diff as run_diff
    from harness.coach.render import diff_lines

    result = _run("diff", run_diff, (a, b), options)
    _tell(*result.write(_folder(options["out"], "diff", result.a, result.b)), options, diff_lines)


def _run(
    noun: str, run: Callable[..., Any], who: tuple[str, ...], o: dict[str, Any], **more: Any
) -> Any:
    """The coach or the diff with the options they share, progress shown on a terminal:
    its setup built once from them (a mistake is one line naming the option), an option
    not given left to the setup's own default."""
    from harness.coach.setup import CoachSetup, DiffSetup, SetupError

    talk = not o["quiet"] and not o["as_json"]
    seats = seat_settings_of(
        move_time=o["move_time"],
        game_time=o["game_time"],
        isolation=o["isolation"],
        engine=o["engine"],
    )
    try:
        setup = (CoachSetup if noun == "coach" else DiffSetup).of(
            opponents=o["opponents"] or None,
            rules=parse_variants(o["preset"], o["variants"], players=o["players"]),
            players=o["players"],
            deals=o["deals"],
            seed=o["seed"],
            settings=seats,
            workers=_workers(o["workers"]),
            situations=o["situations"],
            examples=o["examples"],
            max_turns=o["max_turns"],
            unit=o["unit"],
            **more,
        )
    except SetupError as exc:
        raise exc.for_option() from None
    progress = _Progress(talk)
    try:
        return run(
            *who,
            setup=setup,
            note=(lambda text: echo_err(f"Note: {text}.")) if talk else None,
            progress=progress,
        )
    finally:
        progress.close()


def _tell(
    data: dict[str, Any],
    files: dict[str, Path],
    options: dict[str, Any],
    lines: Callable[[dict[str, Any], list[str]], list[str]],
) -> None:
    from harness.jsonsafe import json_safe

    if options["as_json"]:
        data = {**data, "files": {k: str(v) for k, v in files.items()}}
        click.echo(json.dumps(json_safe(data)))
        return
    for line in lines(data, data["records"]):
        click.echo(line)
    click.echo(f"\nReport: {files['html']} (also {files['markdown'].name}, {files['json'].name})")


__all__ = ["coach", "diff"]
