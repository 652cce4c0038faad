/* The luck and skill account, kept during play: a part of core.c (#included after the
 * strategies, optimal.inc.c's worm-swing payoff among them, before the engine's loop,
 * engine.inc.c, whose turns it hears).
 *
 * harness/analysis/account.py's Accountant, transcribed: for the seat whose turn it is,
 * the worm-swing payoff of the turn (swing_values and stop_values, optimal's own), the
 * turn's programme solved (the per-thread cache of turn_dp.inc.c, optimal's: an optimal seat's
 * turn is the same payoff, solved once), and per seat the sums of par (roll[START] at each
 * turn's start), luck (V* - roll[state] of each roll; V* the best keep's value, or the
 * bust's for a roll with no new face), win-weighted luck (k * luck, k the win model's
 * slope at the turn's start), the regret of picks (V* - value[child]), of stop-or-roll-on
 * decisions (value[state] - the stop's value or roll[state], where a stop is offered
 * with dice left) and of claims (the best claim's value, stop[total], - the chosen one's),
 * and the counts: rolls, picks (two faces or more), stops (offered with dice left),
 * claims (two legal claims or more). Every float operation is the Accountant's, in the
 * same order, on the same values (the native turn solver's are numpy's, bit for bit), so
 * the sums are the same bits. A seat is accounted whoever decides for it: a built-in, an
 * optimal, a Python seat (its host decides; the account is here).
 *
 * When it books: as the Accountant hears the Python engine's events. A roll is booked
 * once its pick is made (the `kept` event) or when it busts (R5): a pick that forfeits
 * books nothing of its roll; a stop-or-roll-on decision once it is known (rolling on: at
 * the next roll's booking; stopping: at the claim); a claim once chosen. A turn still open
 * when the game ends (a forfeit in it) is taken back (acc_finish): its seat's ledger holds
 * what it held before that turn, as the game's rows count nothing of a forfeit's turn.
 *
 * The engine calls acc_turn, acc_fetch (before a pick), acc_kept (after it), acc_bust
 * and acc_claim behind a test of g->acc (a local of play_turn) the processor predicts:
 * with the account off, those tests are all it costs.
 */

/* The engine's hooks stay out of its loop (noinline), behind ACCOUNTED(acc), a test the
 * processor predicts as false: with the account off they cost that test, nothing else. */
#if defined(__GNUC__) || defined(__clang__)
#define ACC_HOOK static __attribute__((noinline))
#define ACCOUNTED(acc) __builtin_expect((acc) != NULL, 0)
#else
#define ACC_HOOK static
#define ACCOUNTED(acc) ((acc) != NULL)
#endif

/* ACC_SPREAD (layout.inc.c): account.WIN_SPREAD, sigma^2 per worm on the grill */
#define ACC_PI 3.141592653589793 /* math.pi */

/* A seat's stored account (schema.ACCOUNT_FIELDS): ACC_SUMS float64 sums, then
 * ACC_COUNTS int16 counts, in the order of layout.inc.c's ACC_NAMES. */
typedef struct {
    double par, luck, wluck, regret_pick, regret_stop, regret_claim;
    double winluck; /* the win account's luck (harness.analysis.units), ACC_WINLUCK */
    double winvec;  /* the seat's part of every roll's win luck (the vector), ACC_WINVEC */
    int rolls, picks, stops, claims;
} AccLedger;

/* The vector's turn at three players or more (WinAccountant._other_seats): for each other
 * seat k (seat[k]), its chance under the roller's best play per state, as turn.py's
 * policy_arrays gives it (val: the state's value, roll: its roll value), from its chance
 * after the bust and after the claim the play makes at each total (stop, -inf: none). */
typedef struct {
    int seat[MAXP - 1];
    double bust[MAXP - 1];
    double stop[MAXP - 1][DP_MAX_TOTAL + 1];
    double val[MAXP - 1][DP_MAX_STATES];
    double roll[MAXP - 1][DP_MAX_STATES];
    double terms[MAXP - 1][DP_MAX_ROWS];
    int arg_a[DP_MAX_ROWS], arg_b[DP_MAX_ROWS]; /* acc_row_keeps' two levels of the tree */
} AccVec;

