/* Optimal's turn programme: a part of core.c (#included there, one unit of compilation,
 * so everything stays static). */

/* ==== optimal's turn programme (harness/analysis/turn.py) ============================== */
/* The state graph of one turn, built at import exactly as turn.py builds it (the same
 * states in the same order, the same roll outcomes per state in the same order), and
 * solve_arrays' float64 solver, operation for operation: a row's value is the largest of
 * its keeps' values; a state's roll value is the sum of value * probability over its
 * rows in their own order, summed as numpy's add.reduceat sums (the first term, plus
 * numpy's pairwise sum of the rest: eight accumulators per block of up to 128, halves
 * above); a state's value is the larger of rolling on and stopping. So the values, and
 * every decision taken from them, are the Python strategy's. */
#define DP_MAX_STATES 2048
#define DP_MAX_TOTAL MAX_TOTAL /* the highest total of a turn (DP_EPS: turn.EPS) */
static int DP_N;                               /* 1,939 states */
static int DP_START; /* the turn's start: nothing kept, 8 dice (turn.START) */
/* The states with no dice left come first (0..DP_V0 - 1, 646 of them): their value is a
 * claim's or the bust's, read from the payoff, never stored: DP_FIN[i] is the total of
 * such a state that kept a worm (its stop value is the claim's, -inf for none), else
 * DP_MAX_TOTAL + 1 (where a programme's key holds the bust). A programme stores the values
 * of the states with dice left only (value[i - DP_V0]): a quarter less memory a payoff. */
static int DP_V0;
static uint8_t DP_FIN[DP_MAX_STATES];
/* A state's value is its roll value (rolling on from it) unless stopping is worth more,
 * which needs a worm kept and dice left (R6, R7): DP_RSLOT[i] is such a state's place in
 * a programme's roll array (DP_NRSLOT = 619 of them), -1 for the others (their roll value
 * is their value, bit for bit: roll < -inf is false). */
static int16_t DP_RSLOT[DP_MAX_STATES];
static int DP_NRSLOT;
static uint8_t DP_MASK[DP_MAX_STATES], DP_LEFT[DP_MAX_STATES], DP_TOTAL[DP_MAX_STATES];
static int16_t DP_LOOKUP[128][9][DP_MAX_TOTAL + 1]; /* (faces kept, dice left, total) */
static int16_t *DP_CHILD;                      /* [state << 6 | face << 3 | count - 1] */
static int DP_READY;
/* DP_KIDS[DP_KOFF[i] + j * n + c - 1]: the state after keeping c dice of free slot j
 * (the j-th free face, higher first) from state i, n dice left: a state's keeps in the
 * order dp_state reads them, side by side (DP_CHILD spreads them over 128 bytes), as
 * where their values are: the place in a programme's stored values (c < n), or, keeping
 * every die left, its DP_FIN (c = n). */
static int16_t *DP_KIDS;
static int32_t DP_KOFF[DP_MAX_STATES];
static uint8_t DP_NFREE[DP_MAX_STATES];
/* The rows of a state depend on its dice left n and free faces k only (turn._outcomes):
 * one template per (n, k), its rows in _compositions' order with their probabilities,
 * and the rows' prefix tree: level j holds every distinct (c_0..c_j), the counts of free
 * slots 0..j (slot j: the j-th free face, higher first), in row order; a node of level
 * j is its parent's node of level j - 1 and c_j. Level k - 1 is the rows themselves (the
 * last part of a row, when faces are kept, is their lump: what is left). dp_state
 * carries each row's best keep down the tree, so a row costs about one max, not k. */
#define DP_MAX_ROWS 1287 /* the start state's: 8 dice in 6 faces */
typedef struct {
    int rows;
    double *prob;
    int level[6];      /* nodes per level */
    uint16_t *par[6];  /* a node's parent in the level above (level 0: unused) */
    uint8_t *count[6]; /* c_j */
} DpTemplate;
static DpTemplate DP_TPL[9][7];
/* The order states are solved in: by dice left, then free faces, then index. A state's
 * successors have fewer dice left, so come first; and the states of one template (dice
 * left and free faces) come together, for the lanes below. Bit sets of states (what is
 * below a state, what a turn has solved) hold a state's bit at its place in this order:
 * DP_PLACE[i]; DP_AT[p] is the state at place p, DP_GROUP_AT[p] the group it may share
 * lanes in: its template (left * 8 + free faces), or 0 for a state solved alone (no dice
 * left, or no face free: no rows to share). DP_BELOW[i * DP_WORDS ...]: bit p set when
 * DP_AT[p] is i or below it. */
