"""harness.env: train Pickomino agents on the engine, judge them in tournaments.

* :mod:`harness.env.encoding` -- the one observation encoding and action numbering
  (docs/rl.md, field by field), shared by every environment and the policy adapter;
* :mod:`harness.env.setup` -- the environments' settings as one checked value
  (:class:`~harness.env.setup.EnvSetup`: ``setup=``, or its keywords);
* :mod:`harness.env.game` -- the engine stepped decision by decision (:class:`SteppedGame`),
  which game an episode is (the tournaments' deal seeds), rewards;
* :mod:`harness.env.aec` -- PettingZoo's AEC environment, every seat an agent (the ``rl``
  extra: ``pip install 'pickomino-harness[rl]'``);
* :mod:`harness.env.gym` -- Gymnasium's single-agent environment against harness
  strategies (the ``rl`` extra);
* :mod:`harness.env.vector` -- N games a call with numpy arrays, in C where built;
* :mod:`harness.env.opponents` -- the agent's opponents under the seat settings (time
  limits, process isolation), held as a tournament holds its seats;
* :mod:`harness.env.policy` -- a trained policy as a harness strategy.

The room sits beside the tournament runner: it plays through the engines (Python and
native), takes its deal seeds from :mod:`harness.tourney.plan` (and the turn cap's bound
from the config's) and builds guarded seats through :func:`harness.play.open_seats`;
nothing below imports it.
"""
