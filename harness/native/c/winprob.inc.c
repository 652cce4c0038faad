/* The win-probability evaluator (harness/winprob/) and the native `win-optimal` strategy
 * (harness/strategies/win_optimal.py): a part of core.c (#included after optimal.inc.c,
 * whose turn programme, stop values, pick, stop and claim it shares).
 *
 * Bit for bit with the Python evaluator:
 *  - the features are harness/winprob/features.py's integers, seats from the one to move;
 *  - the network is int64 throughout (sums wrap as numpy's int64 do: computed unsigned,
 *    so no C overflow; `>>` of a negative int64 is arithmetic with GCC and Clang, numpy's
 *    floor), ReLU between layers;
 *  - the softmax is Model.chances_of: exp((v - max) * 2**-out_shift) per seat (libm's exp,
 *    as math.exp), summed in seat order, each divided by the sum; then, for a model with a
 *    chance map (HWP2), Model.mapped: each share through the knots' line, the results
 *    summed in seat order, each divided by the sum;
 *  - the end of the game (R10) is result_shares (R11: a tie shares first place);
 *  - without a model for the player count, normal_chances: the product of
 *    0.5 * (1 + erf(d / sigma / sqrt(2))) over the others, normalised by the builtin sum()
 *    of the seats' values (Neumaier-compensated from Python 3.12: the flag the host
 *    passes says which this Python does);
 *  - the endings are harness.winprob.endings': each grill tile claimed, each rival's top
 *    stolen, the bust (R9 with the variants: the engine's own bust_flip).
 * Built with -ffp-contract=off (setup.py): no fused multiply-add anywhere in core.c.
 *
 * The models are installed from Python (wp_install: the evaluator's checked Model as its
 * file's bytes, harness/native/evaluators.py), one per player count, before a batch that
 * seats win-optimal plays; a table that seats it with none installed is refused
 * (parse_table). A plan cache per thread (in the solved turns' cache: freed with it) keeps
 * each board's ending values: the network is run once per board, not once per turn. */

#define WP_MAX_LAYERS 16
#define WP_MAX_WIDTH 1024
#define WP_PLANS 8192 /* boards kept per thread (direct-mapped), about 2.5 MB */

typedef struct {
    int layers, out_shift;
    int rows[WP_MAX_LAYERS], cols[WP_MAX_LAYERS], shift[WP_MAX_LAYERS];
    int64_t *w[WP_MAX_LAYERS], *b[WP_MAX_LAYERS];
    /* a layer's weights as int16, rows padded with zeros to a multiple of 16 columns,
     * when every weight is within +-32767 (NULL: not every one is) */
    int16_t *w16[WP_MAX_LAYERS];
    int knots;    /* the chance map's K (HWP2; 0: none, HWP1) */
    double *knot; /* its K + 1 knots, y_0 .. y_K */
} WpModel;

#define WP_MAX_KNOTS 1024 /* model.MAX_KNOTS */

#define WP_PAD16(cols) (((cols) + 15) & ~15)

/* Per slot (the preset of the rules: official, piko-blog, french, short; a mix of variant
 * keys is judged as the official rules, slot 0) and player count: 0 nothing installed
 * (win-optimal refused), 1 the normal approximation, 2 a model. Python installs in each
 * slot the model its evaluator uses for those rules (the preset's own, else the official
 * rules'), so that tables of two presets never share, or swap, a model mid-batch.
 * wp_model[..][n] is never freed once installed (a batch of another thread may read it);
 * a new install leaks the old one (tests install a few). */
static int wp_mode[WP_SLOTS][MAXP + 1];
static const WpModel *wp_model[WP_SLOTS][MAXP + 1];
static int wp_neumaier;         /* 1: sum() of floats is compensated (Python >= 3.12) */
static uint32_t wp_generation; /* changes at each install: the plan caches' keys hold it */

/* The position after a turn, as harness.winprob.Position: the grill, the stacks in order,
 * the seat to move. */
typedef struct {
    uint64_t grill;
    int n, to_move;
    int slot; /* the evaluator that judges it (Game.wp_slot) */
    int len[MAXP];
    uint8_t stack[MAXP][NTILES];
} WpPos;

static void wp_from_game(const Game *g, WpPos *p) {
    p->grill = g->grill;
    p->n = g->n;
    p->slot = g->wp_slot;
    p->to_move = g->seat;
    for (int s = 0; s < g->n; s++) {
        p->len[s] = g->len[s];
        memcpy(p->stack[s], g->stack[s], (size_t)g->len[s]);
    }
}