#define DP_WORDS (DP_MAX_STATES / 64)
static uint64_t *DP_BELOW;
static int16_t DP_PLACE[DP_MAX_STATES], DP_AT[DP_MAX_STATES];
static uint8_t DP_GROUP_AT[DP_MAX_STATES];

static int dp_state_cmp(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* _compositions(n, parts) in turn.py's order (the first part from n down to 0, then
 * the compositions of the rest), appended to out, `width` ints each. */
static void dp_compositions(int n, int parts, int *prefix, int depth, int width, int *out,
                            int *count) {
    if (parts == 1) {
        prefix[depth] = n;
        memcpy(out + (size_t)*count * width, prefix, (size_t)width * sizeof(int));
        (*count)++;
        return;
    }
    for (int c = n; c >= 0; c--) {
        prefix[depth] = c;
        dp_compositions(n - c, parts - 1, prefix, depth + 1, width, out, count);
    }
}

static int64_t dp_factorial(int n) {
    int64_t f = 1;
    for (int k = 2; k <= n; k++) f *= k;
    return f;
}

/* turn._reachable and turn._build. Returns -1 when out of memory. */
/* Every reachable (mask, dice left, total), sorted by (left, mask, total), and the tables
 * that name them (DP_N, DP_V0, DP_LOOKUP, DP_LEFT/MASK/TOTAL, DP_START, DP_FIN, DP_RSLOT). */
static int dp_states(void) {
    static uint8_t seen[128][9][DP_MAX_TOTAL + 1];
    uint32_t keys[DP_MAX_STATES];
    int stack_m[4096], stack_n[4096], stack_s[4096], top = 0, count = 0;
    memset(seen, 0, sizeof(seen));
    stack_m[0] = 0, stack_n[0] = 8, stack_s[0] = 0, top = 1;
    while (top) {
        top--;
        int m = stack_m[top], n = stack_n[top], t = stack_s[top];
        if (seen[m][n][t]) continue;
        seen[m][n][t] = 1;
        if (count >= DP_MAX_STATES) return -1;
        keys[count++] = (uint32_t)n << 16 | (uint32_t)m << 8 | (uint32_t)t;
        for (int f = 1; f <= 6; f++)
            if (!(m >> f & 1))
                for (int c = 1; c <= n; c++) {
                    if (top >= 4096) return -1;
                    stack_m[top] = m | 1 << f, stack_n[top] = n - c;
                    stack_s[top] = t + FACE_POINTS[f] * c, top++;
                }
    }
    qsort(keys, (size_t)count, sizeof(uint32_t), dp_state_cmp);
    DP_N = count;
    DP_V0 = 0;
    while (DP_V0 < count && keys[DP_V0] >> 16 == 0) DP_V0++;
    for (int m = 0; m < 128; m++)
        for (int n = 0; n <= 8; n++)
            for (int t = 0; t <= DP_MAX_TOTAL; t++) DP_LOOKUP[m][n][t] = -1;
    for (int i = 0; i < count; i++) {
        DP_LEFT[i] = (uint8_t)(keys[i] >> 16);
        DP_MASK[i] = (uint8_t)(keys[i] >> 8);
        DP_TOTAL[i] = (uint8_t)keys[i];
        DP_LOOKUP[DP_MASK[i]][DP_LEFT[i]][DP_TOTAL[i]] = (int16_t)i;
    }
    DP_START = DP_LOOKUP[0][8][0];
    for (int i = 0; i < DP_V0; i++)
        DP_FIN[i] = (uint8_t)((DP_MASK[i] >> WORM & 1) ? DP_TOTAL[i] : DP_MAX_TOTAL + 1);
    DP_NRSLOT = 0;
    for (int i = 0; i < count; i++)
        DP_RSLOT[i] = (int16_t)(DP_LEFT[i] && (DP_MASK[i] >> WORM & 1) ? DP_NRSLOT++ : -1);
    return 0;
}

/* Each state's successors (DP_CHILD, DP_KIDS), its place in the solving order (DP_PLACE,
 * DP_AT, DP_GROUP_AT) and what is below it (DP_BELOW). */
