"""Adaptive tournaments (``schedule: adaptive``): games go in batches of deals to the
tables whose comparisons are still open, each comparison an anytime-valid confidence
sequence (:mod:`harness.stats.sequential_cs`).

:mod:`.schedule` holds the comparisons and decides each batch from the ones before;
:mod:`.loop` is the runner's play loop for it. The keys are checked in
:mod:`harness.tourney.config.adaptive`.
"""
