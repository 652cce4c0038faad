"""The ``harness`` command line: the top of the import graph.

This module only builds the ``harness`` group and registers the commands. **Where a command
lives:** in this room, :mod:`harness.commands`, one module per command group, named for
what it holds: play and replay in :mod:`harness.commands.play`, strategies in
:mod:`harness.commands.strategies`, init in :mod:`harness.commands.init`, report and compare
in :mod:`harness.commands.report`, tourney and config-schema in
:mod:`harness.commands.tourney`, sprt, tune, analyze, coach and diff in :mod:`.sprt`,
:mod:`.tune`, :mod:`.analyze` and :mod:`.coach`. A command module imports
:mod:`harness.commands.common` and lower rooms, never this one. So the arrows run one
way: this module -> command modules -> common -> the library.

User mistakes surface as one line, never as a traceback; every command ends with the
exit status of :mod:`harness.commands.common`'s rule (0 done, 1 cannot finish, 2 bad input,
3 forfeits under ``--strict``, 130 interrupted).

The console script (``harness = "harness.cli:main"``: :mod:`harness.cli` is this module's
face), ``python -m harness`` and ``python -m harness.cli`` all run :func:`main`.
"""

from __future__ import annotations

import click

from harness import __version__
from harness.commands.analyze import analyze
from harness.commands.coach import coach, diff
from harness.commands.common import HarnessGroup
from harness.commands.init import init
from harness.commands.play import play, replay
from harness.commands.report import compare_cmd, report
from harness.commands.sprt import sprt
from harness.commands.strategies import list_strategies
from harness.commands.tourney import config_schema_cmd, tourney
from harness.commands.tune import tune

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
