"""Exact analysis of Pickomino turns.

The turn solver (:mod:`harness.analysis.turn`) and the board payoffs
(:mod:`harness.analysis.board`) are pure computation with no engine internals, so they
are part of the package's public surface: strategies may build on them, as
``strategies/optimal.py`` does. The Monte Carlo check through the real engine
(:mod:`harness.analysis.simulate`) and the command line (:mod:`harness.commands.analyze`)
are not imported here.
"""
