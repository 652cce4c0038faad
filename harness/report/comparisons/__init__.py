"""Comparing runs: :mod:`.compare` (what they share, what differs and whether it
matters), :mod:`.compare_twins` (which games are twins in two runs) and :mod:`.paired`
(paired differences, clustered by deal)."""