static int dp_links(void) {
    int count = DP_N;
    DP_CHILD = malloc((size_t)count * 64 * sizeof(int16_t));
    if (DP_CHILD == NULL) return -1;
    for (int k = 0; k < count * 64; k++) DP_CHILD[k] = -1;
    for (int i = 0; i < count; i++)
        for (int f = 1; f <= 6; f++)
            if (!(DP_MASK[i] >> f & 1))
                for (int c = 1; c <= DP_LEFT[i]; c++)
                    DP_CHILD[i << 6 | f << 3 | (c - 1)] =
                        DP_LOOKUP[DP_MASK[i] | 1 << f][DP_LEFT[i] - c][DP_TOTAL[i] + FACE_POINTS[f] * c];
    int kids = 0;
    for (int i = 0; i < count; i++) {
        DP_NFREE[i] = (uint8_t)(6 - popcount64(DP_MASK[i] >> 1 & 63));
        DP_KOFF[i] = kids;
        kids += DP_NFREE[i] * DP_LEFT[i];
    }
    DP_KIDS = malloc((size_t)kids * sizeof(int16_t));
    if (DP_KIDS == NULL) return -1;
    for (int i = 0; i < count; i++) { /* the last count of a face keeps every die left */
        int16_t *kid = DP_KIDS + DP_KOFF[i];
        for (int f = 6; f >= 1; f--)
            if (!(DP_MASK[i] >> f & 1))
                for (int c = 1; c <= DP_LEFT[i]; c++) {
                    int child = DP_CHILD[i << 6 | f << 3 | (c - 1)];
                    *kid++ = (int16_t)(c < DP_LEFT[i] ? child - DP_V0 : DP_FIN[child]);
                }
    }
    for (int n = 0, p = 0; n <= 8; n++)
        for (int nfree = 0; nfree <= 6; nfree++)
            for (int i = 0; i < count; i++)
                if (DP_LEFT[i] == n && DP_NFREE[i] == nfree) {
                    DP_PLACE[i] = (int16_t)p;
                    DP_GROUP_AT[p] = (uint8_t)(n && nfree ? n * 8 + nfree : 0);
                    DP_AT[p++] = (int16_t)i;
                }
    /* what is below each state: itself and what is below its successors (lower indices) */
    DP_BELOW = calloc((size_t)count * DP_WORDS, sizeof(uint64_t));
    if (DP_BELOW == NULL) return -1;
    for (int i = 0; i < count; i++) {
        uint64_t *below = DP_BELOW + (size_t)i * DP_WORDS;
        below[DP_PLACE[i] >> 6] |= 1ULL << (DP_PLACE[i] & 63);
        for (int k = 0; k < 64; k++)
            if (DP_CHILD[i << 6 | k] >= 0)
                for (int w = 0; w < DP_WORDS; w++)
                    below[w] |= DP_BELOW[(size_t)DP_CHILD[i << 6 | k] * DP_WORDS + w];
    }
    return 0;
}

/* The rows of a roll per (dice left, free faces): turn._outcomes, the kept faces lumped. */
static int dp_templates(void) {
    int *comps = malloc((size_t)1287 * 7 * sizeof(int));
    if (comps == NULL) return -1;
    for (int n = 1; n <= 8; n++)
        for (int nfree = 0; nfree <= 6; nfree++) { /* 0: every face kept, a sure bust */
            int kept = 6 - nfree, parts = nfree + (kept ? 1 : 0), prefix[7], k = 0;
            dp_compositions(n, parts, prefix, 0, parts, comps, &k);
            DpTemplate *tpl = &DP_TPL[n][nfree];
            tpl->rows = k;
            tpl->prob = malloc((size_t)k * sizeof(double));
            if (tpl->prob == NULL) {
                free(comps);
                return -1;
            }
            for (int j = 0; j < nfree; j++) {
                tpl->level[j] = 0;
                tpl->par[j] = malloc((size_t)k * sizeof(uint16_t));
                tpl->count[j] = malloc((size_t)k);
                if (tpl->par[j] == NULL || tpl->count[j] == NULL) {
                    free(comps);
                    return -1;
                }
            }
            for (int r = 0; r < k; r++) { /* from the first count that differs: new nodes */
                const int *comp = comps + r * parts;
                int j = 0;
                if (r)
                    while (j < nfree && comp[j] == comp[j - parts]) j++;
                for (; j < nfree; j++) {
                    int node = tpl->level[j]++;
                    tpl->par[j][node] = (uint16_t)(j ? tpl->level[j - 1] - 1 : 0);
                    tpl->count[j][node] = (uint8_t)comp[j];
                }
            }
            double scale = 1.0;
            for (int j = 0; j < n; j++) scale *= 6.0;
            for (int r = 0; r < k; r++) {
                const int *comp = comps + r * parts;
                int64_t weight = dp_factorial(n); /* the multinomial, as _outcomes */
                for (int j = 0; j < parts; j++) weight /= dp_factorial(comp[j]);
                if (kept)
                    for (int j = 0; j < comp[parts - 1]; j++) weight *= kept;
                tpl->prob[r] = (double)weight / scale;
            }
        }
    free(comps);
    return 0;
}

