"""The report's numbers: a run's games read into fixed-size sums (:mod:`.aggregate`) and
the one JSON-ready summary (:mod:`.summary`, which re-exports the public names of its
sections: :mod:`.summary_gauntlet`, :mod:`.summary_mirrors`, :mod:`.luck`,
:mod:`.same_games`). Reads stored results only; draws and writes nothing."""