struct Account {
    AccLedger led[MAXP];
    AccLedger *cur;   /* the turn-taker's */
    AccLedger before; /* the turn-taker's ledger before this turn: a forfeit's turn undone */
    const DpTurn *w;  /* the turn's programme, every state solved */
    const DpTurn *ww; /* the same for the win payoff (the evaluator's ending chances) */
    int win;          /* the win account is kept (an evaluator installed for the count) */
    AccStats *stats;  /* this thread's (the cache's): what the account did */
    double k;         /* the win model's slope at the turn's start */
    int state;        /* the turn's state (a DP state index) */
    int pending;      /* the state a stop-or-roll-on decision is pending in; -1: none */
    int open;         /* a turn is open (not ended by a claim or a bust) */
    int seat;         /* whose turn it is */
    double t_par, t_luck, t_regret; /* the open turn's own sums: the identity's check */
    double vec_before[MAXP]; /* every seat's winvec before this turn: a forfeit's undone */
    int nv;                  /* other seats the vector evaluated this turn (0: two players) */
    AccVec *vx;              /* their values (made when first needed; kept by acc_start) */
};

/* account.win_slope: d/dx of prod_{j != seat} Phi((score[seat] + x - score[j]) / sigma)
 * at x = 0, sigma = sqrt(2.5 * worms on the grill); 0 with no worm on the grill. */
static double acc_win_slope(const Game *g, int seat, int grill_worms) {
    if (grill_worms <= 0) return 0.0;
    double sigma = sqrt(ACC_SPREAD * (double)grill_worms);
    double inv_sqrt_2pi = 1.0 / sqrt(2.0 * ACC_PI);
    double dens[MAXP], cdfs[MAXP];
    int m = 0;
    for (int other = 0; other < g->n; other++)
        if (other != seat) {
            double z = (double)(g->score[seat] - g->score[other]) / sigma;
            dens[m] = exp(-0.5 * z * z) * inv_sqrt_2pi / sigma;
            cdfs[m++] = 0.5 * (1.0 + erf(z / sqrt(2.0)));
        }
    double slope = 0.0;
    for (int j = 0; j < m; j++) {
        double term = dens[j];
        for (int c = 0; c < m; c++)
            if (c != j) term *= cdfs[c];
        slope += term;
    }
    return slope;
}

/* The game starts: nothing booked. */
/* `win`: the win account is kept too (its luck stored: winluck; no evaluator installed for
 * the player count: NaN). */
ACC_HOOK void acc_start(Game *g, int win) {
    AccVec *vx = g->acc->vx;
    memset(g->acc, 0, sizeof(*g->acc));
    g->acc->vx = vx;
    g->acc->pending = -1;
    g->acc->win = win && wp_mode[g->wp_slot][g->n] != 0;
}

/* The whole programme of a turn solved (the account reads every state's value). */
static void acc_complete(const DpTurn *w) {
    int p = DP_PLACE[DP_START];
    if (w->done[p >> 6] >> (p & 63) & 1) return;
    dp_need(w, DP_START);
    ((DpTurn *)w)->par = dp_value(w, DP_START);
}

/* WinAccountant.turn_started's payoff: the win-unit programme of `seat`'s turn, the
 * evaluator's ending chances (winprob.inc.c's plan cache) as stop values (a win-optimal
 * seat's own plan: the same payoff, solved once). -1: no memory. */
static int acc_win_turn(Game *g, int seat, const DpTurn **out) {
    if (g->strat[seat]->kind == S_WIN_OPTIMAL) {
        *out = g->opt_turn[seat];
    } else {
        double gv[41], sv[MAXP], stop[DP_MAX_TOTAL + 1], bust;
        int again, found;
        if (wp_endings(g, seat, gv, sv, &bust, &again) < 0) return -1;
        stop_values(g, seat, gv, sv, stop);
        if (dp_solved(stop, bust, !again, out, &found) < 0) return -1;
        dp_cache->acc.win_lookups++;
        dp_cache->acc.win_misses += !found;
    }
    acc_complete(*out);
    return 0;
}

