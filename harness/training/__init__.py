"""Training the win-probability models of :mod:`harness.winprob` (issue 32).

``python -m harness.training --players 2 --seed 1``: seeded, with progress; writes the
model file and its sha256. ``python -m harness.training.calibrate``: a temperature (or
a per-seat map) of a model's logits fitted on games of its own, folded into the file.
docs/winprob.md gives the commands of each shipped model, their cost and its measured
calibration.
"""
