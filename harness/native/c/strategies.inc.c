/* The built-in strategies' decisions, transcribed from the strategies package.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== strategies' decisions (harness/strategies/) ======================================= */
/* view.rng of a seat, seeded when first drawn from. */
static inline MT *seat_rng(Game *g, int seat) {
    if (!g->rng_ready[seat]) {
        mt_seed_u64(&g->rng[seat], derive3(g->gseed, "strategy", seat));
        g->rng_ready[seat] = 1;
    }
    return &g->rng[seat];
}

/* harness/strategies/_common.py most_points: the most points, ties to the higher face: the
 * largest points * 8 + face, two table lookups (no branch: picks are as unpredictable
 * as the dice). `packed` holds the legal faces only. */
static inline int most_points(uint32_t packed) {
    int lo = BEST_LO[(packed >> 4) & 0xFFF], hi = BEST_HI[(packed >> 16) & 0xFFF];
    return (lo > hi ? lo : hi) & 7;
}

/* view.choices as a face mask: the faces with a count in a restricted roll. */
static inline unsigned choices_of(uint32_t packed) {
    unsigned mask = 0;
    for (int f = 1; f <= 6; f++) mask |= (unsigned)((packed >> (4 * f) & 15) != 0) << f;
    return mask;
}

/* The face of the k-th set bit of a face mask, ascending (view.choices[k]). */
static inline int nth_face(unsigned mask, int k) {
    for (int f = 1; f <= 6; f++)
        if (mask >> f & 1) {
            if (k == 0) return f;
            k--;
        }
    return 0;
}

/* The face a seat keeps from the roll (Strategy.pick). */
static int strat_pick(Game *g, int seat, const Turn *t) {
    const Strat *s = g->strat[seat];
    int worm_shown = (t->packed >> (4 * WORM) & 15) != 0;
    switch (s->kind) {
    case S_THRESHOLD: /* threshold.py */
        if (!t->worm && worm_shown && t->left <= 4) return WORM;
        return most_points(t->packed);
    case S_WORM_FIRST: /* worm_first.py */
        if (!t->worm && worm_shown) return WORM;
        return most_points(t->packed);
    case S_SIMPLE: /* simple.py, env_heuristic.py: worms once two faces are kept */
    case S_ENV_HEURISTIC:
        if (worm_shown && popcount32(ALL_FACES ^ t->free) >= 2) return WORM;
        return most_points(t->packed);
    case S_TACTICIAN: { /* tactician.py */
        int best = most_points(t->packed);
        if (best != WORM && !t->worm && worm_shown &&
            (double)(t->left - count_of(t->packed, best)) <= s->p[1])
            return WORM;
        return best;
    }
    case S_OPTIMAL:
    case S_WIN_OPTIMAL: /* optimal's programme, on the evaluator's values (winprob.inc.c) */
        return opt_pick(g, seat, t);
    case S_PYTHON:
        return host_pick(g, seat, t);
    case S_RANDOM: /* random_play.py: view.rng.choice(view.choices) */
    {
        unsigned choices = choices_of(t->packed);
        return nth_face(choices, (int)mt_randbelow(seat_rng(g, seat), popcount32(choices)));
    }
    case S_GREEDY:
    default:
        return most_points(t->packed);
    }
}

/* tactician.py _claim_value, as a double: gain, or gain + gain / (players - 1). */
static inline double claim_value(Claim c, int players) {
    int gain = WORMS[c.tile];
    if (c.victim < 0) return (double)gain;
    return (double)gain + (double)gain / (double)(players - 1);
}

static int tactician_stop(Game *g, int seat, const Turn *t, const Strat *s) {
    Claim claims[NTILES + 1];
    int nc = legal_claims(g, seat, t->total, claims);
    if (!nc) return 0;
    double value = claim_value(claims[0], g->n);
    for (int i = 1; i < nc; i++) {
        double v = claim_value(claims[i], g->n);
        if (v > value) value = v;
    }
    int left = t->left;
    if (left <= 2) return 1;
    if (popcount64(g->grill) <= 3) {
        int best_other = -1000000;
        for (int i = 0; i < g->n; i++)
            if (i != seat && g->score[i] > best_other) best_other = g->score[i];
        int lead = g->score[seat] - best_other;
        if (lead > 0) return 1;
        if ((double)lead + value < 0 && left >= 3) return 0;
    }
    int kept = popcount32(ALL_FACES ^ t->free);
    int cost = g->len[seat] ? WORMS[g->top[seat]] : 0;
    double risk = s->p[0] * ((double)kept / 6.0 + (double)cost / 8.0);
    double wanted = 1.0 + (double)(left - 2) * (1.0 - risk) / 2.0;
    return value >= wanted;
}

static int strat_stop(Game *g, int seat, const Turn *t) {
    const Strat *s = g->strat[seat];
    switch (s->kind) {
    case S_THRESHOLD:
        return (double)t->total >= s->p[0];
    case S_WORM_FIRST:
        return (double)t->total >= s->p[0] || (double)t->left < s->p[1];
    case S_ENV_HEURISTIC: /* total >= grill[0]: the lowest face-up tile, seen at the turn's start */
        return t->total >= t->low;
    case S_TACTICIAN:
        return tactician_stop(g, seat, t, s);
    case S_PYTHON:
        return host_stop(g, seat);
    case S_RANDOM:
        return mt_random(seat_rng(g, seat)) < s->p[0];
    case S_OPTIMAL:
    case S_WIN_OPTIMAL: { /* the state was solved when opt_pick compared its value */
        int i = opt_state(t);
        dp_need(g->opt_turn[seat], i);
        return dp_stops(g->opt_turn[seat], i);
    }
    case S_GREEDY:
    case S_SIMPLE:
    default:
        return 1;
    }
}

static Claim strat_claim(Game *g, int seat, int total, const Claim *choices, int n) {
    const Strat *s = g->strat[seat];
    if (s->kind == S_RANDOM) /* view.rng.choice(choices) */
        return choices[mt_randbelow(seat_rng(g, seat), (uint32_t)n)];
    if (s->kind == S_OPTIMAL || s->kind == S_WIN_OPTIMAL) return opt_claim(g, seat, choices, n);
    if (s->kind == S_PYTHON) return host_claim(g, seat, total, choices, n);
    return choices[0]; /* Strategy.claim: max(choices, key=swing), the first */
}