/* The keep each row of a template takes (keep[j * 9 + c]: c dice of free slot j) by the
 * roller's values `mine`, in best_keep's order, rows in template order. `mine[j * 9]` is
 * -inf (slot j not shown): a row that shows no free face (the bust row; every row when no
 * face is free) keeps slot 0's 0, which the caller values as the bust. */
static const int *acc_row_keeps(AccVec *x, const DpTemplate *tpl, int nfree, const double *mine) {
    int *above = x->arg_a, *here = x->arg_b;
    if (nfree == 0) { /* every face kept: one row, a sure bust */
        above[0] = 0;
        return above;
    }
    const uint8_t *count = tpl->count[0];
    for (int k = 0; k < tpl->level[0]; k++) above[k] = count[k];
    for (int j = 1; j < nfree; j++) { /* a node's best so far is mine[its keep] */
        const uint16_t *par = tpl->par[j];
        count = tpl->count[j];
        for (int k = 0; k < tpl->level[j]; k++) {
            int a = above[par[k]], keep = j * 9 + count[k];
            /* -inf (slot j not shown) never beats; selected by a mask, not a branch (the
             * rows' choices are unpredictable: a branch cost a third of the evaluation) */
            int better = mine[keep] > mine[a] + DP_EPS;
            here[k] = a ^ ((a ^ keep) & -better);
        }
        int *swap = above;
        above = here, here = swap;
    }
    return above;
}

/* Every seat's chance after each ending of `seat`'s turn (the evaluator's, the network
 * run once an ending), and for each other seat k (x->seat[k]) its chance after the bust
 * (x->bust[k]) and after the claim the roller's best play makes at each total
 * (x->stop[k], -inf: none), chosen as stop_values chooses from the roller's own chances.
 * Returns the other seats' count. */
static int acc_vector_endings(const Game *g, int seat, AccVec *x) {
    int n = g->n;
    WpPos here, p;
    wp_from_game(g, &here);
    here.to_move = seat;
    double gvv[HIGHEST_TILE + 1][MAXP], svv[MAXP][MAXP], bv[MAXP];
    uint64_t grill = g->grill;
    for (int t = LOWEST_TILE; t <= HIGHEST_TILE; t++)
        if (grill >> t & 1) {
            p = here;
            wp_claim(&p, seat, t, -1);
            p.to_move = (seat + 1) % n;
            wp_chances_all(&p, gvv[t]);
        }
    for (int v = 0; v < n; v++)
        if (v != seat && here.len[v]) {
            p = here;
            wp_claim(&p, seat, here.stack[v][here.len[v] - 1], v);
            p.to_move = (seat + 1) % n;
            wp_chances_all(&p, svv[v]);
        }
    p = here;
    wp_bust(g, &p, seat);
    p.to_move = (seat + 1) % n;
    wp_chances_all(&p, bv);
    /* the claim at each total, as stop_values chooses it from the roller's chances */
    double gv[HIGHEST_TILE + 1], sv[MAXP];
    for (int t = LOWEST_TILE; t <= HIGHEST_TILE; t++)
        if (grill >> t & 1) gv[t] = gvv[t][seat];
    for (int v = 0; v < n; v++)
        if (v != seat && here.len[v]) sv[v] = svv[v][seat];
    int choice[DP_MAX_TOTAL + 1];
    stop_choices(g, seat, gv, sv, choice);
    const double *chosen[DP_MAX_TOTAL + 1];
    for (int t = 0; t <= DP_MAX_TOTAL; t++)
        chosen[t] = choice[t] > 0 ? gvv[choice[t]] : choice[t] < 0 ? svv[-1 - choice[t]] : NULL;
    int m = 0;
    for (int j = 0; j < n; j++)
        if (j != seat) {
            x->seat[m] = j;
            x->bust[m] = bv[j];
            for (int t = 0; t <= DP_MAX_TOTAL; t++)
                x->stop[m][t] = chosen[t] ? chosen[t][j] : -INFINITY;
            m++;
        }
    return m;
}

/* Each other seat's value and roll value at every state of the turn under the roller's
 * programme `ww` (solved whole), from x->stop and x->bust: policy_arrays. */