static inline int wp_score(const WpPos *p, int s) {
    int sum = 0;
    for (int k = 0; k < p->len[s]; k++) sum += WORMS[p->stack[s][k]];
    return sum;
}

static inline int wp_highest(const WpPos *p, int s) {
    int high = 0;
    for (int k = 0; k < p->len[s]; k++)
        if (p->stack[s][k] > high) high = p->stack[s][k];
    return high;
}

/* features.py features(): PER_SEAT integers per seat from the one to move, then the grill's
 * bits 21..36, its count and its worms. Returns how many (7 * n + 18). */
static int wp_features(const WpPos *p, int64_t *out) {
    int n = p->n, scores[MAXP], at = 0;
    for (int s = 0; s < n; s++) scores[s] = wp_score(p, s);
    for (int k = 0; k < n; k++) {
        int seat = (p->to_move + k) % n, len = p->len[seat];
        int best_other = INT_MIN;
        for (int j = 0; j < n; j++)
            if (j != seat && scores[j] > best_other) best_other = scores[j];
        int top = len ? p->stack[seat][len - 1] : 0;
        int below = len > 1 ? p->stack[seat][len - 2] : 0;
        int high = wp_highest(p, seat);
        out[at++] = scores[seat];
        out[at++] = scores[seat] - best_other;
        out[at++] = WORMS[top];
        out[at++] = top ? top - 20 : 0;
        out[at++] = WORMS[below];
        out[at++] = len ? high - 20 : 0;
        out[at++] = len;
    }
    int count = 0, worms = 0;
    for (int t = LOWEST_TILE; t <= HIGHEST_TILE; t++) {
        int up = (int)(p->grill >> t & 1);
        out[at++] = up;
        count += up;
        worms += WORMS[t] * up;
    }
    out[at++] = count;
    out[at++] = worms;
    return at;
}

/* A row's dot product modulo 2**64 (numpy's int64 wraps: unsigned sums wrap the same,
 * and are defined in C). */
static uint64_t wp_dot_plain(const int64_t *w, const int64_t *h, int n) {
    uint64_t sum = 0;
    for (int c = 0; c < n; c++) sum += (uint64_t)w[c] * (uint64_t)h[c];
    return sum;
}

#ifdef HAVE_AVX2_SEED
/* The same with AVX2, for inputs that fit in int32 (the weights always do: the file's
 * are int32): _mm256_mul_epi32 multiplies the low, signed 32 bits of each 64-bit lane,
 * exactly, and the lanes' sums wrap modulo 2**64 as the plain one does: an integer sum
 * in any order is the same sum. */
__attribute__((target("avx2"))) static uint64_t wp_dot_avx2(const int64_t *w, const int64_t *h,
                                                            int n) {
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    int c = 0;
    for (; c + 8 <= n; c += 8) {
        __m256i w0 = _mm256_loadu_si256((const __m256i *)(w + c));
        __m256i h0 = _mm256_loadu_si256((const __m256i *)(h + c));
        __m256i w1 = _mm256_loadu_si256((const __m256i *)(w + c + 4));
        __m256i h1 = _mm256_loadu_si256((const __m256i *)(h + c + 4));
        acc0 = _mm256_add_epi64(acc0, _mm256_mul_epi32(w0, h0));
        acc1 = _mm256_add_epi64(acc1, _mm256_mul_epi32(w1, h1));
    }
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, _mm256_add_epi64(acc0, acc1));
    uint64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    for (; c < n; c++) sum += (uint64_t)w[c] * (uint64_t)h[c];
    return sum;
}
#endif

#ifdef HAVE_AVX2_SEED
/* A layer's rows with int16 weights and inputs (all within +-32767): _mm256_madd_epi16
 * multiplies sixteen pairs and adds them two by two into int32 lanes, exactly (a pair's
 * sum is at most 2 * 32767**2 < 2**31), then widened into int64 sums: every product
 * exact, so the sum is the plain one. `h` and each row padded to `cols16` (zeros). */