static int dp_init(void) {
    if (dp_states() < 0 || dp_links() < 0 || dp_templates() < 0) return -1;
    DP_READY = 1;
    return 0;
}

/* dp_roll(tpl, nfree, keep, bust, terms, best): a state's roll value (turn_rows.inc.c) */
static inline double dp_max(double m, double x) { return x > m ? x : m; }
#define DP_T double
#define DP_OF(x) (x)
#define DP_MAX(m, x) dp_max(m, x)
#define DP_FN(name) name
#define DP_ATTR
#include "turn_rows.inc.c"
#undef DP_T
#undef DP_OF
#undef DP_MAX
#undef DP_FN
#undef DP_ATTR

/* One payoff's turn programme, solved lazily: a state is solved when a decision first
 * needs its value, together with every state below it not solved yet (DP_BELOW), in
 * solving order (DP_PLACE), which solves a state's successors before it (fewer dice left).
 * A state's value is a function of its successors' values alone, computed by the same
 * operations in the same order whichever decision asked for it, so a lazily solved state
 * holds, bit for bit, the value of the full bottom-up solve (dp_solve solves every state
 * this way; the tests compare that with solve_arrays). A turn needs only the states
 * below the keeps its first roll offers: about half the rows, never the start state's. */
typedef struct {
    const double *stop; /* stop[0..40], -inf where no stop, then stop[41] = bust */
    double bust;
    double *value; /* value[i - DP_V0]: state i (dice left) having just kept, before
                    * stopping or rolling on (dp_value: any state's) */
    double *roll;  /* roll[DP_RSLOT[i]]: rolling on from state i, where it can differ */
    uint64_t *done; /* DP_WORDS words, bit i: state i solved */
    double *terms;  /* scratch: one state's rows, and two levels of its tree after them */
    double par;     /* the start's value, copied here once it is solved (account.inc.c) */
} DpTurn;

/* What stopping in state i is worth: a claim where a worm is kept (R7), -inf for none */
static inline double dp_here(const DpTurn *w, int i) {
    return (DP_MASK[i] >> WORM & 1) ? w->stop[DP_TOTAL[i]] : -INFINITY;
}

/* State i settled from its roll value: kept, and its value the larger of rolling on and
 * stopping */
static inline void dp_settle(const DpTurn *w, int i, double roll) {
    double here = dp_here(w, i);
    if (DP_RSLOT[i] >= 0) w->roll[DP_RSLOT[i]] = roll;
    w->value[i - DP_V0] = roll < here ? here : roll;
}

/* The value of a state with no dice left from its DP_FIN: a claim (R6), else the bust's
 * (R8, and R7's none: -inf), as solve_arrays has it. */
static inline double dp_fin(const DpTurn *w, int fin) {
    double here = w->stop[fin];
    return here > -INFINITY ? here : w->bust;
}

/* The value of (solved) state i: solve_arrays' value[i]. */
static inline double dp_value(const DpTurn *w, int i) {
    return i >= DP_V0 ? w->value[i - DP_V0] : dp_fin(w, DP_FIN[i]);
}

/* The roll value of (solved) state i, which has dice left: solve_arrays' roll[i]. */
static inline double dp_roll_of(const DpTurn *w, int i) {
    return DP_RSLOT[i] >= 0 ? w->roll[DP_RSLOT[i]] : w->value[i - DP_V0];
}

/* Whether the best play stops in (solved) state i: solve_arrays' stops, from the values
 * (a stop's value at least rolling on's, within turn.EPS; all dice kept and a claim,
 * R6); -inf: no stop (R7, R8). */
static inline int dp_stops(const DpTurn *w, int i) {
    double here = dp_here(w, i);
    if (DP_LEFT[i] == 0) return here > -INFINITY;
    return here > -INFINITY && here >= dp_roll_of(w, i) - DP_EPS;
}

/* Solves state i from its successors' values (all solved). */
static void dp_state(const DpTurn *w, int i) {
    int n = DP_LEFT[i];
    if (n == 0) return; /* its value is the payoff's (dp_value) */
    double keep[6 * 9];
    int nfree = DP_NFREE[i];
    const double *value = w->value;
    const int16_t *kid = DP_KIDS + DP_KOFF[i];
    for (int j = 0; j < nfree; j++) { /* free faces, higher first: slot j */
        keep[j * 9] = -INFINITY;
        for (int c = 1; c < n; c++) keep[j * 9 + c] = value[*kid++];
        keep[j * 9 + n] = dp_fin(w, *kid++); /* every die left kept */
    }
    double *terms = w->terms;
    dp_settle(w, i, dp_roll(&DP_TPL[n][nfree], nfree, keep, w->bust, terms, terms + DP_MAX_ROWS));
}