static void acc_vector_values(const DpTurn *ww, AccVec *x, int m) {
    /* what a state with no dice left is worth to each seat, by its DP_FIN: a claim, else
     * the bust (R8, and R7's none), as dp_fin */
    double fin[MAXP - 1][DP_MAX_TOTAL + 2];
    for (int k = 0; k < m; k++) {
        for (int t = 0; t <= DP_MAX_TOTAL; t++)
            fin[k][t] = x->stop[k][t] > -INFINITY ? x->stop[k][t] : x->bust[k];
        fin[k][DP_MAX_TOTAL + 1] = x->bust[k];
    }
    for (int at = 0; at < DP_N; at++) { /* solving order: a state's keeps come first */
        int i = DP_AT[at], left = DP_LEFT[i], total = DP_TOTAL[i];
        if (left == 0) {
            for (int k = 0; k < m; k++) x->val[k][i] = fin[k][DP_FIN[i]];
            continue;
        }
        /* each keep's value to the roller and to each seat, side by side (dp_state's
         * layout: keep[j * 9 + c], c dice of free slot j) */
        int nfree = DP_NFREE[i];
        double mine[6 * 9], theirs[MAXP - 1][6 * 9];
        const int16_t *kid = DP_KIDS + DP_KOFF[i];
        for (int j = 0; j < (nfree ? nfree : 1); j++) { /* c = 0: not shown; the bust row */
            mine[j * 9] = -INFINITY;
            for (int k = 0; k < m; k++) theirs[k][j * 9] = x->bust[k];
        }
        for (int j = 0; j < nfree; j++)
            for (int c = 1; c <= left; c++, kid++) {
                if (c < left) {
                    mine[j * 9 + c] = ww->value[*kid];
                    for (int k = 0; k < m; k++) theirs[k][j * 9 + c] = x->val[k][*kid + DP_V0];
                } else { /* every die left kept */
                    mine[j * 9 + c] = dp_fin(ww, *kid);
                    for (int k = 0; k < m; k++) theirs[k][j * 9 + c] = fin[k][*kid];
                }
            }
        const DpTemplate *tpl = &DP_TPL[left][nfree];
        int rows = tpl->rows;
        /* each row's keep, as best_keep picks it (slot by slot, the higher face first, a
         * keep must beat the best so far by EPS), carried down the template's prefix tree
         * as dp_roll carries its maximum: a row costs one comparison, not one a slot */
        const int *arg = acc_row_keeps(x, tpl, nfree, mine);
        const double *prob = tpl->prob;
        for (int k = 0; k < m; k++) {
            const double *value = theirs[k];
            double *terms = x->terms[k];
            for (int r = 0; r < rows; r++) terms[r] = value[arg[r]] * prob[r];
        }
        int stops = dp_stops(ww, i);
        for (int k = 0; k < m; k++) {
            const double *t = x->terms[k];
            double roll = rows > 1 ? t[0] + dp_pairwise(t + 1, rows - 1) : t[0];
            x->roll[k][i] = roll;
            x->val[k][i] = stops ? x->stop[k][total] : roll;
        }
    }
}

/* WinAccountant._other_seats: at three players or more, every other seat's chance under
 * the roller's best play of the win programme (a->ww, solved whole) at every state, by
 * policy_arrays' operations in its order: each row keeps what the roller values most
 * (within DP_EPS the higher face, as best_keep), each state stops where the roller's
 * programme stops (dp_stops), each stop claims what stop_values chose (a grill tile over
 * a steal of the same value; under lower_any the lowest grill tile of the best value),
 * and a state's roll value sums its rows as dp_roll does. -1: no memory. */
static int acc_vector_turn(Game *g, int seat) {
    Account *a = g->acc;
    a->nv = 0;
    if (g->n < 3) return 0; /* two players: the other's part is the roller's luck negated */
    if (a->vx == NULL && (a->vx = malloc(sizeof(AccVec))) == NULL) return -1;
    int m = acc_vector_endings(g, seat, a->vx);
    acc_vector_values(a->ww, a->vx, m);
    a->nv = m;
    return 0;
}

/* Accountant.turn_started: the payoff of `seat`'s turn solved, par booked, k taken.
 * -1: no memory. */
