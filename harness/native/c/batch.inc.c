/* Batches: rows of games played and stored, deal seeds, the chunk path's lanes.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== batches ========================================================================= */
/* The columns a batch fills (their buffers read by bindings.inc.c in layout.inc.c's order:
 * GCOL_*, SCOL_*, ACC_*), by the C type of their items: the schema's (a test in C, so
 * that a column whose type changes in Python stops the build until this follows). */
typedef struct {
    int32_t *deal;
    int8_t *seating; /* the index of the row's seat order in the design */
    int64_t *seed, *game_seed;
    int16_t *turns;
    int8_t *status, *winner, *error_seat, *error_kind;
    int8_t *worms[MAXP], *rank[MAXP];
    int16_t *busts[MAXP], *steals[MAXP], *stolen[MAXP];
    uint8_t *detail; /* optional: DETAIL_BYTES per game */
    /* optional (with the account): per seat par, luck, wluck, regret_pick, regret_stop,
     * regret_claim, winluck, winvec (ACC_SUMS doubles), then rolls, picks, stops, claims
     * (ACC_COUNTS) */
    double *acc_sum[ACC_SUMS][MAXP];
    int16_t *acc_count[ACC_COUNTS][MAXP];
    int win; /* the win account is kept (acc_sum[ACC_WINLUCK], [ACC_WINVEC] given) */
} Out;
_Static_assert(GCOL_DEAL_SIZE == 4 && GCOL_SEATING_SIZE == 1 && GCOL_SEED_SIZE == 8 &&
                   GCOL_GAME_SEED_SIZE == 8 && GCOL_TURNS_SIZE == 2 && GCOL_STATUS_SIZE == 1 &&
                   GCOL_WINNER_SIZE == 1 && GCOL_ERROR_SEAT_SIZE == 1 && GCOL_ERROR_KIND_SIZE == 1,
               "a game column's type is not the one Out holds");
_Static_assert(SCOL_WORMS_SIZE == 1 && SCOL_RANK_SIZE == 1 && SCOL_BUSTS_SIZE == 2 &&
                   SCOL_STEALS_SIZE == 2 && SCOL_STOLEN_SIZE == 2,
               "a seat column's type is not the one Out holds");
_Static_assert(DETAIL_HEAD == 4 && DETAIL_SEAT == 1 + NTILES &&
                   DETAIL_HEAD + DETAIL_SEAT * MAXP <= DETAIL_BYTES,
               "the final board: two 16-bit masks, then per seat its height and tiles");

/* A seat's ledger into the account columns of row `row` (counts capped at the int16
 * columns' 32767, which no game under the default turn cap reaches). */
static void acc_store(const Game *g, Out *o, Py_ssize_t row) {
    for (int s = 0; s < g->n; s++) {
        const AccLedger *l = &g->acc->led[s];
        double sums[ACC_SUMS] = {[ACC_PAR] = l->par,
                                 [ACC_LUCK] = l->luck,
                                 [ACC_WLUCK] = l->wluck,
                                 [ACC_REGRET_PICK] = l->regret_pick,
                                 [ACC_REGRET_STOP] = l->regret_stop,
                                 [ACC_REGRET_CLAIM] = l->regret_claim,
                                 /* no evaluator installed: no win account (NaN) */
                                 [ACC_WINLUCK] = g->acc->win ? l->winluck : NAN,
                                 [ACC_WINVEC] = g->acc->win ? l->winvec : NAN};
        int counts[ACC_COUNTS] = {[ACC_ROLLS - ACC_SUMS] = l->rolls,
                                  [ACC_PICKS - ACC_SUMS] = l->picks,
                                  [ACC_STOPS - ACC_SUMS] = l->stops,
                                  [ACC_CLAIMS - ACC_SUMS] = l->claims};
        for (int k = 0; k < ACC_SUMS; k++)
            if ((k != ACC_WINLUCK && k != ACC_WINVEC) || o->win) o->acc_sum[k][s][row] = sums[k];
        for (int k = 0; k < ACC_COUNTS; k++)
            o->acc_count[k][s][row] = (int16_t)(counts[k] < INT16_MAX ? counts[k] : INT16_MAX);
    }
}

