"""Training the win-probability models of :mod:`harness.winprob` (issue 32).

``python -m harness.training --players 2 --seed 1``: seeded, with progress; writes the
model file and its sha256. docs/winprob.md gives the command of each shipped model,
its cost and its measured calibration.
"""
