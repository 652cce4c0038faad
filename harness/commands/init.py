"""``harness init [DIR]``: a starter bot and a config that run as they are.

What a new user needs to go from ``pip install`` to their own bot in a tournament:
``DIR/bot.py`` (a small strategy written only against the public API,
:mod:`harness.strategy`) and ``DIR/config.yaml`` (that bot against three built-ins), so
that ``harness tourney DIR/config.yaml`` plays at once. Nothing is ever overwritten: if
either file exists, nothing is written and one line says which.
"""

from __future__ import annotations

from pathlib import Path

import click

from harness.commands.common import user_errors
from harness.errors import ConfigError, safe_text
from harness.runfolder.layout import path_problem

BOT_FILE = "bot.py"
CONFIG_FILE = "config.yaml"

BOT = '''\
"""My Pickomino bot: a starting point written against harness's public strategy API.

Try it:   harness play bot.py:MyBot greedy --seed 1
          harness play 'bot.py:MyBot(target=28)' greedy --seed 1
Play it:  harness tourney config.yaml
See:      harness strategies   (the built-ins to measure it against)
"""

from __future__ import annotations

from harness.strategy import WORM, Strategy, View


class MyBot(Strategy):
    """Keeps a worm as soon as it can, then the most points; stops at target."""

    # How configs and the command line name it; the first docstring line is its description.
    name = "my-bot"

    def __init__(self, target: int = 25) -> None:
        # Constructor arguments are the bot's parameters: 'bot.py:MyBot(target=28)' on
        # the command line, `params: {target: 28}` in a config, or a sweep of values to
        # tune it: `sweep: {target: [24, 26, 28]}` (one entrant per value).
        self.target = target

    def pick(self, view: View) -> int:
        """Which face to set aside this roll: one of view.choices (6 is the worm)."""
        if WORM in view.choices and not view.has_worm:
            return WORM  # no tile can be claimed without a worm
        # Otherwise the face worth most in total: its count times its points.
        return max(view.choices, key=lambda face: view.counts[face] * min(face, 5))

    def stop(self, view: View) -> bool:
        """Whether to stop and claim a tile (asked only when stopping would claim one)."""
        return view.total >= self.target
'''

CONFIG = """\
# My bot against three built-in strategies, two players a table.
#   harness tourney config.yaml        (from this folder, or give its path)
# A file plugin's path is taken relative to this file's folder.
name: my_tourney
rules: official
players: 2
format: round_robin      # a table for every pair of entrants
entrants:
  - strategy: bot.py:MyBot   # a file plugin: path/to/file.py:ClassName
    name: my-bot             # how the standings name it
  - greedy
  - threshold(target=28)     # a built-in with a parameter
  - simple
deals: 200               # deals per table; each is played in both seat orders
seed: 1
dice: duplicate          # both seat orders of a deal see the same dice
"""


def write_starter(folder: Path) -> list[Path]:
    """Write the starter bot and config into ``folder`` (created if missing) and return
    their paths. ConfigError (one line) if either file exists: nothing is written then."""
    files = {folder / BOT_FILE: BOT, folder / CONFIG_FILE: CONFIG}
    existing = [p for p in files if p.exists() or p.is_symlink()]
    if existing:
        names = " and ".join(safe_text(str(p), 200) for p in existing)
        verb = "exists" if len(existing) == 1 else "exist"
        raise ConfigError(f"{names} already {verb}; nothing written (choose another folder)")
    why = path_problem(folder, folder=True)
    if why is not None:
        raise ConfigError(safe_text(why, 300))
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        with path.open("x", encoding="utf-8") as fh:  # "x": never over a file made meanwhile
            fh.write(text)
    return list(files)


@click.command("init")
@click.argument("folder", default=".", type=click.Path())
@user_errors
def init(folder: str) -> None:
    """Write a starter bot (bot.py) and a config (config.yaml) into FOLDER (default: here).

    They run as they are: harness tourney FOLDER/config.yaml. Existing files are never
    overwritten.
    """
    written = write_starter(Path(folder))
    for path in written:
        click.echo(f"Wrote {path}")
    config = written[1]
    click.echo(f"Next: edit {written[0]}, then run: harness tourney {config}")
