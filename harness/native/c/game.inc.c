/* The board: the seats' kinds, the Game (its rules, seats, tiles and dice), a game's start,
 * its end and its checks (R1, R3, R10, R11).
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== the seats' kinds (harness/strategies/, and Python seats) ============================ */
/* The built-in kinds S_GREEDY .. S_OPTIMAL and the parameters each reads (p[0], p[1],
 * ... in KIND_BOUNDS' order: threshold's target; worm-first's target, min_dice;
 * tactician's caution, worm_by; random's p_stop; optimal's endgame, spread, flip) are
 * layout.inc.c's, from harness/native/kinds.py. */
#define S_PYTHON 64 /* a Python seat: its decisions are calls back into harness.native.seats */

typedef struct {
    int kind;
    double p[MAX_PARAMS];
} Strat;

typedef struct {
    int tile, victim; /* victim -1: from the grill */
} Claim;

/* ==== the board (harness/game/engine.py, Game) =========================================== */
typedef struct Account Account; /* the luck account (account.inc.c) */
#define POOL LANES /* dice streams seeded together: games, or the seats of deals */
typedef struct {
    /* rules */
    int n, lower_any, flip_mode, flip_without, keep_returned, max_turns;
    int wp_slot; /* which installed evaluator judges these rules (winprob.inc.c: WP_SLOTS) */
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

_Static_assert(FLIP_NONE == 0, "a flip mode is tested as a truth value: 0 is none");

/* A seat's top tile changes (0: an empty stack); the tops mask follows. */
static inline void set_top(Game *g, int seat, int tile) {
    g->tops &= ~(1ULL << g->top[seat]);
    g->tops |= (1ULL << tile) & ~1ULL;
    g->top[seat] = tile;
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

/* The game ran into its turn cap before it was over (the row's status turn-cap). */
static inline int game_capped(const Game *g) { return !g->over && g->turn >= g->max_turns; }

/* rank_seats' key (R11): most worms, ties to the highest tile a seat holds. */
static inline int rank_key(const Game *g, int seat) {
    int high = 0;
    for (int k = 0; k < g->len[seat]; k++)
        if (g->stack[seat][k] > high) high = g->stack[seat][k];
    return g->score[seat] * 64 + high;
}

/* account.steal_share, Optimal._plan's share (the worm swing): a steal's worms count
 * P / (P - 1) towards the margin, the victim's loss shared by the P - 1 others. (The
 * tactician's claim value, gain + gain / (P - 1), is its own sum: other float bits.) */
static inline double steal_share(int players) { return 1.0 + 1.0 / (double)(players - 1); }