__attribute__((target("avx2"))) static void wp_rows16_avx2(const int16_t *w, const int16_t *h,
                                                          int rows, int cols16, uint64_t *out) {
    for (int r = 0; r < rows; r++) {
        const int16_t *wr = w + (size_t)r * cols16;
        __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
        for (int c = 0; c < cols16; c += 16) {
            __m256i m = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(wr + c)),
                                          _mm256_loadu_si256((const __m256i *)(h + c)));
            acc0 = _mm256_add_epi64(acc0, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(m)));
            acc1 = _mm256_add_epi64(acc1, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1)));
        }
        uint64_t lanes[4];
        _mm256_storeu_si256((__m256i *)lanes, _mm256_add_epi64(acc0, acc1));
        out[r] = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    }
}
#endif

#if defined(HAVE_AVX2_SEED) && defined(__SSE2__)
#define HAVE_WP_SSE2 1
/* The same in SSE2 (every x86-64): eight products a step, each int32 pair sum widened
 * with its sign (SSE2 has no sign extension of its own). */
static void wp_rows16_sse2(const int16_t *w, const int16_t *h, int rows, int cols16,
                           uint64_t *out) {
    for (int r = 0; r < rows; r++) {
        const int16_t *wr = w + (size_t)r * cols16;
        __m128i acc0 = _mm_setzero_si128(), acc1 = _mm_setzero_si128();
        for (int c = 0; c < cols16; c += 8) {
            __m128i m = _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(wr + c)),
                                       _mm_loadu_si128((const __m128i *)(h + c)));
            __m128i sign = _mm_srai_epi32(m, 31);
            acc0 = _mm_add_epi64(acc0, _mm_unpacklo_epi32(m, sign));
            acc1 = _mm_add_epi64(acc1, _mm_unpackhi_epi32(m, sign));
        }
        uint64_t lanes[2];
        _mm_storeu_si128((__m128i *)lanes, _mm_add_epi64(acc0, acc1));
        out[r] = lanes[0] + lanes[1];
    }
}
#endif

/* The dot product for inputs within int32 and the int16 rows (NULL: none), as
 * wp_use_lanes chooses, the turn programme's widths (dp_lanes): 4 AVX2 where the
 * processor has it, 2 SSE2 (the int16 rows), 0 the plain dot product (set_portable). */
static uint64_t (*wp_dot_small)(const int64_t *, const int64_t *, int) = wp_dot_plain;
static void (*wp_rows16)(const int16_t *, const int16_t *, int, int, uint64_t *);

static void wp_use_lanes(int most) {
    wp_dot_small = wp_dot_plain;
    wp_rows16 = NULL;
#ifdef HAVE_WP_SSE2
    if (most >= 2) wp_rows16 = wp_rows16_sse2;
#endif
#ifdef HAVE_AVX2_SEED
    __builtin_cpu_init();
    if (most >= 4 && __builtin_cpu_supports("avx2")) {
        wp_dot_small = wp_dot_avx2;
        wp_rows16 = wp_rows16_avx2;
    }
#endif
}

/* A layer's sums (before the bias), by the fastest path its inputs allow. */
static void wp_layer_sums(const WpModel *m, int l, const int64_t *h, uint64_t *sums) {
    int rows = m->rows[l], cols = m->cols[l], small = 1, tiny = 1;
    for (int c = 0; c < cols; c++) {
        small &= h[c] >= INT32_MIN && h[c] <= INT32_MAX;
        tiny &= h[c] >= -32767 && h[c] <= 32767;
    }
    if (tiny && m->w16[l] != NULL && wp_rows16 != NULL) {
        int16_t h16[WP_PAD16(WP_MAX_WIDTH)];
        for (int c = 0; c < WP_PAD16(cols); c++) h16[c] = c < cols ? (int16_t)h[c] : 0;
        wp_rows16(m->w16[l], h16, rows, WP_PAD16(cols), sums);
        return;
    }
    uint64_t (*dot)(const int64_t *, const int64_t *, int) = small ? wp_dot_small : wp_dot_plain;
    for (int r = 0; r < rows; r++) sums[r] = dot(m->w[l] + (size_t)r * cols, h, cols);
}