/* States of one template solved side by side in vector lanes (turn_lanes.inc.c): four at
 * a time with AVX2 where the processor has it, else two (SSE2 on x86-64, NEON on ARM64:
 * every such processor has them). Against state by state, optimal plays 1.7-2.0x the
 * games per CPU-second with AVX2, 1.3x with two lanes (benchmarks/optimal_speed.py
 * --chunk 200 --lanes 0, --lanes 2). */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__aarch64__))
#define HAVE_DP_LANES 1
#define DPL_N 2
#define DP_FN(name) name##_x2
#define DPL_ATTR
#define DPL_GATHER(v, k) {v[*k[0]], v[*k[1]]}
#define DPL_FINS(w, k) {dp_fin(w, *k[0]), dp_fin(w, *k[1])}
#include "turn_lanes.inc.c"
#undef DPL_N
#undef DP_FN
#undef DPL_ATTR
#undef DPL_GATHER
#undef DPL_FINS
#if defined(__x86_64__)
#define HAVE_DP_AVX2 1
#define DPL_N 4
#define DP_FN(name) name##_x4
#define DPL_ATTR __attribute__((target("avx2")))
#define DPL_GATHER(v, k) {v[*k[0]], v[*k[1]], v[*k[2]], v[*k[3]]}
#define DPL_FINS(w, k) {dp_fin(w, *k[0]), dp_fin(w, *k[1]), dp_fin(w, *k[2]), dp_fin(w, *k[3])}
#include "turn_lanes.inc.c"
#undef DPL_N
#undef DP_FN
#undef DPL_ATTR
#undef DPL_GATHER
#undef DPL_FINS
#endif
#endif

/* The lanes in use: 4, 2, or 0 (state by state). */
static int dp_lanes;

/* The widest lanes this build and processor have that are at most `most` (for tests
 * and set_portable: 0 turns them off); returns the lanes now in use. */
static int dp_use_lanes(int most) {
    dp_lanes = 0;
#ifdef HAVE_DP_LANES
    if (most >= 2) dp_lanes = 2;
#endif
#ifdef HAVE_DP_AVX2
    __builtin_cpu_init();
    if (most >= 4 && __builtin_cpu_supports("avx2")) dp_lanes = 4;
#endif
    return dp_lanes;
}

/* states[0..count) of one template, count <= lanes, solved: side by side in `lanes`
 * lanes, or state by state (one state, no lanes, or no memory for their scratch) */
static void dp_group(const DpTurn *w, int lanes, const int *states, int count) {
    int solved = -1;
#ifdef HAVE_DP_AVX2
    if (lanes == 4 && count > 1) solved = dp_states_x4(w, states, count);
#endif
#ifdef HAVE_DP_LANES
    if (lanes == 2 && count > 1) solved = dp_states_x2(w, states, count);
#endif
    if (solved != 0)
        for (int k = 0; k < count; k++) dp_state(w, states[k]);
}

/* states[0..count) solved, with what they need: the states below them not solved yet,
 * in solving order, each by dp_state, or with lanes those of one template dp_lanes at a
 * time. Asking for a roll's keeps at once, not one by one, lets keeps of one template
 * (a first roll's, say) share lanes. */
static void dp_need_all(const DpTurn *w, const int *states, int count) {
    uint64_t *done = w->done, want[DP_WORDS];
    int words = 0;
    for (int s = 0; s < count; s++) {
        int p = DP_PLACE[states[s]];
        if (!(done[p >> 6] >> (p & 63) & 1) && p / 64 + 1 > words) words = p / 64 + 1;
    }
    if (!words) return; /* all solved */
    for (int k = 0; k < words; k++) want[k] = 0;
    for (int s = 0; s < count; s++) {
        const uint64_t *below = DP_BELOW + (size_t)states[s] * DP_WORDS;
        for (int k = 0; k < words; k++) want[k] |= below[k];
    }
    int lanes = dp_lanes, group[4], fill = 0, tpl = 0; /* one width for the whole call */
    for (int k = 0; k < words; k++) {
        uint64_t todo = want[k] & ~done[k];
        done[k] |= want[k];
        while (todo) {
            int p = k << 6 | lowest_bit(todo);
            todo &= todo - 1;
            if (!lanes || !DP_GROUP_AT[p]) {
                dp_state(w, DP_AT[p]);
                continue;
            }
            if (DP_GROUP_AT[p] != tpl || fill == lanes) {
                dp_group(w, lanes, group, fill);
                fill = 0;
                tpl = DP_GROUP_AT[p];
            }
            group[fill++] = DP_AT[p];
        }
    }
    dp_group(w, lanes, group, fill);
}

