/* The board and its rules: the seats' kinds, the Game, legal claims (R1-R11).
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== strategies (the strategies package) =================================================== */
enum {
    S_GREEDY = 0,
    S_THRESHOLD = 1,  /* p[0] target */
    S_WORM_FIRST = 2, /* p[0] target, p[1] min_dice */
    S_SIMPLE = 3,
    S_ENV = 4,        /* env-heuristic */
    S_TACTICIAN = 5,  /* p[0] caution, p[1] worm_by */
    S_RANDOM = 6,     /* p[0] p_stop */
    S_OPTIMAL = 7,    /* p[0] endgame, p[1] spread, p[2] flip */
    S_KINDS = 8,
    S_PYTHON = 64 /* a Python seat: its decisions are calls back into harness.native.seats */
};

typedef struct {
    int kind;
    double p[3];
} Strat;

typedef struct {
    int tile, victim; /* victim -1: from the grill */
} Claim;

/* ==== the engine (harness/engine.py, Game) ============================================ */
typedef struct Account Account; /* the luck account (account.inc.c) */
#define POOL LANES /* dice streams seeded together: games, or the seats of deals */
typedef struct {
    /* rules */
    int n, lower_any, flip_mode, flip_without, keep_returned, max_turns;
    /* the seats of this game */
    const Strat *strat[MAXP];
    /* the board */
    uint64_t grill, flipped;
    uint8_t stack[MAXP][NTILES];
    int len[MAXP], top[MAXP], score[MAXP], busts[MAXP], steals[MAXP], stolen[MAXP];
    uint64_t tops; /* bit t: tile t is on top of some stack (a steal target, R7) */
    int turn, over;
    int seat, round; /* the seat to play and its number of turns so far */
    /* the dice: this game's stream (independent) or the deal's (duplicate) */
    int duplicate;
    MT *dice;
    Dup dup;
    MT *pool; /* the streams of the games (or deals) being played: new_game's `streams` */
    /* view.rng per seat: random.Random(derive_seed(game seed, "strategy", seat)) */
    int64_t gseed;
    MT rng[MAXP];
    int rng_ready[MAXP];
    /* optimal's plan of the turn, per seat: the solved turn and what each claim is worth */
    const DpTurn *opt_turn[MAXP];
    double opt_grill[MAXP][41], opt_steal[MAXP][MAXP];
    int opt_swing[MAXP]; /* 1: the plan is the worm swing with flip 0 (the account's) */
    Account *acc; /* the luck account of the game in progress; NULL: none kept */
    int failed; /* 1: out of memory; 2: a Python callback raised (its exception is set) */
    /* Python seats (S_PYTHON): the host's callbacks (borrowed PyObject *: the caller's
     * arguments hold them), the forfeit of the game in progress (seat -1: none) and the
     * game's coordinates the host is told at its start */
    void *host[5];
    int forfeit_seat, forfeit_kind;
    long long cur_deal;
    int cur_k;
} Game;

/* The turn in progress, as the view shows it. */
typedef struct {
    uint32_t packed; /* counts of the roll's faces not yet set aside (the picks, R5) */
    uint32_t shown;  /* counts of every face the roll shows (a Python seat's view.counts) */
    unsigned free;    /* faces not yet set aside */
    int total, left, worm, low;
} Turn;

#define FLIP_HIGHEST 1
#define FLIP_LOWEST 2

/* A seat's top tile changes (0: an empty stack); the tops mask follows. */
static inline void set_top(Game *g, int seat, int tile) {
    g->tops &= ~(1ULL << g->top[seat]);
    g->tops |= (1ULL << tile) & ~1ULL;
    g->top[seat] = tile;
}

/* Whether a stop at `total` could steal: a rival's top is exactly total (R7). */
static inline int can_steal(const Game *g, int seat, int total) {
    return (int)(((g->tops & ~(1ULL << g->top[seat])) >> total) & 1);
}

static inline MT *seat_rng(Game *g, int seat) {
    if (!g->rng_ready[seat]) {
        mt_seed_u64(&g->rng[seat], derive3(g->gseed, "strategy", seat));
        g->rng_ready[seat] = 1;
    }
    return &g->rng[seat];
}

/* strategies/_common.py most_points: the most points, ties to the higher face: the
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

/* harness.view.legal_claims with a worm: best worm swing first. */
static int legal_claims(const Game *g, int seat, int total, Claim *out) {
    int n = 0;
    uint64_t below = g->grill & ((total >= 63) ? ~0ULL : ((1ULL << (total + 1)) - 1));
    if (below) {
        if (g->lower_any) {
            for (int t = 21; t <= 36; t++)
                if (below >> t & 1) out[n++] = (Claim){t, -1};
        } else {
            out[n++] = (Claim){highest_bit(below), -1};
        }
    }
    if (can_steal(g, seat, total)) /* tops.index(total): one seat shows it */
        for (int v = 0; v < g->n; v++)
            if (g->top[v] == total) {
                out[n++] = (Claim){total, v};
                break;
            }
    /* sort by swing (2w for a steal, w for the grill; then the tile), descending;
     * keys never tie (tiles are unique), so any stable sort gives Python's order. */
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