/* Model.logits of one row: int64 sums (wrapping), shifted right (floor), ReLU but last. */
static void wp_logits(const WpModel *m, const int64_t *in, int64_t *out) {
    int64_t a[WP_MAX_WIDTH], b[WP_MAX_WIDTH];
    const int64_t *h = in;
    for (int l = 0; l < m->layers; l++) {
        int rows = m->rows[l], last = l == m->layers - 1;
        int64_t *o = last ? out : (l % 2 ? b : a);
        uint64_t sums[WP_MAX_WIDTH];
        wp_layer_sums(m, l, h, sums);
        for (int r = 0; r < rows; r++) {
            uint64_t sum = sums[r] + (uint64_t)m->b[l][r];
            int64_t v = (int64_t)sum >> m->shift[l]; /* arithmetic: floor, as numpy */
            o[r] = last || v > 0 ? v : 0;
        }
        h = o;
    }
}

/* Model.chances_of of one row's logits: the softmax's share of rotated seat k. */
static double wp_softmax(const WpModel *m, const int64_t *logits, int n, int k) {
    double scale = ldexp(1.0, -m->out_shift); /* 2.0 ** -out_shift, exactly */
    int64_t top = logits[0];
    for (int s = 1; s < n; s++)
        if (logits[s] > top) top = logits[s];
    double e[MAXP], total = 0.0;
    for (int s = 0; s < n; s++) { /* v - top is a Python int: exact, then one rounding; */
        uint64_t below = (uint64_t)top - (uint64_t)logits[s]; /* top - v < 2**64: exact */
        e[s] = exp(-(double)below * scale); /* rounding to nearest is symmetric in sign */
    }
    for (int s = 0; s < n; s++) total += e[s];
    if (!m->knots) return e[k] / total;
    /* Model.mapped: the same operations in the same order */
    const double *y = m->knot;
    double g[MAXP], sum = 0.0;
    for (int s = 0; s < n; s++) {
        double t = e[s] / total * (double)m->knots;
        int at = (int)t; /* t >= 0: int() of Python, a floor */
        if (at > m->knots - 1) at = m->knots - 1;
        g[s] = y[at] + (t - (double)at) * (y[at + 1] - y[at]);
    }
    for (int s = 0; s < n; s++) sum += g[s];
    return g[k] / sum;
}

/* The builtin sum() of doubles from the int 0: plain (Python 3.11) or Neumaier-compensated
 * (3.12 and later: bltinmodule.c's float loop). */
static double wp_pysum(const double *x, int n) {
    double sum = x[0], c = 0.0; /* 0 + x[0] is x[0] for the non-negative values here */
    for (int i = 1; i < n; i++) {
        if (!wp_neumaier) {
            sum += x[i];
            continue;
        }
        double t = sum + x[i];
        if (fabs(sum) >= fabs(x[i])) c += (sum - t) + x[i];
        else c += (x[i] - t) + sum;
        sum = t;
    }
    if (wp_neumaier && c != 0.0 && isfinite(c)) sum += c;
    return sum;
}

/* evaluator.normal_chances(position)[seat]. */
static double wp_normal(const WpPos *p, int seat) {
    int n = p->n, scores[MAXP], left = 0;
    for (int s = 0; s < n; s++) scores[s] = wp_score(p, s);
    for (int t = LOWEST_TILE; t <= HIGHEST_TILE; t++)
        if (p->grill >> t & 1) left += WORMS[t];
    double sigma = sqrt(2.5 * (double)left), raw[MAXP];
    for (int i = 0; i < n; i++) {
        double c = 1.0;
        for (int j = 0; j < n; j++)
            if (j != i)
                c *= 0.5 * (1.0 + erf((double)(scores[i] - scores[j]) / sigma / sqrt(2.0)));
        raw[i] = c;
    }
    return raw[seat] / wp_pysum(raw, n);
}

/* position.result_shares(position)[seat]: R11, a k-way tie 1/k. */
static double wp_shares(const WpPos *p, int seat) {
    int n = p->n, key[MAXP], best = INT_MIN, count = 0;
    for (int s = 0; s < n; s++) {
        key[s] = wp_score(p, s) * 64 + wp_highest(p, s);
        if (key[s] > best) best = key[s];
    }
    for (int s = 0; s < n; s++) count += key[s] == best;
    return key[seat] == best ? 1.0 / (double)count : 0.0;
}

/* Evaluator.chances(position)[seat]. */
static double wp_chance(const WpPos *p, int seat) {
    if (!p->grill) return wp_shares(p, seat);
    const WpModel *m = wp_mode[p->slot][p->n] == 2 ? wp_model[p->slot][p->n] : NULL;
    if (m == NULL) return wp_normal(p, seat);
    int64_t in[WP_MAX_WIDTH], logits[WP_MAX_WIDTH];
    wp_features(p, in);
    wp_logits(m, in, logits);
    return wp_softmax(m, logits, p->n, ((seat - p->to_move) % p->n + p->n) % p->n);
}