/* State i solved, with what it needs. */
static inline void dp_need(const DpTurn *w, int i) { dp_need_all(w, &i, 1); }

/* solve_arrays(Payoff(stop, bust)): key[t] = stop[t] for t = 0..40 (-inf: no stop at t),
 * key[41] = bust; every state solved, through dp_need as a game solves them (the start
 * state, the last, needs all the others): value[0..DP_N - DP_V0), roll[0..DP_NRSLOT)
 * (read with dp_value, dp_roll_of). Returns -1 when out of memory. */
static int dp_solve(const double key[DP_MAX_TOTAL + 2], double *value, double *roll) {
    uint64_t done[DP_WORDS] = {0};
    double *terms = malloc(3 * DP_MAX_ROWS * sizeof(double));
    if (terms == NULL) return -1;
    DpTurn w = {key, key[DP_MAX_TOTAL + 1], value, roll, done, terms, 0.0};
    for (int i = DP_N - 1; i >= 0; i--) dp_need(&w, i);
    free(terms);
    return 0;
}

/* Solved turns, by payoff: a set-associative table (8 ways, least recently used out)
 * kept per thread for the life of the process (a thread's freed when it ends), like
 * strategies/optimal.py's _SOLVED (a cache never changes a decision, only its cost). An
 * entry is a payoff's lazily solved programme (DpTurn): a later turn with the same
 * payoff goes on from the states already solved. The luck account (account.inc.c) shares
 * it: its payoff of an optimal seat's turn is optimal's own (the worm swing, flip 0,
 * outside the end game), so such a turn is solved once.
 *
 * Where a look-up's time goes: a turn that finds its programme reads a few of its values
 * scattered over 16 kB, among hundreds of megabytes of entries, so nearly every read
 * misses the processor's caches. The table is therefore small (a set: its ways' stamps,
 * hashes and entries, 192 bytes; 0.8 MB for 4,096 sets) and an entry is one block, its
 * solved marks and key first (read together), then the values of the 1,293 states with
 * dice left and the 619 roll values that can differ from them: 16.0 kB, cut from chunks
 * on huge pages (dp_chunk), allocated when first used. */
#define DP_CACHE_WAYS 8 /* at least 2: the entry a turn just looked up is never the one
                         * the next look-up of the turn (optimal's, the account's) evicts */
/* 4,096 sets of 8: 32,768 entries, 537 MB a thread at most (16 chunks). The worm-swing payoffs of a
 * 2-player run come back from a few thousand boards (benchmarks/luck_cost.py --capacity,
 * 50,000 games, the account on; hit rates in the last fifth of the run): the greedy
 * mirror used 15,823 entries (254 MB) and found 99.7% of its turns' programmes solved,
 * optimal v simple 19,527 (313 MB) and 99.6%, as with twice the entries; with half,
 * 99.2% and 98.1% (a miss solves every state: 40 us). 4 ways of 8,192 sets held as many
 * and found 99.4% and 98.9%. Three and four players meet far more payoffs and fill it:
 * the greedy mirror 92.0% at 3 players (97.3% with twice the entries, 888 MB), 72.6% at
 * 4; optimal v simple 87.4% at 3 players (95.7%). */
#define DP_CACHE_SETS 4096
static int dp_cache_sets = DP_CACHE_SETS; /* of a thread's table, when it is made */
/* End-game payoffs (chances to win, from the scores) almost never come back (under one
 * in ten, and then at once: a board no turn changed): they get a small table of their
 * own, which stays in the processor's cache and leaves the big one to the worm-swing
 * payoffs, which come back all the time. */
#define DP_RECENT_SETS 4
typedef struct {
    uint64_t stamp[DP_CACHE_WAYS]; /* 0: unused */
    uint64_t hash[DP_CACHE_WAYS];  /* of the key: compared first */
    DpTurn *turn[DP_CACHE_WAYS];   /* the entry (its block), NULL until first used */
} DpSet;
/* An entry's block: the programme, the solved marks, its key (stop[0..40], bust: turn.stop
 * is key, turn.bust key[41]; the start's mark, the last word, in the key's first line),
 * then the values (DpTurn.value, .roll). */