ACC_HOOK int acc_turn(Game *g, int seat) {
    Account *a = g->acc;
    const DpTurn *w;
    int found = 1;
    if (g->strat[seat]->kind == S_OPTIMAL && g->opt_swing[seat]) {
        w = g->opt_turn[seat]; /* optimal's plan this turn: the same payoff, built alike */
    } else {
        double gv[41], sv[MAXP], stop[DP_MAX_TOTAL + 1];
        double bust = swing_values(g, seat, gv, sv);
        stop_values(g, seat, gv, sv, stop);
        if (dp_solved(stop, bust, 0, &w, &found) < 0) return -1;
    }
    AccStats *st = &dp_cache->acc;
    st->turns++;
    int p = DP_PLACE[DP_START];
    if (w->done[p >> 6] >> (p & 63) & 1) {
        st->hits++;
    } else { /* the whole programme: the start needs every state */
        int before = 0;
        for (int k = 0; k < DP_WORDS; k++) before += popcount64(w->done[k]);
        dp_need(w, DP_START);
        ((DpTurn *)w)->par = dp_value(w, DP_START); /* its roll value: no worm, no stop */
        st->states += DP_N - before;
        if (found) st->completed++;
        else st->misses++;
    }
    a->stats = st;
    a->w = w;
    a->cur = &a->led[seat];
    a->state = DP_START;
    a->pending = -1;
    double par = w->par;
    a->before = *a->cur;
    a->cur->par += par;
    int worms = 0;
    for (int t = 21; t <= 36; t++)
        if (g->grill >> t & 1) worms += WORMS[t];
    a->k = acc_win_slope(g, seat, worms);
    a->ww = NULL;
    if (a->win && (acc_win_turn(g, seat, &a->ww) < 0 || acc_vector_turn(g, seat) < 0))
        return -1;
    for (int s = 0; s < g->n; s++) a->vec_before[s] = a->led[s].winvec;
    a->seat = seat;
    a->open = 1;
    a->t_par = par;
    a->t_luck = a->t_regret = 0.0;
    return 0;
}

/* Accountant.finish: a turn still open at the game's end (a forfeit in it) taken back. */
ACC_HOOK void acc_finish(Game *g) {
    Account *a = g->acc;
    if (a->open) { /* nothing of a forfeit's turn counts, for any seat */
        *a->cur = a->before;
        for (int s = 0; s < g->n; s++) a->led[s].winvec = a->vec_before[s];
    }
    a->open = 0;
    a->pending = -1;
}

/* Accountant._settle_pending: the pending stop-or-roll-on decision, now known (R6). */
static void acc_settle(Account *a, int stopped) {
    int i = a->pending;
    if (i < 0) return;
    a->pending = -1;
    if (!(DP_MASK[i] >> WORM & 1) || !DP_LEFT[i]) return; /* no stop offered */
    double here = a->w->stop[DP_TOTAL[i]];
    if (here == -INFINITY) return; /* R7: nothing to claim, rolling on is no decision */
    double roll = dp_roll_of(a->w, i);
    double regret = dp_value(a->w, i) - (stopped ? here : roll);
    a->cur->regret_stop += regret;
    a->cur->stops++;
    a->t_regret += regret;
}

/* Accountant._rolled: a roll in the current state (`fresh`: the counts of the faces it
 * shows not yet set aside, 0: none, a bust), its luck booked; returns V*. */