/* One game to the end (Game.play), stored in row `row`; -1 on failure. */
static int play_row(Game *g, const uint8_t *order, const Strat *table, int64_t gseed, Out *o,
                    Py_ssize_t row) {
    game_start(g, order, table, gseed);
    if (g->acc) acc_start(g, o->win);
    play_game(g);
    if (g->failed) return g->failed == 2 ? -3 : -1;
    if (!integrity_ok(g)) return -2;
    int n = g->n;
    int forfeit = g->forfeit_seat; /* Game.result(error): the forfeiting seat ranks last */
    int capped = forfeit < 0 && game_capped(g);
    int key[MAXP];
    for (int s = 0; s < n; s++) key[s] = s == forfeit ? -1 : rank_key(g, s);
    int winner = -1, firsts = 0;
    for (int s = 0; s < n; s++) {
        int rank = 1;
        for (int o2 = 0; o2 < n; o2++) rank += key[o2] > key[s];
        o->rank[s][row] = (int8_t)rank;
        if (rank == 1) {
            firsts++;
            winner = s;
        }
        o->worms[s][row] = (int8_t)g->score[s];
        o->busts[s][row] = (int16_t)g->busts[s];
        o->steals[s][row] = (int16_t)g->steals[s];
        o->stolen[s][row] = (int16_t)g->stolen[s];
    }
    o->turns[row] = (int16_t)g->turn;
    o->status[row] = (int8_t)(forfeit >= 0 ? STATUS_FORFEIT : capped ? STATUS_TURN_CAP : STATUS_OVER);
    o->winner[row] = (int8_t)((g->over || forfeit >= 0) && firsts == 1 ? winner : -1);
    o->error_seat[row] = (int8_t)forfeit;
    o->error_kind[row] = (int8_t)(forfeit >= 0 ? g->forfeit_kind : NO_KIND);
    if (g->acc) {
        acc_finish(g);
        acc_store(g, o, row);
    }
    if (o->detail) {
        uint8_t *d = o->detail + (size_t)row * DETAIL_BYTES;
        memset(d, 0, DETAIL_BYTES);
        uint32_t grill16 = (uint32_t)(g->grill >> LOWEST_TILE);
        uint32_t flipped16 = (uint32_t)(g->flipped >> LOWEST_TILE);
        d[0] = (uint8_t)grill16;
        d[1] = (uint8_t)(grill16 >> 8);
        d[2] = (uint8_t)flipped16;
        d[3] = (uint8_t)(flipped16 >> 8);
        for (int s = 0; s < n; s++) {
            uint8_t *p = d + DETAIL_HEAD + DETAIL_SEAT * s;
            p[0] = (uint8_t)g->len[s];
            memcpy(p + 1, g->stack[s], (size_t)g->len[s]);
        }
    }
    return 0;
}

/* A game with `streams` dice streams (POOL for the lanes of play_deals; a vector env's
 * slot needs MAXP, one per seat, and so holds 22 kB less). NULL: out of memory. */
static Game *new_game(const Game *proto, int duplicate, int max_turns, int account, int streams) {
    Game *g = PyMem_Calloc(1, sizeof(Game));
    if (g == NULL) return NULL;
    g->pool = PyMem_Calloc((size_t)streams, sizeof(MT));
    if (g->pool == NULL || (account && (g->acc = PyMem_Calloc(1, sizeof(Account))) == NULL)) {
        PyMem_Free(g->pool);
        PyMem_Free(g);
        return NULL;
    }
    g->n = proto->n;
    g->lower_any = proto->lower_any;
    g->flip_mode = proto->flip_mode;
    g->flip_without = proto->flip_without;
    g->keep_returned = proto->keep_returned;
    g->wp_slot = proto->wp_slot;
    g->duplicate = duplicate;
    g->max_turns = max_turns;
    return g;
}

static void free_game(Game *g) {
    if (g == NULL) return;
    for (int s = 0; s < MAXP; s++) free(g->dup.blocks[s]);
    if (g->acc) free(g->acc->vx);
    PyMem_Free(g->acc);
    PyMem_Free(g->pool);
    PyMem_Free(g);
}

/* A seating design (harness/game/seating.py): order k puts table entrant at[k][i] in
 * seat i; every deal is played once in each order, rows by deal, then order index. The
 * stored seating column is an int8, so a design has at most MAX_ORDERS (127) orders. */
