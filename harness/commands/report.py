"""The ``harness report`` and ``harness compare`` commands
(registered in :mod:`harness.commands.group`).

Thin: options, progress on stderr, text or ``--json`` on stdout; the work is
:func:`harness.report.write_report` and :func:`harness.report.comparisons.compare.compare`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from harness.commands.common import console_log, out_folder, user_errors, verbosity_options
from harness.errors import plural


class _Progress:
    """A progress bar per phase on stderr, only when stderr is a terminal."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.enabled = sys.stderr.isatty()
        self.bar: Any = None
        self.phase = ""
        self.shown = 0

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        if phase != self.phase:
            self.close()
            self.phase = phase
            self.bar = click.progressbar(
                length=total, label=f"{self.label}: {phase} games", file=sys.stderr
            )
            self.bar.__enter__()
            self.shown = 0
        self.bar.update(done - self.shown)
        self.shown = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


@click.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report's numbers as JSON.")
@click.option("--no-plots", is_flag=True, help="Skip the charts (faster; tables only).")
@click.option("-q", "--quiet", is_flag=True, help="Print only where the report was written.")
@click.option(
    "--repair",
    is_flag=True,
    help="Play damaged or missing chunks again (with the run's own config from run.json), "
    "finish the run, then report.",
)
@verbosity_options(quiet=None)  # -q is the report's own, above
@user_errors
def report(
    run_dir: Path, as_json: bool, no_plots: bool, quiet: bool, repair: bool, verbose: int
) -> None:
    """Write report.md, report.html (self-contained) and plots/*.png into RUN_DIR.

    RUN_DIR is a run folder, results/<config>/<run id>, or a config folder
    results/<config> (its newest run). Running it again rewrites the same files.
    Every stored chunk is verified first (size, sha256, the games it holds): a damaged
    one stops the report with one line naming it; --repair plays it again.

    \b
    Examples:
      harness report results/round_robin
      harness report results/round_robin --repair
    """
    from harness.report import write_report

    console_log(verbose)
    if repair:
        from harness.tourney.repair import repair_run

        repair_run(run_dir, echo=lambda text: click.echo(text, err=True))
    progress = _Progress("report")
    try:
        result = write_report(run_dir, progress, plots=not no_plots)
    finally:
        progress.close()
    summary = result.summary
    if as_json:
        click.echo(json.dumps(summary))
        return
    if not quiet:
        from harness.report.pages.render import terminal_width, wrap

        games, width = summary["games"], terminal_width()
        head = (
            f"{summary['run']['name']}/{summary['run']['run_id']}: {summary['run']['rules_text']}, "
            f"{plural(games['scored'], 'game')} scored ({plural(games['forfeit'], 'forfeit')}, "
            f"{games['turn_cap']:,} unfinished)"
        )
        for line in wrap(head, width):
            click.echo(line)
        if games["scored"]:
            from harness.report.pages.render import standings_lines

            for line in standings_lines(summary):
                click.echo(line)
        for msg in summary["messages"]:
            for line in wrap(msg, width, "- ", more=""):
                click.echo(line)
    click.echo(f"Report: {result.html}")
    if not quiet:
        click.echo(
            f"Also: {result.markdown.name}, {result.json.name}, "
            f"{plural(len(result.plots), 'plot')} in plots/"
        )


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--last",
    type=click.IntRange(2, 26),
    default=None,
    help="With one config folder: compare its N newest runs (default 2: the newest and the "
    "one before it), oldest first, each with the run before it.",
)
@click.option(
    "--against",
    type=click.Choice(["previous", "first"]),
    default=None,
    help="Compare each run with the run before it (previous: the default for a config "
    "folder, 'did my last edit help?') or with the first run (first: the default for runs "
    "named one by one).",
)
@click.option(
    "--focus",
    metavar="STRATEGY",
    help="Put this strategy first: its differences, then its head-to-head changes.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    callback=out_folder,  # one line, exit 2, before anything is read
    help="Folder for compare.md/.html/.json and charts "
    "(default: results/compare/<run A>_vs_<run B>... beside the runs).",
)
@click.option(
    "--match",
    "matches",
    multiple=True,
    metavar="OLD=NEW",
    help="Compare run A's strategy OLD with the other runs' NEW (display names; repeatable).",
)
@click.option(
    "--unpaired",
    is_flag=True,
    help="Compare every row as independent samples, even where the games are twins.",
)
@click.option(
    "--recount",
    is_flag=True,
    help="Count every number afresh from the runs' verified games instead of reading "
    "their report.json (which guards against damage, not against deliberate edits).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@user_errors
def compare_cmd(
    runs: tuple[Path, ...],
    last: int | None,
    against: str | None,
    focus: str | None,
    out: Path | None,
    matches: tuple[str, ...],
    unpaired: bool,
    recount: bool,
    as_json: bool,
) -> None:
    """Compare runs on the strategies they share: RUN_A RUN_B [RUN_C ...], or the newest
    runs of one config folder (results/<config>: its newest run against the one before).

    Prints win share and mean worms per run, each run's difference from the run it is
    compared with (the first run for runs named one by one; for a config folder's runs the
    one before, so the newest is compared with the previous; --against) with its 95%
    interval, marked * where significant (Holm-adjusted over the comparison), and what
    differs between the runs (rules, players, dice, entrants: reference, class,
    parameters, code). Runs with the same seed and dice play the same deals on the same
    dice: a strategy's games that met the same opponents from the same seat are then
    compared in pairs, clustered by deal (far narrower intervals), and so are the
    head-to-head shares; other rows are compared unpaired, and each row says which.
    Writes a report with side-by-side charts.

    \b
    Examples:
      harness compare results/mine                      # the newest run against the one before
      harness compare results/mine --last 3 --focus mybot
      harness compare results/round_robin/<old id> results/round_robin/<new id>
      harness compare results/mine/<v1 id> results/mine/<v2 id> --match mybot=mybot2
    """
    from harness.report import cached_summary
    from harness.report.charts.plots import plot_compare, plot_compare_diffs
    from harness.report.comparisons.compare import compare, parse_matches
    from harness.report.files import write_text_atomic
    from harness.report.pages.render import compare_blocks, to_html, to_markdown

    if out is not None:
        from harness.errors import HarnessError
        from harness.runfolder.layout import path_problem

        why = path_problem(out, folder=True)
        if why is not None:  # bad input: one line, exit 2, nothing read or written
            raise HarnessError(f"--out {out}: {why}")
    match = parse_matches(matches)
    folders = _runs_to_compare(runs, last)
    resolved = [f.resolve() for f in folders]
    if len(set(resolved)) < len(resolved):
        raise click.UsageError("the same run is given twice; compare different runs")
    progress = _Progress("compare")
    try:
        summaries = [cached_summary(f, progress, recount=recount) for f in folders]
    finally:
        progress.close()
    if against is None:
        against = "previous" if len(runs) == 1 else "first"
    comparison = compare(summaries, match=match, paired=not unpaired, focus=focus, against=against)
    if out is None:
        stem = "_vs_".join(f"{f.parent.name}-{f.name}" for f in folders)
        out = folders[0].parent.parent / "compare" / stem[:180]
    plots = {}
    for name, draw in (("compare", plot_compare), ("compare_diffs", plot_compare_diffs)):
        made = draw(comparison, out / f"{name}.png")
        if made is not None:
            plots[name] = made
    blocks = compare_blocks(comparison, plots)
    write_text_atomic(out / "compare.md", to_markdown(blocks, out))
    write_text_atomic(out / "compare.html", to_html(blocks, "Runs compared"))
    write_text_atomic(out / "compare.json", json.dumps(comparison, indent=1) + "\n")
    if as_json:
        click.echo(json.dumps(comparison))
        return
    for line in compare_lines(comparison):
        click.echo(line)
    click.echo(f"Comparison: {out / 'compare.html'}")


def _runs_to_compare(runs: tuple[Path, ...], last: int | None) -> list[Path]:
    """The run folders to compare, oldest (the baseline) first: each argument's run (a
    config folder: its newest), or, for one config folder, its ``last`` newest runs."""
    from harness.runfolder.layout import RUN_JSON
    from harness.runfolder.reader import find_run, runs_in

    if len(runs) == 1:
        if (runs[0] / RUN_JSON).is_file():
            raise click.UsageError(
                "give two runs to compare, or a config folder (results/<config>) to compare "
                "its newest runs"
            )
        found = runs_in(runs[0])
        wanted = last or 2
        if len(found) < 2:
            raise click.UsageError(
                f"{runs[0]} holds one run ({found[0].name}): run the config again to have "
                "two to compare"
            )
        return found[-wanted:]
    if last is not None:
        raise click.UsageError("--last takes one config folder (results/<config>), not runs")
    return [find_run(r) for r in runs]


def compare_lines(comparison: dict[str, Any], width: int | None = None) -> list[str]:
    """The terminal's comparison in ``width`` columns (default: the terminal's): the runs,
    what differs, and the tables compare.md shows (:func:`~harness.report.pages.compare_page.
    compare_tables`: the same cells and marks), with the focus's head-to-head changes."""
    from harness.report.pages.compare_page import against_text, compare_tables
    from harness.report.pages.page import terminal_lines, terminal_width, wrap

    width = terminal_width() if width is None else width
    out = []
    for run in comparison["runs"]:
        out += wrap(
            f"{run['label']}: {run['name']}/{run['run_id']} ({run['rules_text']}, "
            f"{run['dice']} dice, {plural(run['games'], 'game')})",
            width,
        )
    if comparison["differences"]:
        out += wrap("What differs: " + "; ".join(comparison["differences"]) + ".", width)
    else:
        out.append("What differs: nothing in the setup.")
    if not comparison["shared"]:
        out.append("The runs share no strategy with games: nothing to compare.")
        return out
    out += wrap(against_text(comparison), width)
    return out + terminal_lines(compare_tables(comparison, focus_only=True), width)