/* Evaluator.chances(position): every seat's chance (out[0..n)), each wp_chance's bits,
 * the network run once. */
static void wp_chances_all(const WpPos *p, double *out) {
    int n = p->n;
    const WpModel *m = wp_mode[p->slot][n] == 2 ? wp_model[p->slot][n] : NULL;
    if (!p->grill || m == NULL) {
        for (int s = 0; s < n; s++) out[s] = wp_chance(p, s);
        return;
    }
    int64_t in[WP_MAX_WIDTH], logits[WP_MAX_WIDTH];
    wp_features(p, in);
    wp_logits(m, in, logits);
    for (int s = 0; s < n; s++)
        out[s] = wp_softmax(m, logits, n, ((s - p->to_move) % n + n) % n);
}

/* settle_claim on a position: `tile` from the grill (victim -1) or from victim's top. */
static void wp_claim(WpPos *p, int seat, int tile, int victim) {
    if (victim < 0) p->grill ^= 1ULL << tile;
    else p->len[victim]--;
    p->stack[seat][p->len[seat]++] = (uint8_t)tile;
}

/* settle_bust on a position: the top back face up, the turned tile face down (R9). */
static void wp_bust(const Game *g, WpPos *p, int seat) {
    int returned = 0;
    if (p->len[seat]) {
        returned = p->stack[seat][--p->len[seat]];
        p->grill |= 1ULL << returned;
    }
    int flip = bust_flip(g, p->grill, returned);
    if (flip) p->grill ^= 1ULL << flip;
}

/* WinOptimal._ending_values: the mover's chance after each ending (gv[tile], sv[victim]);
 * returns the bust's. `here` is the position at the turn's start. */
static double wp_ending_values(const Game *g, const WpPos *here, int seat, double *gv,
                               double *sv) {
    WpPos p;
    for (int t = LOWEST_TILE; t <= HIGHEST_TILE; t++)
        if (here->grill >> t & 1) {
            p = *here;
            wp_claim(&p, seat, t, -1);
            p.to_move = (seat + 1) % p.n;
            gv[t] = wp_chance(&p, seat);
        }
    for (int v = 0; v < here->n; v++)
        if (v != seat && here->len[v]) {
            p = *here;
            wp_claim(&p, seat, here->stack[v][here->len[v] - 1], v);
            p.to_move = (seat + 1) % p.n;
            sv[v] = wp_chance(&p, seat);
        }
    p = *here;
    wp_bust(g, &p, seat);
    p.to_move = (seat + 1) % p.n;
    return wp_chance(&p, seat);
}

/* ---- the plan cache: a board's ending values, per thread ---- */
typedef struct {
    uint64_t grill, hash; /* hash 0: empty */
    uint32_t generation;
    uint8_t n, seat, flip_mode, flip_without, keep_returned, slot, count;
    uint8_t tiles[NTILES + MAXP]; /* the stacks, each its length then its tiles */
    double gv[NTILES], sv[MAXP], bust;
} WpPlan;

static int wp_plan_key(const Game *g, int seat, WpPlan *k) {
    memset(k, 0, sizeof(*k));
    k->grill = g->grill;
    k->generation = wp_generation;
    k->n = (uint8_t)g->n;
    k->seat = (uint8_t)seat;
    k->flip_mode = (uint8_t)g->flip_mode;
    k->flip_without = (uint8_t)g->flip_without;
    k->keep_returned = (uint8_t)g->keep_returned;
    k->slot = (uint8_t)g->wp_slot;
    int at = 0;
    for (int s = 0; s < g->n; s++) {
        k->tiles[at++] = (uint8_t)g->len[s];
        for (int j = 0; j < g->len[s]; j++) k->tiles[at++] = g->stack[s][j];
    }
    k->count = (uint8_t)at;
    uint64_t h = g->grill * 0x9e3779b97f4a7c15ULL ^ (uint64_t)seat << 56 ^
                 (uint64_t)wp_generation << 40 ^ (uint64_t)(g->wp_slot * 16 + g->flip_mode * 4 +
                                                             g->flip_without * 2 + g->keep_returned)
                                                 << 32;
    for (int j = 0; j < at; j++) h = (h ^ k->tiles[j]) * 1099511628211ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    k->hash = h | 1;
    return (int)(h >> 7) & (WP_PLANS - 1);
}

