/* The native `optimal` strategy (harness/strategies/optimal.py): a part of core.c (#included
 * after the board and the turn, which it reads). */

/* ---- optimal (harness/strategies/optimal.py) ---- */
static inline double opt_phi(double x) { return 0.5 * (1.0 + erf(x / sqrt(2.0))); }

/* Optimal._bust_board: the grill after my bust and the tile it turns (0: none), R9. */
static uint64_t opt_bust_board(const Game *g, uint64_t grill, int own, int *turned) {
    uint64_t after = grill | (own ? 1ULL << own : 0);
    *turned = bust_flip(g, after, own);
    return *turned ? after ^ (1ULL << *turned) : after;
}

/* Optimal._win_chance: my chance to win from these scores with `grill` left (R10, R11). */
static double opt_win_chance(const Game *g, const Strat *s, int seat, const int *scores,
                             const int *highest, uint64_t grill) {
    int mine = scores[seat];
    if (!grill) { /* over: R11 decides; equal keys share (players with no tiles) */
        int ties = 0;
        for (int k = 0; k < g->n; k++) {
            if (scores[k] > mine || (scores[k] == mine && highest[k] > highest[seat])) return 0.0;
            ties += scores[k] == mine && highest[k] == highest[seat];
        }
        return 1.0 / (double)ties;
    }
    int worms = 0;
    for (int t = 21; t <= 36; t++)
        if (grill >> t & 1) worms += WORMS[t];
    double sigma = sqrt(s->p[1] * (double)worms);
    double chance = 1.0;
    for (int other = 0; other < g->n; other++)
        if (other != seat) chance *= opt_phi((double)(mine - scores[other]) / sigma);
    return chance;
}

static int highest_below_top(const Game *g, int seat) { /* max(stack[:-1], default=0) */
    int high = 0;
    for (int k = 0; k + 1 < g->len[seat]; k++)
        if (g->stack[seat][k] > high) high = g->stack[seat][k];
    return high;
}

/* The worm swing of `seat`'s turn (Optimal._plan outside its end game, flip 0;
 * harness.analysis.account.swing_payoff): what claiming each grill tile (gv[tile]) and
 * stealing each rival's top (sv[victim]) gains the seat's margin (its worms minus the
 * others' mean: a steal's worms times P / (P - 1)); returns a bust's (minus the worms
 * of the seat's top, -0.0 for none). */
static double swing_values(const Game *g, int seat, double *gv, double *sv) {
    double share = steal_share(g->n);
    for (int t = 21; t <= 36; t++)
        if (g->grill >> t & 1) gv[t] = (double)WORMS[t];
    for (int v = 0; v < g->n; v++)
        if (g->top[v] && v != seat) sv[v] = (double)WORMS[g->top[v]] * share;
    int own = g->top[seat];
    return -(double)(own ? WORMS[own] : 0);
}

/* The best claim at each total (R7: the highest grill tile <= total, any lower one under
 * lower_any, or a rival's top showing exactly total), by the values of the claims (gv,
 * sv): choice[t] the grill tile, or -1 - victim for a steal, or 0 where R7 offers none.
 * Ties: a grill tile over a steal; under lower_any the lowest grill tile of the best
 * value (payoff.stop_claims). One rule for the stop values and the win account's vector. */
static void stop_choices(const Game *g, int seat, const double *gv, const double *sv,
                         int choice[DP_MAX_TOTAL + 1]) {
    uint64_t grill = g->grill;
    for (int t = 0; t <= DP_MAX_TOTAL; t++) choice[t] = 0;
    int current = 0;
    for (int total = grill ? lowest_bit(grill) : DP_MAX_TOTAL + 1; total <= DP_MAX_TOTAL; total++) {
        if (total <= 36 && (grill >> total & 1))
            if (!g->lower_any || !current || gv[total] > gv[current]) current = total;
        choice[total] = current;
    }
    for (int v = 0; v < g->n; v++)
        if (g->top[v] && v != seat) {
            int top = g->top[v];
            if (!choice[top] || sv[v] > gv[choice[top]]) choice[top] = -1 - v;
        }
}

/* Optimal._stop_values: the best claim's value at each total (stop_choices), from the
 * values of the claims (gv, sv); -inf where R7 offers none. */
static void stop_values(const Game *g, int seat, const double *gv, const double *sv,
                        double stop[DP_MAX_TOTAL + 1]) {
    int choice[DP_MAX_TOTAL + 1];
    stop_choices(g, seat, gv, sv, choice);
    for (int t = 0; t <= DP_MAX_TOTAL; t++)
        stop[t] = choice[t] > 0 ? gv[choice[t]] : choice[t] < 0 ? sv[-1 - choice[t]] : -INFINITY;
}