typedef struct {
    int count;
    uint8_t at[MAX_ORDERS][MAXP];
} Orders;

/* The deal seeds of deals d0..d0+count-1 (count <= LANES): derive_seed of prefix +
 * str(d) (prefix: "seed\x1fdeal\x1f", harness.tourney.plan.deal_seed), masked to int64;
 * hashed four at a time when a message fits one block. */
static void deal_seeds(const char *prefix, size_t prefix_len, long long d0, int count,
                       int64_t *out) {
    uint64_t hashed[LANES];
    if (prefix_len + 20 <= B2_MAX_SHORT) {
        uint8_t msgs[4][B2_MAX_SHORT];
        size_t lens[4];
        for (int k = 0; k < count; k += 4) {
            int c = count - k < 4 ? count - k : 4;
            for (int l = 0; l < c; l++) {
                memset(msgs[l], 0, B2_MAX_SHORT);
                memcpy(msgs[l], prefix, prefix_len);
                lens[l] = prefix_len + (size_t)put_int((char *)msgs[l] + prefix_len, d0 + k + l);
            }
            derive4(msgs, lens, c, hashed + k);
        }
    } else {
        char buf[600]; /* the caller keeps prefixes to 512 bytes */
        memcpy(buf, prefix, prefix_len);
        for (int k = 0; k < count; k++) {
            size_t len = prefix_len + (size_t)put_int(buf + prefix_len, d0 + k);
            hashed[k] = derive_bytes((const uint8_t *)buf, len);
        }
    }
    for (int k = 0; k < count; k++) out[k] = (int64_t)(hashed[k] & SEED_MASK);
}

/* Where a chunk batch tells the chunk row it is playing, game by game, for a parent
 * process that shows progress (a double in shared memory; play_deals' `progress`), or
 * NULL. Per thread: batches of two threads never share it. */
static _Thread_local volatile double *batch_progress;
static _Thread_local Py_ssize_t batch_start;

/* One row of the chunk path: deal `deal` in seat order k, stored in row `row`. */
static int deal_row(Game *g, const Strat *table, const Orders *orders, int k, long long deal,
                    int64_t dseed, int64_t gseed, Out *o, Py_ssize_t row) {
    if (batch_progress != NULL) *batch_progress = (double)(batch_start + row);
    o->deal[row] = (int32_t)deal;
    o->seating[row] = (int8_t)k;
    o->seed[row] = dseed;
    o->game_seed[row] = gseed;
    g->cur_deal = deal;
    g->cur_k = k;
    return play_row(g, orders->at[k], table, gseed, o, row);
}

/* Duplicate dice: every order of a deal plays the deal's dice (game seed = deal seed,
 * one stream per seat: derive_seed(deal seed, "seat", s)). The streams of LANES / n
 * deals are seeded together; a deal's blocks are drawn once for all its orders. Rows
 * before chunk row `start` are not played. *played: the rows filled. */
static int deals_duplicate(Game *g, const Strat *table, const Orders *orders,
                           const char *prefix, size_t prefix_len, long long first,
                           long long stop, Py_ssize_t start, Out *o, Py_ssize_t *played) {
    int n = g->n, m = orders->count, per_block = LANES / n;
    long long d_begin = first + start / m;
    int k_begin = (int)(start % m);
    Py_ssize_t row = 0;
    for (long long deal0 = d_begin; deal0 < stop; deal0 += per_block) {
        int deals = stop - deal0 < per_block ? (int)(stop - deal0) : per_block;
        int64_t dseeds[LANES], keys[LANES], seat_no[LANES];
        uint64_t stream_seeds[LANES];
        MT *streams[LANES];
        deal_seeds(prefix, prefix_len, deal0, deals, dseeds);
        for (int d = 0; d < deals; d++)
            for (int s = 0; s < n; s++) {
                keys[d * n + s] = dseeds[d];
                seat_no[d * n + s] = s;
                streams[d * n + s] = &g->pool[d * n + s];
            }
        derive3_many(keys, "seat", seat_no, deals * n, stream_seeds);
        mt_seed_many(streams, stream_seeds, deals * n);
        for (int d = 0; d < deals; d++) {
            dup_attach(&g->dup, dseeds[d], &g->pool[d * n]);
            for (int k = deal0 + d == d_begin ? k_begin : 0; k < m; k++, row++) {
                int rc = deal_row(g, table, orders, k, deal0 + d, dseeds[d], dseeds[d], o, row);
                if (rc) {
                    *played = row;
                    return rc;
                }
            }
        }
    }
    *played = row;
    return 0;
}

