"""Each seat's chance to win a game of Pickomino from a position between turns.

The room of the win-probability evaluator (issue 32): :class:`Position` (what decides
the game once a turn is over), :func:`endings` (the ways a turn can end), the
:class:`Evaluator` (exact at the end of a game, a trained integer network before, the
normal approximation where no model is shipped) and the model files. Pure computation,
public surface like :mod:`harness.analysis.turn`: strategies may build on it (the
built-in ``win-optimal`` does). The training is :mod:`harness.training`'s.
"""

from harness.winprob.evaluator import (
    Evaluator,
    evaluator,
    model_name,
    normal_chances,
    rules_model,
    shipped_model,
)
from harness.winprob.features import feature_count, features
from harness.winprob.model import Model, ModelError, load
from harness.winprob.payoff import (
    WinPayoff,
    ending_chances,
    ending_vectors,
    stop_claims,
    stop_values,
    win_payoff,
)
from harness.winprob.position import Ending, Position, endings, result_shares

__all__ = [
    "Ending",
    "Evaluator",
    "Model",
    "ModelError",
    "Position",
    "ending_chances",
    "ending_vectors",
    "endings",
    "evaluator",
    "feature_count",
    "features",
    "load",
    "model_name",
    "normal_chances",
    "result_shares",
    "rules_model",
    "shipped_model",
    "stop_claims",
    "stop_values",
    "WinPayoff",
    "win_payoff",
]
