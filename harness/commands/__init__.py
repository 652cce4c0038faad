"""The commands room: every ``harness`` command, one module per command group.

:mod:`.group` builds the ``harness`` group and registers them (the top of the import
graph; :mod:`harness.cli` is its face for the console script); :mod:`.common` is what
the commands share (exit statuses, one-line errors, options). The others hold the
commands, named for what they hold: :mod:`.play` (play, replay), :mod:`.strategies`,
:mod:`.init`, :mod:`.report` (report, compare), :mod:`.tourney` (tourney,
config-schema), :mod:`.sprt`, :mod:`.analyze`, :mod:`.coach` (coach, diff). A command
holds options, output for people, ``--json`` for programs and exit statuses; the work is
in the rooms below. This face imports nothing, so that importing one command does not
load the others.
"""