static int wp_same_key(const WpPlan *a, const WpPlan *b) {
    return a->hash == b->hash && a->grill == b->grill && a->generation == b->generation &&
           a->n == b->n && a->seat == b->seat && a->flip_mode == b->flip_mode &&
           a->flip_without == b->flip_without && a->keep_returned == b->keep_returned &&
           a->slot == b->slot &&
           a->count == b->count && memcmp(a->tiles, b->tiles, a->count) == 0;
}

/* The ending values of `seat`'s turn on the board (gv[tile], sv[victim], *bust), from the
 * plan cache or the evaluator; *again: the board came back (it may come back again).
 * -1: no memory. Shared by win-optimal's plan and the win account (account.inc.c). */
static int wp_endings(Game *g, int seat, double *gv, double *sv, double *bust_out,
                      int *again_out) {
    double bust;
    DpCache *c = dp_cache_get();
    if (c == NULL) return -1;
    if (c->wp_plans == NULL && (c->wp_plans = calloc(WP_PLANS, sizeof(WpPlan))) == NULL)
        return -1;
    WpPlan key, *slot = (WpPlan *)c->wp_plans + wp_plan_key(g, seat, &key);
    int again = wp_same_key(slot, &key);
    if (again) {
        for (int t = LOWEST_TILE; t <= HIGHEST_TILE; t++) gv[t] = slot->gv[t - LOWEST_TILE];
        memcpy(sv, slot->sv, sizeof(slot->sv));
        bust = slot->bust;
        c->wp_hits++;
    } else {
        WpPos here;
        wp_from_game(g, &here);
        here.to_move = seat;
        bust = wp_ending_values(g, &here, seat, gv, sv);
        key.bust = bust;
        for (int t = LOWEST_TILE; t <= HIGHEST_TILE; t++) key.gv[t - LOWEST_TILE] = gv[t];
        memcpy(key.sv, sv, sizeof(key.sv));
        *slot = key;
        c->wp_misses++;
    }
    *bust_out = bust;
    *again_out = again;
    return 0;
}

/* WinOptimal._plan at the turn's first roll: the ending values (wp_endings), the stop
 * values, the turn's programme. -1: no memory. */
static int win_plan(Game *g, int seat) {
    double *gv = g->opt_grill[seat], *sv = g->opt_steal[seat], bust;
    int again;
    if (wp_endings(g, seat, gv, sv, &bust, &again) < 0) return -1;
    double stop[DP_MAX_TOTAL + 1];
    stop_values(g, seat, gv, sv, stop);
    g->opt_swing[seat] = 0; /* not the worm swing: the account solves its own */
    int found; /* a new board's programme in the small table of payoffs that seldom come
                * back (the end game's), a board seen before in the big one */
    return dp_solved(stop, bust, !again, &g->opt_turn[seat], &found);
}

/* ---- installing a model (harness/native/evaluators.py) ---- */
static uint32_t wp_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wp_free(WpModel *m) {
    for (int l = 0; l < WP_MAX_LAYERS; l++) {
        free(m->w[l]);
        free(m->b[l]);
        free(m->w16[l]);
    }
    free(m->knot);
    free(m);
}

/* Layer l's int16 rows (WpModel.w16) when every weight fits; -1: no memory. */
static int wp_make16(WpModel *m, int l) {
    size_t rows = (size_t)m->rows[l], cols = (size_t)m->cols[l], cols16 = WP_PAD16(cols);
    for (size_t k = 0; k < rows * cols; k++)
        if (m->w[l][k] < -32767 || m->w[l][k] > 32767) return 0; /* the int32 paths only */
    int16_t *w16 = calloc(rows * cols16, sizeof(int16_t));
    if (w16 == NULL) return -1;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) w16[r * cols16 + c] = (int16_t)m->w[l][r * cols + c];
    m->w16[l] = w16;
    return 0;
}

static double wp_f64(const uint8_t *p) {
    uint64_t bits = (uint64_t)wp_u32(p) | (uint64_t)wp_u32(p + 4) << 32;
    double v;
    memcpy(&v, &bits, sizeof(v));
    return v;
}

/* A model from its file's bytes (model.py's format, HWP1 or HWP2), checked against `players`:
 * NULL with the reason in `why`. */