/* Independent dice: one stream per game, seeded by its game seed (derive_seed(deal seed,
 * "rotation", k) masked, harness.tourney.plan.game_seed). The chunk's rows from `start`
 * on go LANES at a time (across deals when the design is short, a deal in several
 * passes when it is long); deal seeds are hashed LANES deals at a time as rows reach
 * them. *played: the rows filled. */
static int deals_independent(Game *g, const Strat *table, const Orders *orders,
                             const char *prefix, size_t prefix_len, long long first,
                             long long stop, Py_ssize_t start, Out *o, Py_ssize_t *played) {
    int m = orders->count, have = 0;
    Py_ssize_t total = (Py_ssize_t)(stop - first) * m, row = 0;
    long long base = first; /* dseeds holds deals base..base+have-1 */
    int64_t dseeds[LANES];
    for (Py_ssize_t at = start; at < total; at += LANES) {
        int count = total - at < LANES ? (int)(total - at) : LANES;
        int64_t keys[LANES], ks[LANES], gseeds[LANES];
        long long deal_of[LANES];
        uint64_t stream_seeds[LANES];
        MT *streams[LANES];
        for (int l = 0; l < count; l++) {
            long long deal = first + (at + l) / m;
            if (deal >= base + have) {
                base = deal;
                have = stop - deal < LANES ? (int)(stop - deal) : LANES;
                deal_seeds(prefix, prefix_len, base, have, dseeds);
            }
            deal_of[l] = deal;
            keys[l] = dseeds[deal - base];
            ks[l] = (at + l) % m;
            streams[l] = &g->pool[l];
        }
        derive3_many(keys, "rotation", ks, count, stream_seeds);
        for (int l = 0; l < count; l++) {
            gseeds[l] = (int64_t)(stream_seeds[l] & SEED_MASK);
            stream_seeds[l] = (uint64_t)gseeds[l];
        }
        mt_seed_many(streams, stream_seeds, count);
        for (int l = 0; l < count; l++, row++) {
            g->dice = &g->pool[l];
            int rc = deal_row(g, table, orders, (int)ks[l], deal_of[l], keys[l], gseeds[l], o, row);
            if (rc) {
                *played = row;
                return rc;
            }
        }
    }
    *played = row;
    return 0;
}


/* Explicit rows (play_games): row r plays seat order o->seating[r] with its own seeds,
 * o->seed[r] (the key of duplicate dice: a new key seeds its seats' streams, the same key
 * reuses their blocks) or o->game_seed[r] (independent dice, seeded LANES games at a
 * time; SeededDice(game_seed)). *row: the rows played. */
static int rows_play(Game *g, const Strat *table, const Orders *orders, Out *o, Py_ssize_t rows,
                     Py_ssize_t *row) {
    int n = g->n, rc = 0;
    Py_ssize_t r = 0;
    while (r < rows && rc == 0) {
        uint64_t stream_seeds[LANES];
        MT *streams[LANES];
        int count = 1;
        if (g->duplicate) {
            int64_t key = o->seed[r];
            if (!g->dup.valid || g->dup.key != key) {
                for (int s = 0; s < n; s++) {
                    stream_seeds[s] = derive3(key, "seat", s);
                    streams[s] = &g->pool[s];
                }
                mt_seed_many(streams, stream_seeds, n);
                dup_attach(&g->dup, key, g->pool);
            }
        } else {
            count = rows - r < LANES ? (int)(rows - r) : LANES;
            for (int k = 0; k < count; k++) {
                stream_seeds[k] = abs64(o->game_seed[r + k]);
                streams[k] = &g->pool[k];
            }
            mt_seed_many(streams, stream_seeds, count);
        }
        for (int k = 0; k < count && rc == 0; k++, r++) {
            if (!g->duplicate) g->dice = &g->pool[k];
            g->cur_deal = r;
            g->cur_k = o->seating[r];
            rc = play_row(g, orders->at[o->seating[r]], table, o->game_seed[r], o, r);
        }
    }
    *row = r;
    return rc;
}