/* Optimal._plan at the turn's first roll: what each ending is worth, the turn solved. */
static int opt_plan(Game *g, int seat) {
    const Strat *s = g->strat[seat];
    int n = g->n;
    uint64_t grill = g->grill;
    double *gv = g->opt_grill[seat], *sv = g->opt_steal[seat];
    double bust;
    int own = g->top[seat];
    int endgame = popcount64(grill) <= (int)s->p[0];
    if (endgame) { /* the end game: chances to win */
        int highest[MAXP], scores[MAXP], ns[MAXP], nh[MAXP];
        for (int v = 0; v < n; v++) {
            highest[v] = 0;
            for (int k = 0; k < g->len[v]; k++)
                if (g->stack[v][k] > highest[v]) highest[v] = g->stack[v][k];
            scores[v] = g->score[v];
        }
        for (int t = 21; t <= 36; t++)
            if (grill >> t & 1) {
                memcpy(ns, scores, sizeof(ns));
                memcpy(nh, highest, sizeof(nh));
                ns[seat] += WORMS[t];
                nh[seat] = nh[seat] > t ? nh[seat] : t;
                gv[t] = opt_win_chance(g, s, seat, ns, nh, grill & ~(1ULL << t));
            }
        for (int v = 0; v < n; v++)
            if (g->top[v] && v != seat) {
                int top = g->top[v];
                memcpy(ns, scores, sizeof(ns));
                memcpy(nh, highest, sizeof(nh));
                ns[seat] += WORMS[top];
                ns[v] -= WORMS[top];
                nh[seat] = nh[seat] > top ? nh[seat] : top;
                nh[v] = highest_below_top(g, v);
                sv[v] = opt_win_chance(g, s, seat, ns, nh, grill);
            }
        int turned;
        uint64_t after = opt_bust_board(g, grill, own, &turned);
        memcpy(ns, scores, sizeof(ns));
        memcpy(nh, highest, sizeof(nh));
        if (own) {
            ns[seat] -= WORMS[own];
            nh[seat] = highest_below_top(g, seat);
        }
        bust = opt_win_chance(g, s, seat, ns, nh, after);
    } else { /* the worm swing */
        bust = swing_values(g, seat, gv, sv);
        if (s->p[2] != 0.0) {
            int turned;
            opt_bust_board(g, grill, own, &turned);
            if (turned) bust -= s->p[2] * (double)WORMS[turned];
        }
    }
    double stop[DP_MAX_TOTAL + 1];
    stop_values(g, seat, gv, sv, stop);
    g->opt_swing[seat] = !endgame && s->p[2] == 0.0;
    int found;
    return dp_solved(stop, bust, endgame, &g->opt_turn[seat], &found);
}

static inline int opt_state(const Turn *t) {
    return DP_LOOKUP[ALL_FACES ^ t->free][t->left][t->total];
}

/* turn.best_keep: the state the best keep of a roll in `state` leads to (`packed`: the
 * counts of the faces it shows not yet kept), the highest value, within DP_EPS the higher
 * face (it keeps ties); its face in *face. -1 (face 0): no face to keep. The keeps must be
 * solved. Optimal's pick and the win account's vector take the same keep by it. */
static inline int dp_best_keep(const DpTurn *w, int state, uint32_t packed, int *face) {
    int base = state << 6, child = -1;
    double best = -1e300;
    *face = 0;
    for (int f = 6; f >= 1; f--) {
        int count = count_of(packed, f);
        if (!count) continue;
        int k = DP_CHILD[base | f << 3 | (count - 1)];
        double v = dp_value(w, k);
        if (v > best + DP_EPS) {
            best = v;
            child = k;
            *face = f;
        }
    }
    return child;
}

static int opt_pick(const Game *g, int seat, const Turn *t) {
    const DpTurn *w = g->opt_turn[seat];
    int state = opt_state(t), base = state << 6, child[6], shown = 0, face;
    for (int f = 6; f >= 1; f--) {
        int count = count_of(t->packed, f);
        if (count) child[shown++] = DP_CHILD[base | f << 3 | (count - 1)];
    }
    dp_need_all(w, child, shown); /* solved now if no turn of this payoff needed them */
    dp_best_keep(w, state, t->packed, &face);
    return face;
}

static Claim opt_claim(const Game *g, int seat, const Claim *choices, int n) {
    /* max by (value, swing); choices are sorted by swing, so the first of the best value */
    int best = 0;
    for (int k = 1; k < n; k++) {
        double a = choices[k].victim < 0 ? g->opt_grill[seat][choices[k].tile]
                                         : g->opt_steal[seat][choices[k].victim];
        double b = choices[best].victim < 0 ? g->opt_grill[seat][choices[best].tile]
                                            : g->opt_steal[seat][choices[best].victim];
        if (a > b) best = k;
    }
    return choices[best];
}
