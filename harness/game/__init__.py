"""The game: the rules, the dice, the engine and what a strategy sees of it (engine tier).

Pure and below everything else: nothing here imports from harness's other rooms but the
ground floor (:mod:`harness.errors`, :mod:`harness.interrupts`, the run folder's schema).

* :mod:`~harness.game.rules` - components and variants (R1-R11); :mod:`~harness.game.dice`
  (the rolls and their weights); :mod:`~harness.game.board` - the board as plain values
  and one game's ``Board``, private to the engines (observers are handed it to read);
* :mod:`~harness.game.turn` - the turn as a resumable state (R4-R10, written once);
* :mod:`~harness.game.engine` - plays games, turn by turn; :mod:`~harness.game.view` and
  :mod:`~harness.game.strategy` - the public strategy API (also ``harness.strategy``,
  ``harness.view``, ``harness.rules``);
* :mod:`~harness.game.record` - game records and replay; :mod:`~harness.game.ranking` and
  :mod:`~harness.game.seating` - the ranking of a game's seats and the seat orders of a deal;
* :mod:`~harness.game.engines` - which engine plays (``ENGINES``: auto, python, native).

The native engine, which plays the same games in C, is :mod:`harness.native`.
"""
