/* The turn as a state (R4-R10), written once: every rule check of a turn is here, and
 * both drivers step through it: the engine's play_turn (engine.inc.c), whose decisions
 * are a strategy's or a Python seat's, and the vector environment's agent turn
 * (vecenv.inc.c), whose decisions are the agent's actions, one call at a time.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 *
 * The state is a Turn (what the seat's view shows) and its TurnDice (the rolls to come,
 * the driver's alone); a driver calls, in this order:
 *
 *   turn_begin(g, t, d)     the turn starts (R4): the seat to play, its dice block, nothing
 *                           set aside; -1: out of memory (g->failed = 1)
 *   turn_roll(t, d)         R4: roll the dice left: the counts of the new faces shown
 *                           (t->packed), 0 when none is (R5: a bust, turn_bust follows)
 *   turn_keep(g, t, face)   R5: every die of `face` set aside; returns what may follow:
 *     TURN_ROLL             roll on (turn_roll): no claim yet, dice left
 *     TURN_MAY_STOP         R6: a claim is possible and dice are left: the seat decides
 *                           (stop: the claim below; roll on: turn_roll)
 *     TURN_STOP             R7: a claim is possible and no dice are left: it is made
 *     TURN_BUST             R8: no dice left, nothing to claim: turn_bust
 *   legal_claims(g, seat, total, out)   R7: the claims of a stop, best worm swing first
 *   turn_take(g, t, claim)  R7: a claim taken, from the grill or a rival's stack
 *   turn_bust(g, t)         R9 with its variants (the flip, the returned tile kept)
 *
 * turn_take and turn_bust end the turn and return 1 when the game is over (R10: the grill
 * is empty). Each mirrors the Python engine (harness/game/engine.py, Game: play_turn,
 * _claim, _bust; harness/game/board.py: legal_claims) and answers as it does.
 */

/* ==== the turn (R4-R10) ================================================================ */
/* The turn in progress, as the seat's view shows it (what a strategy is handed). */
typedef struct {
    uint32_t packed; /* counts of the roll's faces not yet set aside (the picks, R5) */
    uint32_t shown;  /* counts of every face the roll shows (a Python seat's view.counts) */
    unsigned free;   /* faces not yet set aside */
    int total, left, worm;
    int low;  /* the lowest face-up grill tile at the turn's start (the grill stays) */
    int seat; /* the seat whose turn it is */
} Turn;

/* The turn's dice: the block its rolls are read from (dice.inc.c). The driver's alone,
 * never handed to a strategy (it holds the rolls to come); apart from the Turn, so that
 * the engine's loop keeps it in registers while a strategy holds the Turn's address. */
typedef struct {
    Block block;
    uint32_t first4[4]; /* the dice groups of rolls 0..3, decoded at the start */
    int roll;           /* rolls made */
} TurnDice;

enum { TURN_ROLL, TURN_MAY_STOP, TURN_STOP, TURN_BUST };

/* Whether a stop at `total` could steal: a rival's top is exactly total (R7). */
static inline int can_steal(const Game *g, int seat, int total) {
    return (int)(((g->tops & ~(1ULL << g->top[seat])) >> total) & 1);
}

/* legal_claims' general case: grill tiles (every one <= total under lower_tile "any")
 * and the steal, sorted by swing (2w for a steal, w for the grill; then the tile),
 * descending; keys never tie (tiles are unique), so any stable sort gives Python's order. */
static int legal_claims_sorted(const Game *g, int seat, int total, uint64_t below, int steal,
                               Claim *out) {
    int n = 0;
    if (below) {
        if (g->lower_any) {
            for (int t = 21; t <= 36; t++)
                if (below >> t & 1) out[n++] = (Claim){t, -1};
        } else {
            out[n++] = (Claim){highest_bit(below), -1};
        }
    }
    if (steal) /* tops.index(total): one seat shows it */
        for (int v = 0; v < g->n; v++)
            if (g->top[v] == total) {
                out[n++] = (Claim){total, v};
                break;
            }
    for (int i = 1; i < n; i++) {
        Claim c = out[i];
        int kc = (c.victim >= 0 ? 2 : 1) * WORMS[c.tile] * 64 + c.tile;
        int j = i - 1;
        while (j >= 0) {
            int kj = (out[j].victim >= 0 ? 2 : 1) * WORMS[out[j].tile] * 64 + out[j].tile;
            if (kj >= kc) break;
            out[j + 1] = out[j];
            j--;
        }
        out[j + 1] = c;
    }
    return n;
}

/* harness.game.board.legal_claims with a worm (R7): the highest grill tile <= total (or
 * any of them under lower_tile "any"), and a rival's top showing exactly total; best worm
 * swing first. The count of them; `out` holds them. */
