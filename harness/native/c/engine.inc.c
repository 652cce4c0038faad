/* The engine: a turn and a game played (harness/game/engine.py, Game).
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== the engine (harness/game/engine.py, Game) ========================================== */

/* Game._bust (R9); returns 1 when the game is over (R10). */
static int bust(Game *g, int seat) {
    g->busts[seat]++;
    int returned = -1, flip;
    if (g->len[seat]) {
        returned = g->top[seat];
        int len = --g->len[seat];
        set_top(g, seat, len ? g->stack[seat][len - 1] : 0);
        g->score[seat] -= WORMS[returned];
        g->grill |= 1ULL << returned;
        flip = 1;
    } else {
        flip = g->flip_without;
    }
    if (flip && g->flip_mode && g->grill) {
        int target = g->flip_mode == FLIP_HIGHEST ? highest_bit(g->grill) : lowest_bit(g->grill);
        if (target != returned || !g->keep_returned) {
            g->grill ^= 1ULL << target;
            g->flipped |= 1ULL << target;
        }
    }
    if (!g->grill) g->over = 1;
    return g->over;
}

/* Game._claim (R7); returns 1 when the game is over (R10). */
static int claim(Game *g, int seat, int total) {
    uint64_t below = g->grill & ((1ULL << (total + 1)) - 1);
    int steal = can_steal(g, seat, total);
    int tile;
    if (below && !g->lower_any && !steal) {
        tile = highest_bit(below);
        if (ACCOUNTED(g->acc)) acc_claim(g, total, tile, -1, 1);
        g->grill ^= 1ULL << tile;
    } else {
        Claim choices[NTILES + 1];
        int nc = legal_claims(g, seat, total, choices);
        Claim c = nc == 1 ? choices[0] : strat_claim(g, seat, total, choices, nc);
        if (c.tile < 0) return 1; /* a Python seat's forfeit: nothing of the turn counts */
        tile = c.tile;
        if (ACCOUNTED(g->acc)) acc_claim(g, total, tile, c.victim, nc);
        if (c.victim < 0) {
            g->grill ^= 1ULL << tile;
        } else {
            int v = c.victim;
            int len = --g->len[v];
            set_top(g, v, len ? g->stack[v][len - 1] : 0);
            g->score[v] -= WORMS[tile];
            g->steals[seat]++;
            g->stolen[v]++;
        }
    }
    g->stack[seat][g->len[seat]++] = (uint8_t)tile;
    set_top(g, seat, tile);
    g->score[seat] += WORMS[tile];
    if (!g->grill) g->over = 1;
    return g->over;
}