typedef struct {
    DpTurn turn;
    uint64_t done[DP_WORDS];
    double key[DP_MAX_TOTAL + 2];
} DpHead;
/* What the luck account asked of the cache (account_stats()): turns whose programme was
 * solved already (hits), found half solved (an optimal seat's, completed) or new, and
 * the states it solved; and the per-turn identity it checked (turns, largest residual). */
typedef struct {
    long turns, hits, completed, misses, states, checked;
    double residual;
    long win_lookups, win_misses; /* the win account's own look-ups (not a win-optimal's) */
} AccStats;
typedef struct {
    DpSet *set; /* `sets` of them */
    int sets;
    DpSet recent[DP_RECENT_SETS]; /* the end game's */
    uint64_t clock;
    long hits, misses, entries; /* entries: blocks allocated */
    char *chunk;       /* the entries' blocks are cut from chunks (dp_entry): the newest */
    char *arena;       /* where the next block starts in it */
    size_t arena_left; /* and the bytes left there */
    AccStats acc;
    void *wp_plans; /* win-optimal's plan cache (winprob.inc.c), made when first needed */
    long wp_hits, wp_misses;
    double terms[3 * DP_MAX_ROWS]; /* every entry's scratch: one state is solved at a time */
} DpCache;

/* dp_cache: this thread's cache. dp_batches: the batches playing in this thread (a
 * Python seat's strategy, called back by one, may start another: see dp_batch_enter). */
#if defined(_MSC_VER)
static __declspec(thread) DpCache *dp_cache;
static __declspec(thread) int dp_batches;
#else
static _Thread_local DpCache *dp_cache;
static _Thread_local int dp_batches;
#endif

/* The bytes of an entry's block (whole cache lines). */
static size_t dp_block_bytes(void) {
    size_t bytes = sizeof(DpHead) + (size_t)(DP_N - DP_V0 + DP_NRSLOT) * sizeof(double);
    return (bytes + 63) & ~(size_t)63;
}

/* Entries' blocks are cut from chunks of DP_ARENA bytes (2,094 entries), never freed one
 * by one (an entry is reused in place), on huge pages where the system gives them (fewer
 * misses of the processor's TLB: a turn that finds its programme cost 10-20% less). A
 * chunk's first line links the one before. A full table takes 16 chunks: 537 MB. */
#define DP_ARENA ((size_t)32 << 20)
#define DP_HUGE ((size_t)2 << 20)

static void *dp_chunk(void) {
    void *chunk = NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (posix_memalign(&chunk, DP_HUGE, DP_ARENA) != 0) return NULL;
    madvise(chunk, DP_ARENA, MADV_HUGEPAGE); /* a hint: without it, 4 kB pages */
#else
    chunk = malloc(DP_ARENA);
#endif
    return chunk;
}

/* A new entry, its block from the thread's arena (NULL: no memory). */
static DpTurn *dp_entry(DpCache *c) {
    size_t bytes = dp_block_bytes();
    if (c->chunk == NULL || c->arena_left < bytes) {
        char *chunk = dp_chunk();
        if (chunk == NULL) return NULL;
        *(char **)chunk = c->chunk;
        c->chunk = chunk;
        c->arena = chunk + 64;
        c->arena_left = DP_ARENA - 64;
    }
    DpHead *head = (DpHead *)c->arena;
    c->arena += bytes;
    c->arena_left -= bytes;
    c->entries++;
    DpTurn *t = &head->turn;
    t->stop = head->key;
    t->done = head->done;
    t->value = (double *)(head + 1);
    t->roll = t->value + (DP_N - DP_V0);
    t->par = 0.0;
    t->terms = c->terms;
    return t;
}

/* The caches alive in the process (account_stats: a thread's is freed when it ends). */
static int dp_caches_alive;

/* A cache freed: its chunks, its table. */
static void dp_cache_destroy(void *cache) {
    DpCache *c = cache;
    __atomic_sub_fetch(&dp_caches_alive, 1, __ATOMIC_RELAXED);
    while (c->chunk != NULL) {
        char *before = *(char **)c->chunk;
        free(c->chunk);
        c->chunk = before;
    }
    free(c->wp_plans);
    free(c->set);
    free(c);
}

/* A thread's cache is freed when the thread ends (a process's main thread keeps its cache
 * to the end): a program that plays in short-lived threads does not leak one a thread. */
#if defined(DP_THREAD_KEY)
static pthread_key_t dp_key;
static pthread_once_t dp_key_once = PTHREAD_ONCE_INIT;
static int dp_key_ok;
static void dp_key_make(void) { dp_key_ok = pthread_key_create(&dp_key, dp_cache_destroy) == 0; }
#endif

