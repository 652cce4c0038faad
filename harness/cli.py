"""The ``harness`` command line: the top of the import graph.

This module only builds the ``harness`` group and registers the commands. **Where a command
lives:** in the ``cli.py`` of the room whose work it runs (``harness/<room>/cli.py``): play
and replay in :mod:`harness.play.cli`, strategies and config-schema in
:mod:`harness.plugins.cli`, init in :mod:`harness.configs.cli`, report and compare in
:mod:`harness.report.cli`, tourney, sprt, analyze, coach and diff in their rooms. A command
module imports :mod:`harness.cli_common` and lower modules, never this one. So the arrows run
one way: this module -> command modules -> cli_common -> the library.

User mistakes surface as one line, never as a traceback; every command ends with the
exit status of :mod:`harness.cli_common`'s rule (0 done, 1 cannot finish, 2 bad input,
3 forfeits under ``--strict``, 130 interrupted).

The console script (``harness = "harness.cli:main"``), ``python -m harness`` and
``python -m harness.cli`` all run :func:`main`.
"""

from __future__ import annotations

import click

from harness import __version__
from harness.analysis.cli import analyze
from harness.cli_common import HarnessGroup
from harness.coach.cli import coach, diff
from harness.configs.cli import init
from harness.play.cli import play, replay
from harness.plugins.cli import list_strategies
from harness.report.cli import compare_cmd, report
from harness.sprt.cli import sprt
from harness.tourney.cli import config_schema_cmd, tourney
from harness.tune.cli import tune

COMMANDS: tuple[click.Command, ...] = (
    play,
    replay,
    list_strategies,
    config_schema_cmd,
    tourney,
    analyze,
    coach,
    diff,
    report,
    compare_cmd,
    sprt,
    tune,
    init,
)


@click.group(cls=HarnessGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harness")
def main() -> None:
    """Tournament harness for the dice game Pickomino (Heckmeck, Piko Piko)."""


for _command in COMMANDS:  # `harness --help` lists them by name (click sorts them)
    main.add_command(_command)

if __name__ == "__main__":  # pragma: no cover
    main()