/* Game.play_turn (R4-R9); returns 1 when the turn ended the game (R10). */
static int play_turn(Game *g) {
    g->turn++;
    int seat = g->seat, round = g->round; /* turn % n and turn // n, kept as counters */
    if (++g->seat == g->n) {
        g->seat = 0;
        g->round++;
    }
    Block block;
    if (g->duplicate) {
        if (dup_block(&g->dup, seat, round, &block) < 0) {
            g->failed = 1;
            return 1;
        }
    } else {
        draw_block(g->dice, &block);
    }
    if (g->strat[seat]->kind == S_OPTIMAL && opt_plan(g, seat) < 0) { /* its first roll */
        g->failed = 1;
        return 1;
    }
    /* the account after optimal's plan (the same programme, when it is the worm swing's:
     * completed, not solved again) and before anything a Python seat does (a forfeit) */
    Account *acc = g->acc; /* the luck account (account.inc.c), NULL: none */
    if (ACCOUNTED(acc) && acc_turn(g, seat) < 0) {
        g->failed = 1;
        return 1;
    }
    if (g->strat[seat]->kind == S_PYTHON && host_turn(g, seat) < 0) return 1;
    Turn t;
    t.total = 0;
    t.left = 8;
    t.worm = 0;
    t.free = ALL_FACES;
    t.low = lowest_bit(g->grill); /* the lowest face-up grill tile */
    int roll = 0;
    uint32_t first4[4];
    block_first4(&block, first4);
    for (;;) {
        /* R4: roll the dice left: the first `left` digits of the block's next group */
        uint32_t group = roll < 4 ? first4[roll] : block_later(&block);
        roll++;
        uint32_t lo = group % 1296, hi = group / 1296;
        /* the first min(left, 4) dice from lo, the rest from hi (PC[0] is all zero) */
        t.shown = PC_NEAR[t.left][lo] + PC_FAR[t.left][hi];
        uint32_t fresh = t.shown & NIBBLES[t.free];
        if (!fresh) { /* R5: every face shown is already set aside */
            if (ACCOUNTED(acc)) acc_bust(g, 1);
            return bust(g, seat);
        }
        t.packed = fresh;
        if (ACCOUNTED(acc)) acc_fetch(g, &t);
        int face = strat_pick(g, seat, &t);
        if (face <= 0) return 1; /* a Python seat's forfeit (or its host failed) */
        if (ACCOUNTED(acc)) acc_kept(g, &t, face);
        int count = count_of(fresh, face);
        t.free ^= 1u << face;
        t.left -= count;
        t.total += count * FACE_POINTS[face];
        if (face == WORM) t.worm = 1;
        if (t.worm) {
            /* R7: a stop would claim the highest grill tile <= total, or a rival's top */
            int can = t.total >= t.low || can_steal(g, seat, t.total);
            if (can) {
                if (t.left) { /* R6 */
                    int stop = strat_stop(g, seat, &t);
                    if (stop < 0) return 1; /* a Python seat's forfeit */
                    if (!stop) continue;
                }
                return claim(g, seat, t.total);
            }
        }
        if (!t.left) { /* R8 */
            if (ACCOUNTED(acc)) acc_bust(g, 0);
            return bust(g, seat);
        }
    }
}

/* A new game: seat i holds table entrant order[i] (a permutation, checked by
 * parse_orders); the dice stream (or the deal's streams) is already seeded and set
 * (g->dice, g->dup). */
static void game_start(Game *g, const uint8_t *order, const Strat *table, int64_t gseed) {
    int n = g->n;
    for (int i = 0; i < n; i++) {
        g->strat[i] = &table[order[i]];
        g->len[i] = g->top[i] = g->score[i] = g->busts[i] = g->steals[i] = g->stolen[i] = 0;
        g->rng_ready[i] = 0;
    }
    g->grill = 0xFFFFULL << 21; /* tiles 21..36 face up (R1) */
    g->flipped = 0;
    g->tops = 0;
    g->turn = 0;
    g->seat = 0;
    g->round = 0;
    g->over = 0;
    g->gseed = gseed;
    g->forfeit_seat = -1;
}

/* Game.check_integrity: every tile in exactly one place; scores are stacked worms. */
static int integrity_ok(const Game *g) {
    uint64_t seen = g->grill | g->flipped;
    int count = popcount64(g->grill) + popcount64(g->flipped);
    if (g->grill & g->flipped) return 0;
    for (int s = 0; s < g->n; s++) {
        int sum = 0;
        for (int k = 0; k < g->len[s]; k++) {
            uint64_t bit = 1ULL << g->stack[s][k];
            if (seen & bit) return 0;
            seen |= bit;
            sum += WORMS[g->stack[s][k]];
        }
        count += g->len[s];
        if (sum != g->score[s]) return 0;
        if (g->top[s] != (g->len[s] ? g->stack[s][g->len[s] - 1] : 0)) return 0;
    }
    uint64_t tops = 0;
    for (int s = 0; s < g->n; s++) tops |= (1ULL << g->top[s]) & ~1ULL;
    return seen == (0xFFFFULL << 21) && count == NTILES && tops == g->tops;
}