static WpModel *wp_parse(const uint8_t *d, size_t size, int players, char *why, size_t cap) {
    WpModel *m = calloc(1, sizeof(WpModel));
    if (m == NULL) {
        snprintf(why, cap, "no memory for the model");
        return NULL;
    }
    size_t at = 16;
    int width = PER_SEAT_FEATURES * players + GRILL_FEATURES;
    int mapped = size >= 16 && memcmp(d, "HWP2", 4) == 0;
    if (size < 16 || (memcmp(d, "HWP1", 4) != 0 && !mapped)) {
        snprintf(why, cap, "not a model file (its first bytes are not HWP1 or HWP2)");
        goto bad;
    }
    if ((int)wp_u32(d + 4) != players) {
        snprintf(why, cap, "a model for %u players, not %d", wp_u32(d + 4), players);
        goto bad;
    }
    m->layers = (int)wp_u32(d + 8);
    m->out_shift = (int)(wp_u32(d + 12) > 4096 ? 4096 : wp_u32(d + 12)); /* 2**-4096: 0.0 */
    if (m->layers < 1 || m->layers > WP_MAX_LAYERS) {
        snprintf(why, cap, "%d layers: the native engine takes 1 to %d", m->layers,
                 WP_MAX_LAYERS);
        goto bad;
    }
    for (int l = 0; l < m->layers; l++) {
        if (size - at < 12) goto short_file;
        uint32_t rows = wp_u32(d + at), cols = wp_u32(d + at + 4), shift = wp_u32(d + at + 8);
        at += 12;
        if (cols != (uint32_t)width || rows < 1 || rows > WP_MAX_WIDTH || shift > 63) {
            snprintf(why, cap, "layer %d: %u x %u, shift %u (inputs %d, widths 1 to %d, shifts"
                     " 0 to 63)", l, rows, cols, shift, width, WP_MAX_WIDTH);
            goto bad;
        }
        if ((size - at) / 4 < (size_t)rows * (cols + 1)) goto short_file;
        m->rows[l] = (int)rows;
        m->cols[l] = (int)cols;
        m->shift[l] = (int)shift;
        m->w[l] = malloc(sizeof(int64_t) * rows * cols);
        m->b[l] = malloc(sizeof(int64_t) * rows);
        if (m->w[l] == NULL || m->b[l] == NULL) {
            snprintf(why, cap, "no memory for the model");
            goto bad;
        }
        for (size_t k = 0; k < (size_t)rows * cols; k++, at += 4)
            m->w[l][k] = (int32_t)wp_u32(d + at);
        for (size_t k = 0; k < rows; k++, at += 4) m->b[l][k] = (int32_t)wp_u32(d + at);
        if (wp_make16(m, l) < 0) {
            snprintf(why, cap, "no memory for the model");
            goto bad;
        }
        width = (int)rows;
    }
    if (width != players) {
        snprintf(why, cap, "the last layer has %d rows, not one per seat (%d)", width, players);
        goto bad;
    }
    if (mapped) { /* model._knots: K, then K + 1 finite knots above 0, none falling */
        if (size - at < 4) goto short_file;
        uint32_t count = wp_u32(d + at);
        at += 4;
        if (count < 1 || count > WP_MAX_KNOTS) {
            snprintf(why, cap, "a chance map of %u intervals (1 to %d)", count, WP_MAX_KNOTS);
            goto bad;
        }
        if ((size - at) / 8 < (size_t)count + 1) goto short_file;
        if ((m->knot = malloc(sizeof(double) * (count + 1))) == NULL) {
            snprintf(why, cap, "no memory for the model");
            goto bad;
        }
        m->knots = (int)count;
        for (uint32_t k = 0; k <= count; k++, at += 8) {
            double v = wp_f64(d + at);
            if (!isfinite(v) || !(v > 0)) {
                snprintf(why, cap, "a chance map's knots must be finite and above 0");
                goto bad;
            }
            if (k && v < m->knot[k - 1]) {
                snprintf(why, cap, "a chance map's knots must not fall (the map is monotone)");
                goto bad;
            }
            m->knot[k] = v;
        }
    }
    if (at != size) {
        snprintf(why, cap, "%zu bytes after the last layer", size - at);
        goto bad;
    }
    return m;
short_file:
    snprintf(why, cap, "the file ends inside a layer or its chance map");
bad:
    wp_free(m);
    return NULL;
}
