"""Pure statistics for reports, compare and SPRT: intervals, Elo, ratings, sequential tests.

The ground floor: math, numpy and scipy only, and nothing of harness, so every room may
use it. No I/O and no pandas: functions take counts and sums (the aggregates a run of any
size reduces to) and return numbers. Undefined results are ``nan``, never a made-up
number; callers show them as a dash.

Every interval that aggregates games (standings, ratings, head-to-head, seat advantage,
the convergence curve) is clustered by deal (the word is defined in
:mod:`harness.game.seating`), a deal of the whole run: all the games of deal d, at every table
and in every seat order, are one cluster. Why, for either dice mode:

* duplicate dice: every seat order of deal d sees the same dice, and so does every
  table (deal d's seed comes from the config seed and d only). A strategy's
  results at its tables are then correlated through the shared deal: clustering by
  (table, deal) would count one lucky deal as independent luck at each table and make the
  intervals too narrow (benchmarks/coverage.py measures by how much).
* independent dice: seat order k of deal d draws one stream, the same at every table, so
  the games of (deal d, order k) at different tables share their dice just as well; games
  of one deal in other orders do not, but grouping them in the deal's cluster costs
  nothing measurable (a cluster coarser than the dependence is still valid; it only
  leaves fewer degrees of freedom, and runs have hundreds of deals) and keeps one rule.

The estimate is a ratio of sums over deals and its variance the cluster-robust
(linearised ratio) variance, with a t quantile on deals - 1 degrees of freedom, as the
game pairs of chess engine testing are treated. Moments of disjoint sets of deals add
up, so a run is reduced batch by batch (:mod:`harness.report.summaries.aggregate` does). Runs stored
when deal seeds were per table are clustered by deal too, which is conservative there.
A plain Wilson interval over games (``share_interval(m, by_deal=False)``) is kept for
callers that have truly independent games.

Ratings are a Plackett-Luce model fitted to finishing orders (with two players it is
Bradley-Terry), reported on the Elo scale, with cluster-robust (sandwich) intervals
clustered by deal.

The modules: :mod:`~harness.stats.intervals` (Wilson, cluster-robust ratio moments, LOS,
differences, Holm), :mod:`~harness.stats.elo` (the Elo scale),
:mod:`~harness.stats.ratings` (Plackett-Luce / Bradley-Terry),
:mod:`~harness.stats.luck` (luck-adjusted estimates: a control variate of mean zero,
its coefficient cross-fitted by deal) and :mod:`~harness.stats.sequential` (the SPRT
on deals, raw and luck-adjusted) and :mod:`~harness.stats.sequential_cs` (anytime-valid
comparisons of two entrants: confidence sequences with an indifference zone) and
:mod:`~harness.stats.stagewise` (the estimate interval at a comparison's stop, exact for
the design that stopped it: stagewise ordering). Every
public name is here too: ``from harness import stats; stats.Moments``.
"""

from harness.stats.elo import ELO_PER_NAT, elo_to_score, score_to_elo
from harness.stats.intervals import (
    NAN,
    Z95,
    Moments,
    diff_test,
    games_to_separate,
    holm,
    los,
    share_interval,
    share_se,
    t_quantile,
    wilson,
    z_quantile,
)
from harness.stats.luck import (
    CONTROL_FIELDS,
    FOLDS,
    ControlMoments,
    ahead,
    control_rows,
    fold_of,
    pair_points,
    pair_rows,
    seat_rows,
    unit_totals,
    versus_others,
    win_control,
    win_control_name,
    win_points,
)
from harness.stats.ratings import (
    ChoiceData,
    Ratings,
    choice_events,
    connected,
    fit_plackett_luce,
    pl_loglik,
    pl_scores,
    present,
    sandwich_cov,
    with_virtual_draws,
)
from harness.stats.sequential import (
    MIN_DEALS,
    PRIOR_COEF,
    AdjustedSprt,
    Sprt,
    deal_elo,
    deal_outcomes,
    sprt_bounds,
    sprt_llr,
    sprt_llr_normal,
    sprt_llr_scores,
)
from harness.stats.sequential_cs import (
    CS_MIN_DEALS,
    ELO_ZONE,
    PRIOR_VAR,
    SHARE_ZONE,
    T_OPT,
    VERDICTS,
    PairSequence,
    cs_mixing,
    cs_radius,
    pair_verdict,
    zone_of_elo,
)
from harness.stats.stagewise import (
    STOP_LEVEL,
    StoppingDesign,
    sequence_design,
    sequence_interval,
    stop_interval,
    stop_probability,
)

__all__ = [
    "CONTROL_FIELDS",
    "CS_MIN_DEALS",
    "ELO_PER_NAT",
    "ELO_ZONE",
    "FOLDS",
    "MIN_DEALS",
    "NAN",
    "PRIOR_COEF",
    "PRIOR_VAR",
    "SHARE_ZONE",
    "STOP_LEVEL",
    "T_OPT",
    "VERDICTS",
    "Z95",
    "AdjustedSprt",
    "ChoiceData",
    "ControlMoments",
    "Moments",
    "PairSequence",
    "Ratings",
    "Sprt",
    "StoppingDesign",
    "ahead",
    "choice_events",
    "connected",
    "control_rows",
    "cs_mixing",
    "cs_radius",
    "deal_elo",
    "deal_outcomes",
    "diff_test",
    "elo_to_score",
    "fit_plackett_luce",
    "fold_of",
    "games_to_separate",
    "holm",
    "los",
    "pair_points",
    "pair_rows",
    "pair_verdict",
    "pl_loglik",
    "pl_scores",
    "present",
    "sandwich_cov",
    "score_to_elo",
    "seat_rows",
    "sequence_design",
    "sequence_interval",
    "share_interval",
    "share_se",
    "sprt_bounds",
    "sprt_llr",
    "sprt_llr_normal",
    "sprt_llr_scores",
    "stop_interval",
    "stop_probability",
    "t_quantile",
    "unit_totals",
    "versus_others",
    "win_control",
    "win_control_name",
    "wilson",
    "win_points",
    "with_virtual_draws",
    "z_quantile",
    "zone_of_elo",
]