static double acc_rolled(Account *a, uint32_t fresh) {
    acc_settle(a, 0);
    int i = a->state, base = i << 6;
    double best = a->w->bust;
    if (fresh) {
        best = -1e300;
        for (int f = 6; f >= 1; f--) {
            int c = count_of(fresh, f);
            if (c) {
                double v = dp_value(a->w, DP_CHILD[base | f << 3 | (c - 1)]);
                if (v > best) best = v;
            }
        }
    }
    double luck = best - dp_roll_of(a->w, i);
    AccLedger *led = a->cur;
    led->rolls++;
    led->luck += luck;
    led->wluck += a->k * luck;
    a->t_luck += luck;
    const DpTurn *ww = a->ww;
    if (ww != NULL) { /* the same roll's luck in the win payoff's values (WinAccountant) */
        double wbest = ww->bust;
        if (fresh) {
            wbest = -1e300;
            for (int f = 6; f >= 1; f--) {
                int c = count_of(fresh, f);
                if (c) {
                    double v = dp_value(ww, DP_CHILD[base | f << 3 | (c - 1)]);
                    if (v > wbest) wbest = v;
                }
            }
        }
        double wluck = wbest - dp_roll_of(ww, i);
        led->winluck += wluck;
        led->winvec += wluck; /* the vector: the roller's part is its win luck */
        if (a->nv == 0) { /* two players: the other's part, negated */
            a->led[1 - a->seat].winvec += -wluck;
        } else { /* the others' parts: the roll's best keep (best_keep), each seat's value */
            int face, child = dp_best_keep(ww, i, fresh, &face);
            const AccVec *x = a->vx;
            for (int k = 0; k < a->nv; k++)
                a->led[x->seat[k]].winvec +=
                    (child < 0 ? x->bust[k] : x->val[k][child]) - x->roll[k][i];
        }
    }
    return best;
}

/* Accountant.kept: the roll (t->packed: its faces not yet set aside) booked and the pick
 * of `face` from it. */
ACC_HOOK void acc_kept(Game *g, const Turn *t, int face) {
    Account *a = g->acc;
    double best = acc_rolled(a, t->packed);
    int child = DP_CHILD[a->state << 6 | face << 3 | (count_of(t->packed, face) - 1)];
    double regret = best - dp_value(a->w, child);
    a->cur->regret_pick += regret;
    unsigned shown = choices_of(t->packed);
    if (shown & (shown - 1)) a->cur->picks++; /* two faces or more */
    a->t_regret += regret;
    a->state = child;
    a->pending = child;
}

/* Before the seat picks from the roll: the values acc_kept will read (the keeps' and the
 * roll's, scattered over the programme: misses of the processor's caches) fetched while
 * the seat decides. */
ACC_HOOK void acc_fetch(Game *g, const Turn *t) {
    const Account *a = g->acc;
    const DpTurn *w = a->w;
    int base = a->state << 6;
    for (int f = 6; f >= 1; f--) {
        int c = count_of(t->packed, f);
        if (c) {
            int child = DP_CHILD[base | f << 3 | (c - 1)];
            if (child >= DP_V0) __builtin_prefetch(&w->value[child - DP_V0]);
        }
    }
    if (DP_RSLOT[a->state] >= 0) { /* rolled on from a stop: its value, its roll value */
        __builtin_prefetch(&w->value[a->state - DP_V0]);
        __builtin_prefetch(&w->roll[DP_RSLOT[a->state]]);
    }
}

/* Accountant._close: the turn ended with this swing (the identity checked). */
static void acc_close(Account *a, double swing) {
    a->pending = -1;
    if (!a->open) return;
    a->open = 0;
    double residual = fabs(swing - (a->t_par + a->t_luck - a->t_regret));
    AccStats *st = a->stats;
    st->checked++;
    if (st->residual == st->residual && !(residual <= st->residual)) /* a NaN sticks */
        st->residual = residual;
}

/* Accountant.busted (R9), before bust() changes the board: a roll with no new face (R5,
 * `rolled`: its luck is the bust's) or all dice kept and nothing to claim (R8); the turn
 * ends with the bust's swing. */
ACC_HOOK void acc_bust(Game *g, int rolled) {
    if (rolled) acc_rolled(g->acc, 0);
    acc_close(g->acc, g->acc->w->bust);
}

/* Accountant.claimed: the stop (if one was pending) and the claim of `tile` (victim -1:
 * from the grill) among `choices` legal ones booked; the turn ends. */
ACC_HOOK void acc_claim(Game *g, int total, int tile, int victim, int choices) {
    Account *a = g->acc;
    acc_settle(a, 1);
    double share = steal_share(g->n);
    double chosen = victim < 0 ? (double)WORMS[tile] : (double)WORMS[tile] * share;
    double regret = a->w->stop[total] - chosen;
    a->cur->regret_claim += regret;
    if (choices > 1) a->cur->claims++;
    a->t_regret += regret;
    acc_close(a, chosen);
}