static inline int legal_claims(const Game *g, int seat, int total, Claim *out) {
    int steal = can_steal(g, seat, total);
    uint64_t below = g->grill & ((total >= 63) ? ~0ULL : ((1ULL << (total + 1)) - 1));
    if (steal || g->lower_any) return legal_claims_sorted(g, seat, total, below, steal, out);
    if (!below) return 0; /* most stops: one grill tile at most, nothing to sort */
    out[0] = (Claim){highest_bit(below), -1};
    return 1;
}

/* R9's flip: the grill tile turned face down when a seat busts, from the grill with the
 * returned tile back on it (`returned`: 0 for none); 0: none turns. */
static inline int bust_flip(const Game *g, uint64_t grill, int returned) {
    if (!grill || !g->flip_mode || !(returned || g->flip_without)) return 0;
    int target = g->flip_mode == FLIP_HIGHEST ? highest_bit(grill) : lowest_bit(grill);
    return target != returned || !g->keep_returned ? target : 0;
}

/* The turn starts (Game.play_turn's first steps): the seat to play, its dice block (its
 * own stream, or the deal's k-th block of the seat under duplicate dice), nothing kept.
 * -1: out of memory (g->failed = 1). */
static inline int turn_begin(Game *g, Turn *t, TurnDice *d) {
    g->turn++;
    int seat = g->seat, round = g->round; /* turn % n and turn // n, kept as counters */
    if (++g->seat == g->n) {
        g->seat = 0;
        g->round++;
    }
    if (g->duplicate) {
        const Block *kept = dup_block(&g->dup, seat, round);
        if (kept == NULL) {
            g->failed = 1;
            return -1;
        }
        d->block = *kept;
    } else {
        draw_block(g->dice, &d->block);
    }
    block_first4(&d->block, d->first4);
    d->roll = 0;
    t->seat = seat;
    t->total = 0;
    t->left = 8;
    t->worm = 0;
    t->free = ALL_FACES;
    t->low = lowest_bit(g->grill); /* the game is not over: the grill holds a tile */
    return 0;
}

/* R4: roll the dice left (the first `left` digits of the block's next group): the counts
 * of the faces shown that are new (t->packed), 0 when none is (R5: the turn busts). */
static inline uint32_t turn_roll(Turn *t, TurnDice *d) {
    uint32_t group = d->roll < 4 ? d->first4[d->roll] : block_later(&d->block);
    d->roll++;
    /* the first min(left, 4) dice from the group's low digits, the rest from its high
     * ones (PC[0] is all zero) */
    t->shown = PC_NEAR[t->left][group % 1296] + PC_FAR[t->left][group / 1296];
    uint32_t fresh = t->shown & NIBBLES[t->free];
    t->packed = fresh;
    return fresh;
}

/* R7: with a worm set aside, a stop would claim the highest grill tile <= total (one is
 * there when total reaches the lowest), or a rival's top showing exactly total. */
static inline int turn_may_claim(const Game *g, const Turn *t) {
    return t->worm && (t->total >= t->low || can_steal(g, t->seat, t->total));
}

/* R5: every die of `face` (shown, not yet set aside) set aside; what may follow (R6-R8). */
static inline int turn_keep(const Game *g, Turn *t, int face) {
    int count = count_of(t->packed, face);
    t->free ^= 1u << face;
    t->left -= count;
    t->total += count * FACE_POINTS[face];
    if (face == WORM) t->worm = 1;
    if (turn_may_claim(g, t)) return t->left ? TURN_MAY_STOP : TURN_STOP;
    return t->left ? TURN_ROLL : TURN_BUST;
}

/* Game._claim's taking of a claim (R7): the tile leaves the grill or the victim's stack
 * for the seat's. 1: the game is over (R10). */
static inline int turn_take(Game *g, const Turn *t, Claim c) {
    int seat = t->seat;
    if (c.victim < 0) {
        g->grill ^= 1ULL << c.tile;
    } else {
        int v = c.victim;
        int len = --g->len[v];
        set_top(g, v, len ? g->stack[v][len - 1] : 0);
        g->score[v] -= WORMS[c.tile];
        g->steals[seat]++;
        g->stolen[v]++;
    }
    g->stack[seat][g->len[seat]++] = (uint8_t)c.tile;
    set_top(g, seat, c.tile);
    g->score[seat] += WORMS[c.tile];
    if (!g->grill) g->over = 1;
    return g->over;
}

/* Game._bust (R9): the seat's top tile back on the grill, a grill tile turned face down as
 * the variant says (bust_flip). 1: the game is over (R10). */
static int turn_bust(Game *g, const Turn *t) {
    int seat = t->seat, returned = 0;
    g->busts[seat]++;
    if (g->len[seat]) {
        returned = g->top[seat];
        int len = --g->len[seat];
        set_top(g, seat, len ? g->stack[seat][len - 1] : 0);
        g->score[seat] -= WORMS[returned];
        g->grill |= 1ULL << returned;
    }
    int flip = bust_flip(g, g->grill, returned);
    if (flip) {
        g->grill ^= 1ULL << flip;
        g->flipped |= 1ULL << flip;
    }
    if (!g->grill) g->over = 1;
    return g->over;
}