/* This thread's cache is now c (NULL: none). */
static void dp_cache_use(DpCache *c) {
    dp_cache = c;
#if defined(DP_THREAD_KEY)
    pthread_once(&dp_key_once, dp_key_make);
    if (dp_key_ok) pthread_setspecific(dp_key, c);
#endif
}

/* This thread's cache, made when first needed (NULL: no memory). */
static DpCache *dp_cache_get(void) {
    if (dp_cache == NULL) {
        DpCache *c = calloc(1, sizeof(DpCache));
        if (c == NULL) return NULL;
        c->sets = dp_cache_sets;
        c->set = calloc((size_t)c->sets, sizeof(DpSet));
        if (c->set == NULL) {
            free(c);
            return NULL;
        }
        __atomic_add_fetch(&dp_caches_alive, 1, __ATOMIC_RELAXED);
        dp_cache_use(c);
    }
    return dp_cache;
}

/* This thread's cache freed (the next use makes a new one, of dp_cache_sets sets). */
static void dp_cache_free(void) {
    if (dp_cache == NULL) return;
    dp_cache_destroy(dp_cache);
    dp_cache_use(NULL);
}

/* A batch begins in this thread. A batch started while another plays here (by a Python
 * seat's strategy, from inside a decision) gets a cache of its own: it must not evict or
 * overwrite the programmes the other's seats and account hold (a plugin could spoil its
 * rival's play, or free them under it). Returns what dp_batch_leave restores. */
static DpCache *dp_batch_enter(void) {
    DpCache *outer = NULL;
    if (dp_batches++) {
        outer = dp_cache;
        dp_cache_use(NULL);
    }
    return outer;
}

/* The batch ends: an inner batch's cache freed, the outer's back. */
static void dp_batch_leave(DpCache *outer) {
    if (--dp_batches) {
        dp_cache_free();
        dp_cache_use(outer);
    }
}

/* The programme of a payoff (from the cache, or a fresh one, nothing solved yet); valid
 * until the next call (which may reuse its entry). `endgame`: an end-game payoff (the
 * small table). *found: whether it was in the cache. -1: no memory. */
static int dp_solved(const double stop[DP_MAX_TOTAL + 1], double bust, int endgame,
                     const DpTurn **out, int *found) {
    DpCache *c = dp_cache_get();
    if (c == NULL) return -1;
    double key[DP_MAX_TOTAL + 2];
    memcpy(key, stop, (DP_MAX_TOTAL + 1) * sizeof(double));
    key[DP_MAX_TOTAL + 1] = bust;
    /* FNV-1a's steps in two chains side by side (a turn that finds its programme spends
     * a tenth of its time here otherwise), then murmur3's finaliser: the set is the
     * hash's low bits, and the payoffs' doubles differ in their high bits (whole worms,
     * -inf); with FNV alone 2,619 payoffs of 300 games fell in 1,230 of 16,384 sets, up
     * to 7 in one (lost to a 4-way set), and with the finaliser in 2,419. */
    uint64_t words[DP_MAX_TOTAL + 2], h = 1469598103934665603ULL, h2 = 0x9e3779b97f4a7c15ULL;
    memcpy(words, key, sizeof(words));
    for (int k = 0; k < DP_MAX_TOTAL + 2; k += 2) {
        h = (h ^ words[k]) * 1099511628211ULL;
        h2 = (h2 ^ words[k + 1]) * 1099511628211ULL;
    }
    h ^= (h2 << 32 | h2 >> 32);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    DpSet *set = endgame ? &c->recent[h & (DP_RECENT_SETS - 1)]
                         : &c->set[h & (uint64_t)(c->sets - 1)];
    int way = -1;
    for (int w = 0; w < DP_CACHE_WAYS; w++)
        if (set->stamp[w] && set->hash[w] == h &&
            memcmp(((const DpHead *)set->turn[w])->key, key, sizeof(key)) == 0)
            way = w;
    *found = way >= 0;
    if (way >= 0) {
        c->hits++;
    } else {
        way = 0; /* the way used least recently (or never) */
        for (int w = 1; w < DP_CACHE_WAYS; w++)
            if (set->stamp[w] < set->stamp[way]) way = w;
        if (set->turn[way] == NULL && (set->turn[way] = dp_entry(c)) == NULL) return -1;
        DpTurn *t = set->turn[way];
        memcpy((double *)t->stop, key, sizeof(key));
        t->bust = bust;
        memset(t->done, 0, DP_WORDS * sizeof(uint64_t)); /* nothing solved for it yet */
        set->hash[way] = h;
        c->misses++;
    }
    set->stamp[way] = ++c->clock;
    *out = set->turn[way];
    return 0;
}
