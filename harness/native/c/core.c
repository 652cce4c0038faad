/* harness._native_core: the native engine tier.
 *
 * Plays whole batches of Pickomino games in C, bit-identical to the Python engine
 * (harness/engine.py, the reference): the same rules (R1-R11 and every RULES.md
 * variant), the same dice (CPython's MT19937, seeded and drawn exactly as
 * random.Random(seed).getrandbits does it for harness/dice.py), the same seeds
 * (harness.dice.derive_seed is BLAKE2b-64 of the parts' str() joined by 0x1f) and the
 * same decisions of the built-in strategies (the strategies package, transcribed here
 * decision for decision, float operations in the same order).
 *
 * Nothing here is a new rule: every function names the Python it mirrors. When the
 * two ever disagree the Python engine is right and tests/native/test_native.py fails.
 *
 * Entry points (see harness/native.py, which is the only caller):
 *   play_deals(...)    the chunk path: deal seeds derived here, every deal played in
 *                      every seat order of the seating design
 *   play_games(...)    explicit rows: seat order, dice seed and game seed per game
 *   chunk_stats(...)   the standings counters of a chunk's rows
 *   derive_seed(b)     BLAKE2b-64 of bytes, as an int (for tests)
 *   mt_words(seed, n)  the first n 32-bit outputs of random.Random(seed) (for tests)
 *   dp_states(), dp_solve(stop, bust), dp_cache_stats(), dp_lanes(n)  optimal's turn
 *                      programme (for tests)
 *   account_stats(), dp_cache_size(sets)  the luck account's cache and checks (tests,
 *                      benchmarks); play_deals and play_games keep the account (account.inc.c)
 *                      when given its columns
 *   set_portable(flag) the SIMD-free seeding, hashing and turn programme (tests)
 *
 * Speed, where it comes from: seeds are hashed four at a time and generators seeded
 * sixteen at a time (vector lanes), the twist is done word by word as words are
 * drawn, a turn's first four rolls are decoded at once, rolls and greedy picks are
 * table lookups; optimal's turn programmes are solved lazily, a template's states two or
 * four at a time (vector lanes). Built with -ffp-contract=off (setup.py): no fused
 * multiply-add, so every float operation rounds as Python's does.
 */
#ifndef HARNESS_NO_PYTHON
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#else /* the engine alone, for a C benchmark or debugger: no bindings */
#include <stddef.h>
typedef ptrdiff_t Py_ssize_t;
#define PyMem_Calloc calloc
#define PyMem_Free free
#endif

#include <limits.h> /* LLONG_MAX: the last episode number (vecenv.inc.c) */
#include <math.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h> /* madvise: huge pages for the solved turns (turn_dp.inc.c) */
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h> /* a thread's solved turns freed when it ends (turn_dp.inc.c) */
#define DP_THREAD_KEY 1
#endif
#include <stdlib.h>
#include <string.h>

#define MAXP 7      /* R3: 2..7 players */
#define NTILES 16   /* R1: tiles 21..36 */
#define WORM 6      /* R2: the worm is face 6 */
#define ALL_FACES 0x7Eu
#define DETAIL_BYTES 128 /* per game: grill16, flipped16, then per seat len + 16 tiles */

static const int FACE_POINTS[7] = {0, 1, 2, 3, 4, 5, 5};
static int WORMS[41]; /* WORMS[tile]: worms printed on it (R1), 0 off 21..36 */

static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }
static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int highest_bit(uint64_t x) { return 63 - __builtin_clzll(x); }
static inline int lowest_bit(uint64_t x) { return __builtin_ctzll(x); }

/* ==== MT19937 exactly as CPython's _randommodule.c ================================= */
#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t s[MT_N];
    int i; /* next word to generate; MT_N: the next one starts a new generation */
} MT;

static uint32_t MT_BASE[MT_N]; /* init_genrand(19650218): where init_by_array starts */

static void mt_init_base(void) {
    MT_BASE[0] = 19650218U;
    for (int i = 1; i < MT_N; i++)
        MT_BASE[i] = 1812433253U * (MT_BASE[i - 1] ^ (MT_BASE[i - 1] >> 30)) + (uint32_t)i;
}

/* init_by_array, as random_seed() calls it with the 32-bit words of abs(seed). */
static void mt_seed_key(MT *m, const uint32_t *key, size_t klen) {
    uint32_t *mt = m->s;
    memcpy(mt, MT_BASE, sizeof(MT_BASE));
    size_t i = 1, j = 0, k = MT_N > klen ? MT_N : klen;
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
        if (j >= klen) j = 0;
    }
    for (k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
    m->i = MT_N;
}

/* random.Random(s) for an int s: the key is abs(s) in 32-bit words, [0] for 0. */
static void mt_seed_u64(MT *m, uint64_t s) {
    uint32_t key[2] = {(uint32_t)s, (uint32_t)(s >> 32)};
    mt_seed_key(m, key, key[1] ? 2 : 1);
}

static inline uint64_t abs64(int64_t s) { return s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s; }

/* Seeding is init_by_array's 1,247 steps, each waiting for the one before: about 6,000
 * cycles, as much as a whole game. Sixteen generators are seeded at once, one per lane
 * (with AVX2: two registers of eight), so the chains run side by side; every lane
 * computes exactly the scalar mt_seed_u64 (keys of one or two words: the addend of step
 * t is key[t % len] + t % len, so two addend vectors cover both lengths). */
#define LANES 16

/* The portable version: the lanes as arrays, one step of every lane at a time (a
 * compiler that vectorises loops turns each step into a few vector instructions). */
static void seed_lanes_plain(MT *const *mts, const uint64_t *seeds, int count) {
    uint32_t bank[MT_N][LANES];
    uint32_t add0[LANES], add1[LANES], prev[LANES];
    for (int l = 0; l < LANES; l++) {
        uint64_t s = l < count ? seeds[l] : 0;
        uint32_t lo = (uint32_t)s, hi = (uint32_t)(s >> 32);
        add0[l] = lo;                /* step t even: key[0] + 0 */
        add1[l] = hi ? hi + 1u : lo; /* t odd: key[1] + 1, or key[0] + 0 for one word */
        prev[l] = MT_BASE[0];
    }
    for (int i = 1; i < MT_N; i++) { /* step t = i - 1 */
        const uint32_t *add = (i & 1) ? add0 : add1;
        for (int l = 0; l < LANES; l++) {
            prev[l] = (MT_BASE[i] ^ ((prev[l] ^ (prev[l] >> 30)) * 1664525U)) + add[l];
            bank[i][l] = prev[l];
        }
    }
    for (int l = 0; l < LANES; l++) { /* t = 623 wraps to i = 1 */
        bank[0][l] = prev[l];
        prev[l] = (bank[1][l] ^ ((prev[l] ^ (prev[l] >> 30)) * 1664525U)) + add1[l];
        bank[1][l] = prev[l];
    }
    for (int i = 2; i < MT_N; i++)
        for (int l = 0; l < LANES; l++) {
            prev[l] = (bank[i][l] ^ ((prev[l] ^ (prev[l] >> 30)) * 1566083941U)) - (uint32_t)i;
            bank[i][l] = prev[l];
        }
    for (int l = 0; l < LANES; l++) {
        bank[0][l] = prev[l];
        bank[1][l] = (bank[1][l] ^ ((prev[l] ^ (prev[l] >> 30)) * 1566083941U)) - 1U;
        bank[0][l] = 0x80000000U;
    }
    for (int i0 = 0; i0 < MT_N; i0 += 16) /* 16 words of every lane at a time: cache lines */
        for (int l = 0; l < count; l++)
            for (int k = 0; k < 16; k++) mts[l]->s[i0 + k] = bank[i0 + k][l];
    for (int l = 0; l < count; l++) mts[l]->i = MT_N;
}

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define HAVE_AVX2_SEED 1

/* The same with AVX2: sixteen lanes in two registers, two independent chains. */
__attribute__((target("avx2"))) static void seed_lanes_avx2(MT *const *mts,
                                                           const uint64_t *seeds, int count) {
    __m256i bank[MT_N][2];
    uint32_t a0[LANES], a1[LANES];
    for (int l = 0; l < LANES; l++) {
        uint64_t s = l < count ? seeds[l] : 0;
        uint32_t lo = (uint32_t)s, hi = (uint32_t)(s >> 32);
        a0[l] = lo;
        a1[l] = hi ? hi + 1u : lo;
    }
    const __m256i add0a = _mm256_loadu_si256((const __m256i *)a0);
    const __m256i add0b = _mm256_loadu_si256((const __m256i *)(a0 + 8));
    const __m256i add1a = _mm256_loadu_si256((const __m256i *)a1);
    const __m256i add1b = _mm256_loadu_si256((const __m256i *)(a1 + 8));
    const __m256i c1 = _mm256_set1_epi32(1664525), c2 = _mm256_set1_epi32(1566083941);
#define MIX(p, c) _mm256_mullo_epi32(_mm256_xor_si256((p), _mm256_srli_epi32((p), 30)), (c))
    __m256i pa = _mm256_set1_epi32((int)MT_BASE[0]), pb = pa;
    int i = 1;
    for (; i + 1 < MT_N; i += 2) { /* step t = i - 1: even t adds add0, odd t add1 */
        __m256i base = _mm256_set1_epi32((int)MT_BASE[i]);
        pa = _mm256_add_epi32(_mm256_xor_si256(base, MIX(pa, c1)), add0a);
        pb = _mm256_add_epi32(_mm256_xor_si256(base, MIX(pb, c1)), add0b);
        bank[i][0] = pa;
        bank[i][1] = pb;
        base = _mm256_set1_epi32((int)MT_BASE[i + 1]);
        pa = _mm256_add_epi32(_mm256_xor_si256(base, MIX(pa, c1)), add1a);
        pb = _mm256_add_epi32(_mm256_xor_si256(base, MIX(pb, c1)), add1b);
        bank[i + 1][0] = pa;
        bank[i + 1][1] = pb;
    }
    { /* i = 623, t = 622 (even) */
        __m256i base = _mm256_set1_epi32((int)MT_BASE[i]);
        pa = _mm256_add_epi32(_mm256_xor_si256(base, MIX(pa, c1)), add0a);
        pb = _mm256_add_epi32(_mm256_xor_si256(base, MIX(pb, c1)), add0b);
        bank[i][0] = pa;
        bank[i][1] = pb;
    }
    /* t = 623 wraps to i = 1 (mt[0] = mt[623]) */
    pa = _mm256_add_epi32(_mm256_xor_si256(bank[1][0], MIX(pa, c1)), add1a);
    pb = _mm256_add_epi32(_mm256_xor_si256(bank[1][1], MIX(pb, c1)), add1b);
    bank[1][0] = pa;
    bank[1][1] = pb;
    for (i = 2; i < MT_N; i++) {
        __m256i minus = _mm256_set1_epi32(i);
        pa = _mm256_sub_epi32(_mm256_xor_si256(bank[i][0], MIX(pa, c2)), minus);
        pb = _mm256_sub_epi32(_mm256_xor_si256(bank[i][1], MIX(pb, c2)), minus);
        bank[i][0] = pa;
        bank[i][1] = pb;
    }
    { /* wrap to i = 1, then mt[0] = 0x80000000 */
        __m256i one = _mm256_set1_epi32(1);
        bank[1][0] = _mm256_sub_epi32(_mm256_xor_si256(bank[1][0], MIX(pa, c2)), one);
        bank[1][1] = _mm256_sub_epi32(_mm256_xor_si256(bank[1][1], MIX(pb, c2)), one);
        bank[0][0] = bank[0][1] = _mm256_set1_epi32((int)0x80000000U);
    }
#undef MIX
    const uint32_t(*words)[LANES] = (const uint32_t(*)[LANES])bank;
    for (int i0 = 0; i0 < MT_N; i0 += 16) /* 16 words of every lane at a time: cache lines */
        for (int l = 0; l < count; l++)
            for (int k = 0; k < 16; k++) mts[l]->s[i0 + k] = words[i0 + k][l];
    for (int l = 0; l < count; l++) mts[l]->i = MT_N;
}
#endif

static void (*seed_lanes)(MT *const *, const uint64_t *, int) = seed_lanes_plain;

static void init_seed_lanes(void) {
#ifdef HAVE_AVX2_SEED
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) seed_lanes = seed_lanes_avx2;
#endif
}

static void init_derive4(void);

/* random.Random(seeds[k]) into mts[k], for k < count, LANES at a time. */
static void mt_seed_many(MT *const *mts, const uint64_t *seeds, int count) {
    for (int k = 0; k < count; k += LANES)
        seed_lanes(mts + k, seeds + k, count - k < LANES ? count - k : LANES);
}

/* genrand_uint32. The generation step ("twist") is done word by word as words are
 * drawn, in order: word i reads the old words i and i+1 and word i+397 (mod 624),
 * which is new exactly when the whole-array twist would have made it new already, so
 * the stream is the same; a game draws a few hundred words, not 624. */
static inline uint32_t temper(uint32_t v) {
    v ^= (v >> 11);
    v ^= (v << 7) & 0x9d2c5680U;
    v ^= (v << 15) & 0xefc60000U;
    v ^= (v >> 18);
    return v;
}

/* genrand_uint32. */
static inline uint32_t mt_next(MT *m) {
    int i = m->i;
    if (i >= MT_N) i = 0;
    uint32_t *s = m->s;
    uint32_t y = (s[i] & 0x80000000U) | (s[i + 1 < MT_N ? i + 1 : 0] & 0x7fffffffU);
    uint32_t v = s[i + MT_M < MT_N ? i + MT_M : i + MT_M - MT_N] ^ (y >> 1) ^
                 ((y & 1U) ? 0x9908b0dfU : 0U);
    s[i] = v;
    m->i = i + 1;
    return temper(v);
}

/* The next five words (a turn's draw): the first four at once where no index wraps
 * (inside the first 227 words a word's partner i + 397 is still old, inside the next
 * 396 it is i - 227 and already new, and i + 1 never wraps), the fifth alone; the
 * same words mt_next would give, in order. */
#if defined(__GNUC__) || defined(__clang__)
typedef uint32_t v4u __attribute__((vector_size(16)));

static inline v4u load4(const uint32_t *p) {
    v4u v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline void mt_next5(MT *m, uint32_t w[5]) {
    int i = m->i >= MT_N ? 0 : m->i;
    uint32_t *s = m->s;
    int partner = i + 4 <= MT_N - MT_M                  ? i + MT_M
                  : (i >= MT_N - MT_M && i + 4 < MT_N) ? i + MT_M - MT_N
                                                       : -1;
    if (partner < 0) {
        for (int k = 0; k < 5; k++) w[k] = mt_next(m);
        return;
    }
    v4u y = (load4(s + i) & 0x80000000U) | (load4(s + i + 1) & 0x7fffffffU);
    v4u v = load4(s + partner) ^ (y >> 1) ^ (-(y & 1U) & 0x9908b0dfU);
    memcpy(s + i, &v, sizeof(v));
    m->i = i + 4;
    v ^= (v >> 11);
    v ^= (v << 7) & 0x9d2c5680U;
    v ^= (v << 15) & 0xefc60000U;
    v ^= (v >> 18);
    memcpy(w, &v, sizeof(v));
    w[4] = mt_next(m);
}
#else
static inline void mt_next5(MT *m, uint32_t w[5]) {
    for (int k = 0; k < 5; k++) w[k] = mt_next(m);
}
#endif

/* Random._randbelow_with_getrandbits(n) for 1 <= n < 2**32 (getrandbits(k), k <= 32). */
static inline uint32_t mt_randbelow(MT *m, uint32_t n) {
    int k = 32 - __builtin_clz(n); /* n.bit_length() */
    uint32_t r = mt_next(m) >> (32 - k);
    while (r >= n) r = mt_next(m) >> (32 - k);
    return r;
}

/* Random.random(): genrand_res53. */
static inline double mt_random(MT *m) {
    uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* ==== BLAKE2b-64 (harness.dice.derive_seed) ========================================= */
static const uint64_t B2_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
static const uint8_t B2_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static inline uint64_t rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t load64le(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, sizeof(w));
    return w;
#else
    uint64_t w = 0;
    for (int b = 7; b >= 0; b--) w = (w << 8) | p[b];
    return w;
#endif
}

static void b2_compress(uint64_t h[8], const uint8_t block[128], uint64_t t, int last) {
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = load64le(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = B2_IV[i];
    }
    v[12] ^= t; /* messages here are far below 2**64 bytes: the high counter word is 0 */
    if (last) v[14] = ~v[14];
#define B2_G(a, b, c, d, x, y)           \
    do {                                 \
        v[a] = v[a] + v[b] + (x);        \
        v[d] = rotr64(v[d] ^ v[a], 32);  \
        v[c] = v[c] + v[d];              \
        v[b] = rotr64(v[b] ^ v[c], 24);  \
        v[a] = v[a] + v[b] + (y);        \
        v[d] = rotr64(v[d] ^ v[a], 16);  \
        v[c] = v[c] + v[d];              \
        v[b] = rotr64(v[b] ^ v[c], 63);  \
    } while (0)
    /* the twelve rounds written out: the message schedule is then constant indices */
#define B2_ROUND(r)                                                   \
    do {                                                              \
        B2_G(0, 4, 8, 12, m[B2_SIGMA[r][0]], m[B2_SIGMA[r][1]]);      \
        B2_G(1, 5, 9, 13, m[B2_SIGMA[r][2]], m[B2_SIGMA[r][3]]);      \
        B2_G(2, 6, 10, 14, m[B2_SIGMA[r][4]], m[B2_SIGMA[r][5]]);     \
        B2_G(3, 7, 11, 15, m[B2_SIGMA[r][6]], m[B2_SIGMA[r][7]]);     \
        B2_G(0, 5, 10, 15, m[B2_SIGMA[r][8]], m[B2_SIGMA[r][9]]);     \
        B2_G(1, 6, 11, 12, m[B2_SIGMA[r][10]], m[B2_SIGMA[r][11]]);   \
        B2_G(2, 7, 8, 13, m[B2_SIGMA[r][12]], m[B2_SIGMA[r][13]]);    \
        B2_G(3, 4, 9, 14, m[B2_SIGMA[r][14]], m[B2_SIGMA[r][15]]);    \
    } while (0)
    B2_ROUND(0);
    B2_ROUND(1);
    B2_ROUND(2);
    B2_ROUND(3);
    B2_ROUND(4);
    B2_ROUND(5);
    B2_ROUND(6);
    B2_ROUND(7);
    B2_ROUND(8);
    B2_ROUND(9);
    B2_ROUND(10);
    B2_ROUND(11);
#undef B2_ROUND
#undef B2_G
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/* int.from_bytes(blake2b(data, digest_size=8).digest(), "big") */
static uint64_t derive_bytes(const uint8_t *data, size_t len) {
    uint64_t h[8];
    uint8_t block[128];
    memcpy(h, B2_IV, sizeof(h));
    h[0] ^= 0x01010000ULL ^ 8ULL; /* fanout 1, depth 1, no key, 8-byte digest */
    uint64_t t = 0;
    while (len > 128) {
        t += 128;
        b2_compress(h, data, t, 0);
        data += 128;
        len -= 128;
    }
    memset(block, 0, sizeof(block));
    memcpy(block, data, len);
    t += len;
    b2_compress(h, block, t, 1);
    return __builtin_bswap64(h[0]); /* digest bytes are h[0] little-endian; read big */
}

/* The decimal digits of v (str(int)), written at p; returns the length. */
static int put_int(char *p, int64_t v) {
    char tmp[24];
    int n = 0, len = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) p[len++] = '-';
    while (n) p[len++] = tmp[--n];
    return len;
}

/* derive_seed(a, word, b): "a\x1fword\x1fb", the pattern of every per-game seed. */
static uint64_t derive3(int64_t a, const char *word, int64_t b) {
    char buf[80];
    int len = put_int(buf, a);
    buf[len++] = 0x1f;
    size_t w = strlen(word);
    memcpy(buf + len, word, w);
    len += (int)w;
    buf[len++] = 0x1f;
    len += put_int(buf + len, b);
    return derive_bytes((const uint8_t *)buf, (size_t)len);
}

/* derive_bytes of up to four messages of at most 128 bytes (one block each), side by
 * side in the lanes of a vector: the seeds of a block of deals are hashed four at a
 * time, each lane exactly the scalar BLAKE2b. */
#define B2_MAX_SHORT 128
#if defined(__GNUC__) || defined(__clang__)
typedef uint64_t v4q __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) void derive4_body(const uint8_t (*msgs)[B2_MAX_SHORT],
                                                               const size_t *lens, int count,
                                                               uint64_t *out) {
    v4q m[16], v[16];
    for (int i = 0; i < 16; i++)
        for (int l = 0; l < 4; l++) m[i][l] = l < count ? load64le(msgs[l] + 8 * i) : 0;
    for (int i = 0; i < 8; i++) {
        v[i] = (v4q){0, 0, 0, 0} + B2_IV[i];
        v[i + 8] = (v4q){0, 0, 0, 0} + B2_IV[i];
    }
    v[0] ^= 0x01010000ULL ^ 8ULL;
    for (int l = 0; l < 4; l++) v[12][l] ^= l < count ? (uint64_t)lens[l] : 0;
    v[14] = ~v[14];
#define R4(x, n) (((x) >> (n)) | ((x) << (64 - (n))))
#define G4(a, b, c, d, x, y)            \
    do {                                \
        v[a] = v[a] + v[b] + (x);       \
        v[d] = R4(v[d] ^ v[a], 32);     \
        v[c] = v[c] + v[d];             \
        v[b] = R4(v[b] ^ v[c], 24);     \
        v[a] = v[a] + v[b] + (y);       \
        v[d] = R4(v[d] ^ v[a], 16);     \
        v[c] = v[c] + v[d];             \
        v[b] = R4(v[b] ^ v[c], 63);     \
    } while (0)
    for (int r = 0; r < 12; r++) {
        const uint8_t *sg = B2_SIGMA[r];
        G4(0, 4, 8, 12, m[sg[0]], m[sg[1]]);
        G4(1, 5, 9, 13, m[sg[2]], m[sg[3]]);
        G4(2, 6, 10, 14, m[sg[4]], m[sg[5]]);
        G4(3, 7, 11, 15, m[sg[6]], m[sg[7]]);
        G4(0, 5, 10, 15, m[sg[8]], m[sg[9]]);
        G4(1, 6, 11, 12, m[sg[10]], m[sg[11]]);
        G4(2, 7, 8, 13, m[sg[12]], m[sg[13]]);
        G4(3, 4, 9, 14, m[sg[14]], m[sg[15]]);
    }
#undef G4
#undef R4
    v4q h0 = ((v4q){0, 0, 0, 0} + (uint64_t)(B2_IV[0] ^ 0x01010000ULL ^ 8ULL)) ^ v[0] ^ v[8];
    for (int l = 0; l < count; l++) out[l] = __builtin_bswap64(h0[l]);
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2"))) static void derive4_avx2(const uint8_t (*msgs)[B2_MAX_SHORT],
                                                         const size_t *lens, int count,
                                                         uint64_t *out) {
    derive4_body(msgs, lens, count, out);
}
#endif
static void derive4_plain(const uint8_t (*msgs)[B2_MAX_SHORT], const size_t *lens, int count,
                          uint64_t *out) {
    derive4_body(msgs, lens, count, out);
}
#else
static void derive4_plain(const uint8_t (*msgs)[B2_MAX_SHORT], const size_t *lens, int count,
                          uint64_t *out) {
    for (int l = 0; l < count; l++) out[l] = derive_bytes(msgs[l], lens[l]);
}
#endif

static void (*derive4)(const uint8_t (*)[B2_MAX_SHORT], const size_t *, int,
                       uint64_t *) = derive4_plain;

/* The message of derive3 (zero padded to a block), its length returned. */
static size_t message3(uint8_t *buf, int64_t a, const char *word, int64_t b) {
    memset(buf, 0, B2_MAX_SHORT);
    char *p = (char *)buf;
    int len = put_int(p, a);
    p[len++] = 0x1f;
    size_t w = strlen(word);
    memcpy(p + len, word, w);
    len += (int)w;
    p[len++] = 0x1f;
    len += put_int(p + len, b);
    return (size_t)len;
}

/* out[k] = derive3(a[k], word, b[k]) for k < count, four at a time. */
static void derive3_many(const int64_t *a, const char *word, const int64_t *b, int count,
                         uint64_t *out) {
    uint8_t msgs[4][B2_MAX_SHORT];
    size_t lens[4];
    for (int k = 0; k < count; k += 4) {
        int c = count - k < 4 ? count - k : 4;
        for (int l = 0; l < c; l++) lens[l] = message3(msgs[l], a[k + l], word, b[k + l]);
        derive4(msgs, lens, c, out + k);
    }
}

#define SEED_MASK 0x7fffffffffffffffULL

static void init_derive4(void) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) derive4 = derive4_avx2;
#endif
} /* harness.tourney.plan.SEED_MASK: int64 */

/* ==== dice (harness/dice.py) ======================================================== */
/* A turn's dice are one draw below 6**56 (getrandbits(145), redrawn while too big):
 * 145 bits as five little-endian 32-bit words, as CPython's getrandbits builds them
 * (the last word keeps the top 17 bits of its draw). Roll j of the turn shows the
 * first `left` base-6 digits of group j of 8 digits. */
#define GROUP 1679616u /* 6**8 */
typedef struct {
    uint32_t w[5];
    uint64_t v; /* the block once it fits 64 bits (from roll 4 on) */
} Block;

static uint32_t BLOCK_LIMIT[5]; /* 6**56 in the same words */

static void init_block_limit(void) {
    uint64_t w[5] = {1, 0, 0, 0, 0};
    for (int k = 0; k < 56; k++) {
        uint64_t carry = 0;
        for (int i = 0; i < 5; i++) {
            uint64_t x = w[i] * 6 + carry;
            w[i] = x & 0xffffffffu;
            carry = x >> 32;
        }
    }
    for (int i = 0; i < 5; i++) BLOCK_LIMIT[i] = (uint32_t)w[i];
}

static inline int block_too_big(const Block *b) {
    for (int i = 4; i >= 0; i--)
        if (b->w[i] != BLOCK_LIMIT[i]) return b->w[i] > BLOCK_LIMIT[i];
    return 1; /* equal to 6**56 */
}

/* SeededDice.start_turn / DuplicateDice's randrange(6**56): the same loop. */
static inline void draw_block(MT *m, Block *b) {
    do {
        mt_next5(m, b->w);
        b->w[4] >>= 15; /* getrandbits keeps the top 17 bits of the fifth word */
    } while (block_too_big(b));
}

/* The groups of 8 dice of rolls 0..3 (block % 6**8, then block //= 6**8: the engine's
 * decode), all at once at the turn's start: the four divisions have no branch between
 * them, so the processor overlaps them (roll 1's division of a word starts as soon as
 * roll 0's quotient of that word is known) and a mispredicted decision later in the
 * turn does not throw them away. Before roll j the block is below 6**(56 - 8j), so its
 * top words are known to be small: four word steps for roll 0, four for roll 1, three
 * for roll 2, two for roll 3; what is left then fits 64 bits (6**24 < 2**63) and rolls
 * 4..6 take one 64-bit step each (block_later). */
#define STEP(k)                              \
    do {                                     \
        uint64_t cur = (r << 32) | b->w[k];  \
        b->w[k] = (uint32_t)(cur / GROUP);   \
        r = cur % GROUP;                     \
    } while (0)

static inline void block_first4(Block *b, uint32_t group[4]) {
    uint64_t r = b->w[4]; /* < 2**17 < 6**8 */
    STEP(3);
    STEP(2);
    STEP(1);
    STEP(0);
    group[0] = (uint32_t)r;
    r = 0;
    STEP(3);
    STEP(2);
    STEP(1);
    STEP(0);
    group[1] = (uint32_t)r;
    r = b->w[3]; /* < 6**40 / 2**96 < 2**8 */
    STEP(2);
    STEP(1);
    STEP(0);
    group[2] = (uint32_t)r;
    r = b->w[2]; /* < 6**32 / 2**64 < 2**19 */
    STEP(1);
    STEP(0);
    group[3] = (uint32_t)r;
    b->v = (uint64_t)b->w[1] << 32 | b->w[0];
}

static inline uint32_t block_later(Block *b) {
    uint64_t v = b->v;
    b->v = v / GROUP;
    return (uint32_t)(v % GROUP);
}
#undef STEP

/* PC[k][x]: counts per face (4-bit field per face f at bit 4f) of the first k base-6
 * digits of x < 6**4 (digit d shows face d + 1). */
static uint32_t PC[5][1296];
/* NIBBLES[free]: the count fields of the faces in a face mask (a roll restricted to the
 * faces not yet set aside). BEST_LO / BEST_HI[12 bits]: over faces 1-3 / 4-6 of a
 * restricted roll, the largest points * 8 + face of a face shown (0 if none). */
static uint32_t NIBBLES[128];
/* PC_NEAR[left], PC_FAR[left]: the rows of PC for the first min(left, 4) dice and the
 * max(left - 4, 0) others. */
static const uint32_t *PC_NEAR[9], *PC_FAR[9];
static uint16_t BEST_LO[4096], BEST_HI[4096];

static void init_roll_tables(void) {
    for (int k = 0; k <= 4; k++)
        for (int x = 0; x < 1296; x++) {
            uint32_t packed = 0;
            int v = x;
            for (int d = 0; d < k; d++) {
                packed += 1u << (4 * (v % 6 + 1));
                v /= 6;
            }
            PC[k][x] = packed;
        }
    for (int left = 0; left <= 8; left++) {
        PC_NEAR[left] = PC[left < 4 ? left : 4];
        PC_FAR[left] = PC[left > 4 ? left - 4 : 0];
    }
    for (int m = 0; m < 128; m++) {
        uint32_t nib = 0;
        for (int f = 1; f <= 6; f++)
            if (m >> f & 1) nib |= 15u << (4 * f);
        NIBBLES[m] = nib;
    }
    for (int x = 0; x < 4096; x++) {
        int lo = 0, hi = 0;
        for (int j = 0; j < 3; j++) {
            int c = x >> (4 * j) & 15;
            int key_lo = c ? c * FACE_POINTS[j + 1] * 8 + j + 1 : 0;
            int key_hi = c ? c * FACE_POINTS[j + 4] * 8 + j + 4 : 0;
            if (key_lo > lo) lo = key_lo;
            if (key_hi > hi) hi = key_hi;
        }
        BEST_LO[x] = (uint16_t)lo;
        BEST_HI[x] = (uint16_t)hi;
    }
}

static inline int count_of(uint32_t packed, int face) { return (packed >> (4 * face)) & 15; }

/* Duplicate dice: one stream per seat keyed by derive_seed(key, "seat", seat); the
 * k-th turn of a seat always gets the stream's k-th block, whatever the game did, so
 * the blocks drawn are kept for the deal's other seat orders (DuplicateDice's cache).
 * The streams are seeded by the caller (several deals' streams at once). */
typedef struct {
    int64_t key;
    int valid;
    MT *mt[MAXP];
    Block *blocks[MAXP];
    int count[MAXP], cap[MAXP];
} Dup;

static void dup_attach(Dup *d, int64_t key, MT *streams) {
    d->key = key;
    d->valid = 1;
    for (int s = 0; s < MAXP; s++) {
        d->mt[s] = streams + s;
        d->count[s] = 0;
    }
}

#define DUP_FIRST_BLOCKS 64 /* a seat's first allocation of blocks (turns), doubled as needed */
static int dup_block(Dup *d, int seat, int turn, Block *out) {
    while (d->count[seat] <= turn) {
        if (d->count[seat] == d->cap[seat]) {
            int cap = d->cap[seat] ? 2 * d->cap[seat] : DUP_FIRST_BLOCKS;
            Block *grown = realloc(d->blocks[seat], (size_t)cap * sizeof(Block));
            if (grown == NULL) return -1;
            d->blocks[seat] = grown;
            d->cap[seat] = cap;
        }
        draw_block(d->mt[seat], &d->blocks[seat][d->count[seat]++]);
    }
    *out = d->blocks[seat][turn];
    return 0;
}

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

#include "turn_dp.inc.c" /* optimal's turn programme */


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

#include "optimal.inc.c" /* the native optimal strategy */

/* ==== Python seats (harness/native/seats.py) ==========================================
 * A seat of kind S_PYTHON asks the host at the moments the Python engine asks its
 * strategy: game(deal, k, game seed, row) at a game's start, turn(seat, turn, grill,
 * flipped, stacks) at each of the seat's turns, pick(seat, counts), stop(seat) and
 * claim(seat, total). The host keeps the seat's view and the engine's containment; it
 * answers an int: the decision, or a forfeit as -1 - (error_kind * 8 + seat). A Python
 * exception (the user's Ctrl-C, a MemoryError outside the strategy) ends the batch with
 * that exception (g->failed = 2): no row is half-written, nothing is swallowed. */
enum { H_GAME, H_TURN, H_PICK, H_STOP, H_CLAIM };
#define H_FAILED (-1000000)

#ifndef HARNESS_NO_PYTHON
/* host[which](vals..., extra): steals `extra` (may be NULL: no extra argument). */
static long host_call(Game *g, int which, const long long *vals, int count, PyObject *extra) {
    PyObject *args[8];
    int n = 0, ok = 1;
    for (; n < count; n++) {
        args[n] = PyLong_FromLongLong(vals[n]);
        if (args[n] == NULL) {
            ok = 0;
            break;
        }
    }
    if (ok && extra != NULL) args[n++] = extra;
    else Py_XDECREF(extra);
    PyObject *r = ok ? PyObject_Vectorcall((PyObject *)g->host[which], args, (size_t)n, NULL)
                     : NULL;
    for (int k = 0; k < n; k++) Py_DECREF(args[k]);
    long v = -1;
    if (r != NULL) {
        v = PyLong_AsLong(r);
        Py_DECREF(r);
    }
    if (r == NULL || (v == -1 && PyErr_Occurred())) {
        g->failed = 2;
        return H_FAILED;
    }
    if (v < 0) {
        long code = -1 - v;
        if (code < 0 || code % 8 >= g->n || code / 8 > 3) {
            PyErr_Format(PyExc_RuntimeError, "native engine: bad forfeit code %ld from a seat", v);
            g->failed = 2;
            return H_FAILED;
        }
        g->forfeit_seat = (int)(code % 8);
        g->forfeit_kind = (int)(code / 8);
    }
    return v;
}

/* The stacks as a tuple of tuples (what the Python engine pushes into the view). */
static PyObject *stacks_tuple(const Game *g) {
    PyObject *all = PyTuple_New(g->n);
    if (all == NULL) return NULL;
    for (int s = 0; s < g->n; s++) {
        PyObject *one = PyTuple_New(g->len[s]);
        if (one == NULL) {
            Py_DECREF(all);
            return NULL;
        }
        for (int k = 0; k < g->len[s]; k++) {
            PyObject *tile = PyLong_FromLong(g->stack[s][k]);
            if (tile == NULL) {
                Py_DECREF(one);
                Py_DECREF(all);
                return NULL;
            }
            PyTuple_SET_ITEM(one, k, tile);
        }
        PyTuple_SET_ITEM(all, s, one);
    }
    return all;
}

/* 0, or -1 when the game ends here (a forfeit, or g->failed). */
static int host_game(Game *g) {
    long long v[4] = {g->cur_deal, g->cur_k, g->gseed, 0};
    return host_call(g, H_GAME, v, 3, NULL) < 0 ? -1 : 0;
}

static int host_turn(Game *g, int seat) {
    PyObject *stacks = stacks_tuple(g);
    if (stacks == NULL) {
        g->failed = 2;
        return -1;
    }
    long long v[4] = {seat, g->turn, (long long)g->grill, (long long)g->flipped};
    return host_call(g, H_TURN, v, 4, stacks) < 0 ? -1 : 0;
}

/* The face picked (legal: the host checked it, and so does this), or 0: the game ends. */
static int host_pick(Game *g, int seat, const Turn *t) {
    long long v[2] = {seat, t->shown};
    long face = host_call(g, H_PICK, v, 2, NULL);
    if (face < 0) return 0;
    if (face < 1 || face > 6 || !count_of(t->packed, (int)face)) {
        PyErr_Format(PyExc_RuntimeError, "native engine: seat %d's host picked %ld", seat, face);
        g->failed = 2;
        return 0;
    }
    return (int)face;
}

/* 1 stop, 0 roll on, -1 the game ends. */
static int host_stop(Game *g, int seat) {
    long long v[1] = {seat};
    long stop = host_call(g, H_STOP, v, 1, NULL);
    return stop < 0 ? -1 : stop != 0;
}

/* The claim chosen among `choices` (answered as tile * 8 + victim + 1), or tile -1. */
static Claim host_claim(Game *g, int seat, int total, const Claim *choices, int n) {
    long long v[2] = {seat, total};
    long code = host_call(g, H_CLAIM, v, 2, NULL);
    if (code >= 0)
        for (int i = 0; i < n; i++)
            if (choices[i].tile * 8 + choices[i].victim + 1 == code) return choices[i];
    if (code >= 0) {
        PyErr_Format(PyExc_RuntimeError, "native engine: seat %d's host claimed %ld", seat, code);
        g->failed = 2;
    }
    return (Claim){-1, -1};
}
#else /* no Python: no Python seats (parse_table never admits one) */
static int host_game(Game *g) { return -1; }
static int host_turn(Game *g, int seat) { return -1; }
static int host_pick(Game *g, int seat, const Turn *t) { return 0; }
static int host_stop(Game *g, int seat) { return -1; }
static Claim host_claim(Game *g, int seat, int total, const Claim *choices, int n) {
    return (Claim){-1, -1};
}
#endif


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
    case S_ENV:
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
    case S_ENV: /* total >= grill[0]: the lowest face-up tile, seen at the turn's start */
        return t->total >= t->low;
    case S_TACTICIAN:
        return tactician_stop(g, seat, t, s);
    case S_PYTHON:
        return host_stop(g, seat);
    case S_RANDOM:
        return mt_random(seat_rng(g, seat)) < s->p[0];
    case S_OPTIMAL: { /* the state was solved when opt_pick compared its value */
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
    if (s->kind == S_OPTIMAL) return opt_claim(g, seat, choices, n);
    if (s->kind == S_PYTHON) return host_claim(g, seat, total, choices, n);
    return choices[0]; /* Strategy.claim: max(choices, key=swing), the first */
}

#include "account.inc.c" /* the luck account */

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

/* ==== batches ========================================================================= */
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
     * regret_claim (ACC_SUMS doubles), then rolls, picks, stops, claims (ACC_COUNTS) */
    double *acc_sum[ACC_SUMS][MAXP];
    int16_t *acc_count[ACC_COUNTS][MAXP];
} Out;

/* A seat's ledger into the account columns of row `row` (counts capped at the int16
 * columns' 32767, which no game under the default turn cap reaches). */
static void acc_store(const Game *g, Out *o, Py_ssize_t row) {
    for (int s = 0; s < g->n; s++) {
        const AccLedger *l = &g->acc->led[s];
        double sums[ACC_SUMS] = {l->par, l->luck, l->wluck, l->regret_pick, l->regret_stop,
                                 l->regret_claim};
        int counts[ACC_COUNTS] = {l->rolls, l->picks, l->stops, l->claims};
        for (int k = 0; k < ACC_SUMS; k++) o->acc_sum[k][s][row] = sums[k];
        for (int k = 0; k < ACC_COUNTS; k++)
            o->acc_count[k][s][row] = (int16_t)(counts[k] < INT16_MAX ? counts[k] : INT16_MAX);
    }
}

/* One game to the end (Game.play), stored in row `row`; -1 on failure. */
static int play_row(Game *g, const uint8_t *order, const Strat *table, int64_t gseed, Out *o,
                    Py_ssize_t row) {
    game_start(g, order, table, gseed);
    if (g->acc) acc_start(g);
    if (g->host[H_GAME] == NULL || host_game(g) == 0)
        for (int k = 0; k < g->max_turns; k++)
            if (play_turn(g)) break;
    if (g->failed) return g->failed == 2 ? -3 : -1;
    if (!integrity_ok(g)) return -2;
    int n = g->n;
    int forfeit = g->forfeit_seat; /* Game.result(error): the forfeiting seat ranks last */
    int capped = forfeit < 0 && !g->over && g->turn >= g->max_turns;
    /* rank_seats (R11): most worms, ties to the highest tile */
    int key[MAXP];
    for (int s = 0; s < n; s++) {
        int high = 0;
        for (int k = 0; k < g->len[s]; k++)
            if (g->stack[s][k] > high) high = g->stack[s][k];
        key[s] = s == forfeit ? -1 : g->score[s] * 64 + high;
    }
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
    o->status[row] = (int8_t)(forfeit >= 0 ? 2 : capped ? 1 : 0);
    o->winner[row] = (int8_t)((g->over || forfeit >= 0) && firsts == 1 ? winner : -1);
    o->error_seat[row] = (int8_t)forfeit;
    o->error_kind[row] = (int8_t)(forfeit >= 0 ? g->forfeit_kind : -1);
    if (g->acc) {
        acc_finish(g);
        acc_store(g, o, row);
    }
    if (o->detail) {
        uint8_t *d = o->detail + (size_t)row * DETAIL_BYTES;
        memset(d, 0, DETAIL_BYTES);
        uint32_t grill16 = (uint32_t)(g->grill >> 21), flipped16 = (uint32_t)(g->flipped >> 21);
        d[0] = (uint8_t)grill16;
        d[1] = (uint8_t)(grill16 >> 8);
        d[2] = (uint8_t)flipped16;
        d[3] = (uint8_t)(flipped16 >> 8);
        for (int s = 0; s < n; s++) {
            uint8_t *p = d + 4 + 17 * s;
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
    g->duplicate = duplicate;
    g->max_turns = max_turns;
    return g;
}

static void free_game(Game *g) {
    if (g == NULL) return;
    for (int s = 0; s < MAXP; s++) free(g->dup.blocks[s]);
    PyMem_Free(g->acc);
    PyMem_Free(g->pool);
    PyMem_Free(g);
}

/* A seating design (harness/seating.py): order k puts table entrant at[k][i] in
 * seat i; every deal is played once in each order, rows by deal, then order index. The
 * stored seating column is an int8, so a design has at most 127 orders. */
#define MAX_ORDERS 127
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

/* ==== Python bindings ================================================================== */
#ifndef HARNESS_NO_PYTHON
typedef struct {
    Py_buffer views[9 + 5 * MAXP + 1 + (ACC_SUMS + ACC_COUNTS) * MAXP];
    int held;
} Buffers;

static void release_buffers(Buffers *b) {
    for (int i = 0; i < b->held; i++) PyBuffer_Release(&b->views[i]);
    b->held = 0;
}

static void *get_column(Buffers *b, PyObject *obj, Py_ssize_t itemsize, Py_ssize_t rows,
                        const char *what) {
    Py_buffer *view = &b->views[b->held];
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    b->held++;
    if (view->itemsize != itemsize || view->len < rows * itemsize) {
        PyErr_Format(PyExc_ValueError, "column %s: %zd rows of %zd bytes needed", what, rows,
                     itemsize);
        return NULL;
    }
    return view->buf;
}

static int parse_rules(PyObject *rules, Game *g) {
    int n, lower_any, flip_mode, flip_without, keep_returned;
    if (!PyArg_ParseTuple(rules, "iiiii", &n, &lower_any, &flip_mode, &flip_without,
                          &keep_returned))
        return -1;
    if (n < 2 || n > MAXP) {
        PyErr_Format(PyExc_ValueError, "%d players; a game has 2 to 7 (R3)", n);
        return -1;
    }
    if (flip_mode < 0 || flip_mode > 2) {
        PyErr_SetString(PyExc_ValueError, "flip mode must be 0, 1 or 2");
        return -1;
    }
    g->n = n;
    g->lower_any = lower_any != 0;
    g->flip_mode = flip_mode;
    g->flip_without = flip_without != 0;
    g->keep_returned = keep_returned != 0;
    return 0;
}

/* What the native strategies can play: each one's parameters (how many, and the values
 * each may take), as the built-ins declare them in Python (Strategy.bounds, checked
 * before either engine sees a parameter; tests/native/test_native.py ties the two tables). A
 * seat out of them is refused here, never played as something else. */
typedef struct {
    double low, high;
    int low_open; /* low itself excluded */
} Bound;
static const struct {
    int count;
    const char *names[3];
    Bound p[3];
} KIND_BOUNDS[S_KINDS] = {
    [S_GREEDY] = {0, {0}, {{0}}},
    [S_THRESHOLD] = {1, {"target"}, {{21, 40, 0}}},
    [S_WORM_FIRST] = {2, {"target", "min_dice"}, {{0, 40, 0}, {0, 8, 0}}},
    [S_SIMPLE] = {0, {0}, {{0}}},
    [S_ENV] = {0, {0}, {{0}}},
    [S_TACTICIAN] = {2, {"caution", "worm_by"}, {{0, 100, 1}, {0, 8, 0}}},
    [S_RANDOM] = {1, {"p_stop"}, {{0, 1, 0}}},
    [S_OPTIMAL] = {3, {"endgame", "spread", "flip"}, {{0, 16, 0}, {0, 100, 1}, {0, 100, 0}}},
};

static int bad_param(int seat, int kind, int j, double v) {
    const Bound *b = &KIND_BOUNDS[kind].p[j];
    if (isfinite(v) && v <= b->high && (b->low_open ? v > b->low : v >= b->low)) return 0;
    PyObject *shown = PyFloat_FromDouble(v); /* %R: PyErr_Format has no %g */
    if (shown == NULL) return 1;
    char low[32], high[32];
    PyOS_snprintf(low, sizeof low, "%g", b->low);
    PyOS_snprintf(high, sizeof high, "%g", b->high);
    PyErr_Format(PyExc_ValueError,
                 "seat %d: parameter %s = %R is outside what the native strategy plays "
                 "(%s%s %s %s)",
                 seat, KIND_BOUNDS[kind].names[j], shown, b->low_open ? "above " : "", low,
                 b->low_open ? "and at most" : "to", high);
    Py_DECREF(shown);
    return 1;
}

static int parse_table(PyObject *seats, int n, Strat *table) {
    if (!PyTuple_Check(seats) || PyTuple_GET_SIZE(seats) != n) {
        PyErr_Format(PyExc_ValueError, "seats: a tuple of %d (kind, params) pairs", n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int kind;
        double p[3] = {0, 0, 0};
        PyObject *item = PyTuple_GET_ITEM(seats, i);
        if (!PyArg_ParseTuple(item, "i|ddd", &kind, &p[0], &p[1], &p[2])) return -1;
        if ((kind < 0 || kind >= S_KINDS) && kind != S_PYTHON) {
            PyErr_Format(PyExc_ValueError, "seat %d: no native strategy %d", i, kind);
            return -1;
        }
        int count = kind == S_PYTHON ? 0 : KIND_BOUNDS[kind].count;
        if (PyTuple_GET_SIZE(item) != 1 + count) {
            PyErr_Format(PyExc_ValueError, "seat %d: strategy %d takes %d parameter(s), got %zd", i,
                         kind, count, PyTuple_GET_SIZE(item) - 1);
            return -1;
        }
        for (int j = 0; j < count; j++)
            if (bad_param(i, kind, j, p[j])) return -1;
        table[i].kind = kind;
        table[i].p[0] = p[0];
        table[i].p[1] = p[1];
        table[i].p[2] = p[2];
    }
    return 0;
}

static int get_out(Buffers *b, PyObject *columns, int n, Py_ssize_t rows, PyObject *detail,
                   Out *o) {
    static const char *names[9] = {"deal",   "seating", "seed",       "game_seed", "turns",
                                   "status", "winner",  "error_seat", "error_kind"};
    static const char *seat_names[5] = {"worms", "rank", "busts", "steals", "stolen"};
    static const int sizes[9] = {4, 1, 8, 8, 2, 1, 1, 1, 1};
    static const int seat_sizes[5] = {1, 1, 2, 2, 2};
    if (!PyTuple_Check(columns) || PyTuple_GET_SIZE(columns) != 9 + 5 * n) {
        PyErr_Format(PyExc_ValueError, "columns: a tuple of %d buffers", 9 + 5 * n);
        return -1;
    }
    void *p[9 + 5 * MAXP];
    for (int i = 0; i < 9 + 5 * n; i++) {
        int size = i < 9 ? sizes[i] : seat_sizes[(i - 9) % 5];
        const char *what = i < 9 ? names[i] : seat_names[(i - 9) % 5];
        p[i] = get_column(b, PyTuple_GET_ITEM(columns, i), size, rows, what);
        if (p[i] == NULL) return -1;
    }
    o->deal = p[0];
    o->seating = p[1];
    o->seed = p[2];
    o->game_seed = p[3];
    o->turns = p[4];
    o->status = p[5];
    o->winner = p[6];
    o->error_seat = p[7];
    o->error_kind = p[8];
    for (int s = 0; s < n; s++) {
        o->worms[s] = p[9 + 5 * s];
        o->rank[s] = p[10 + 5 * s];
        o->busts[s] = p[11 + 5 * s];
        o->steals[s] = p[12 + 5 * s];
        o->stolen[s] = p[13 + 5 * s];
    }
    o->detail = NULL;
    if (detail != Py_None) {
        o->detail = get_column(b, detail, 1, rows * DETAIL_BYTES, "detail");
        if (o->detail == NULL) return -1;
    }
    return 0;
}

/* The account's columns: None (no account kept), or a tuple of ACC_SUMS + ACC_COUNTS
 * buffers per seat, seat by seat (par, luck, wluck, regret_pick, regret_stop,
 * regret_claim as doubles, then rolls, picks, stops, claims as int16). 1: an account is
 * kept, 0: none, -1: a bad argument. */
static int get_account(Buffers *b, PyObject *account, int n, Py_ssize_t rows, Out *o) {
    static const char *names[ACC_SUMS + ACC_COUNTS] = {
        "par", "luck", "wluck", "regret_pick", "regret_stop", "regret_claim",
        "rolls", "picks", "stops", "claims"};
    const int per = ACC_SUMS + ACC_COUNTS;
    if (account == Py_None) return 0;
    if (!PyTuple_Check(account) || PyTuple_GET_SIZE(account) != per * n) {
        PyErr_Format(PyExc_ValueError, "account: a tuple of %d buffers", per * n);
        return -1;
    }
    for (int i = 0; i < per * n; i++) {
        int k = i % per, s = i / per;
        void *col = get_column(b, PyTuple_GET_ITEM(account, i), k < ACC_SUMS ? 8 : 2, rows,
                               names[k]);
        if (col == NULL) return -1;
        if (k < ACC_SUMS) o->acc_sum[k][s] = col;
        else o->acc_count[k - ACC_SUMS][s] = col;
    }
    return 1;
}

/* The seating design from a bytes-like object of count * n entrant indices (order k is
 * bytes k*n..k*n+n-1), copied out and checked: 1..127 orders, each a permutation of
 * 0..n-1. Anything else is a ValueError (the seats would index past the table). */
static int parse_orders(PyObject *obj, int n, Orders *out) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear(); /* not bytes-like: the same one-line refusal as a bad design */
        PyErr_SetString(PyExc_ValueError, "orders: a design is a bytes-like object");
        return -1;
    }
    Py_ssize_t len = view.len;
    int ok = view.itemsize == 1 && len > 0 && len % n == 0 && len / n <= MAX_ORDERS;
    if (ok) {
        out->count = (int)(len / n);
        for (int k = 0; k < out->count; k++)
            memcpy(out->at[k], (const uint8_t *)view.buf + (Py_ssize_t)k * n, (size_t)n);
    }
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_Format(PyExc_ValueError,
                     "orders: %zd bytes; a design is 1 to %d orders of %d one-byte entrants",
                     len, MAX_ORDERS, n);
        return -1;
    }
    for (int k = 0; k < out->count; k++) {
        unsigned seen = 0;
        for (int i = 0; i < n; i++) {
            unsigned e = out->at[k][i];
            if (e >= (unsigned)n || (seen >> e) & 1) {
                PyErr_Format(PyExc_ValueError, "orders: order %d is not a permutation of 0..%d",
                             k, n - 1);
                return -1;
            }
            seen |= 1u << e;
        }
    }
    return 0;
}

static int check_max_turns(int max_turns) {
    if (max_turns > 32767) { /* the turns column is int16 */
        PyErr_SetString(PyExc_ValueError, "max_turns above 32767 does not fit the turns column");
        return -1;
    }
    return 0;
}

static PyObject *finish_batch(int rc, Py_ssize_t row) {
    if (rc == -3) return NULL; /* a Python seat's host raised: its exception propagates */
    if (rc == -1) return PyErr_NoMemory();
    if (rc == -2) {
        PyErr_Format(PyExc_RuntimeError,
                     "native engine: game in row %zd failed its integrity check (R1, R11)", row);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The host of a table's Python seats: None, or a tuple of the five callables game, turn,
 * pick, stop, claim (see host_call). A table with a Python seat needs one. 1: the table
 * has Python seats (the batch then keeps the GIL: it calls into Python). */
static int set_host(Game *g, PyObject *host, const Strat *table) {
    int python = 0;
    for (int i = 0; i < g->n; i++) python |= table[i].kind == S_PYTHON;
    if (!python) return 0;
    if (!PyTuple_Check(host) || PyTuple_GET_SIZE(host) != 5) {
        PyErr_SetString(PyExc_ValueError, "host: a tuple of 5 callables for the Python seats");
        return -1;
    }
    for (int k = 0; k < 5; k++) {
        if (!PyCallable_Check(PyTuple_GET_ITEM(host, k))) {
            PyErr_SetString(PyExc_ValueError, "host: a tuple of 5 callables for the Python seats");
            return -1;
        }
        g->host[k] = PyTuple_GET_ITEM(host, k);
    }
    return 1;
}

static PyObject *py_play_deals_told(PyObject *rules, PyObject *seats, int max_turns,
                                    int duplicate, const char *prefix, Py_ssize_t prefix_len,
                                    long long first, long long stop, Py_ssize_t start,
                                    PyObject *orders_obj, PyObject *columns, PyObject *detail,
                                    PyObject *host, PyObject *account, void *progress);

/* play_deals(rules, seats, max_turns, duplicate, prefix, first, stop, start, orders,
 *            columns, detail[, host[, account[, progress]]]): deals first..stop-1, each
 * in every seat order of `orders` (rows by deal, then order index), rows from chunk row
 * `start` on (the deal seed of deal d is derive_seed of prefix + str(d), masked to int64).
 * `account`: the luck account's columns (or None). `progress`: a
 * writable buffer of a double (or None) that gets the chunk row of each game as it
 * starts. */
static PyObject *py_play_deals(PyObject *self, PyObject *args) {
    PyObject *rules, *seats, *orders_obj, *columns, *detail, *host = Py_None;
    PyObject *account = Py_None, *progress = Py_None;
    int max_turns, duplicate;
    const char *prefix;
    Py_ssize_t prefix_len, start;
    long long first, stop;
    if (!PyArg_ParseTuple(args, "OOipy#LLnOOO|OOO", &rules, &seats, &max_turns, &duplicate,
                          &prefix, &prefix_len, &first, &stop, &start, &orders_obj, &columns,
                          &detail, &host, &account, &progress))
        return NULL;
    Py_buffer told = {.buf = NULL, .obj = NULL};
    if (progress != Py_None) {
        if (PyObject_GetBuffer(progress, &told, PyBUF_WRITABLE) < 0) return NULL;
        if (told.len < (Py_ssize_t)sizeof(double)) {
            PyBuffer_Release(&told);
            PyErr_SetString(PyExc_ValueError, "play_deals: progress holds no double");
            return NULL;
        }
    }
    PyObject *played_rows = py_play_deals_told(rules, seats, max_turns, duplicate, prefix,
                                               prefix_len, first, stop, start, orders_obj,
                                               columns, detail, host, account, told.buf);
    if (told.obj != NULL) PyBuffer_Release(&told);
    return played_rows;
}

static PyObject *py_play_deals_told(PyObject *rules, PyObject *seats, int max_turns,
                                    int duplicate, const char *prefix, Py_ssize_t prefix_len,
                                    long long first, long long stop, Py_ssize_t start,
                                    PyObject *orders_obj, PyObject *columns, PyObject *detail,
                                    PyObject *host, PyObject *account, void *progress) {
    Game proto;
    Strat table[MAXP];
    Orders orders;
    if (parse_rules(rules, &proto) < 0 || parse_table(seats, proto.n, table) < 0 ||
        check_max_turns(max_turns) < 0 || parse_orders(orders_obj, proto.n, &orders) < 0)
        return NULL;
    if (prefix_len > 512 || stop < first || first < 0 || stop > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "play_deals: bad prefix or deal range");
        return NULL;
    }
    Py_ssize_t total = (Py_ssize_t)(stop - first) * orders.count;
    if (start < 0 || start > total) {
        PyErr_SetString(PyExc_ValueError, "play_deals: start is outside the chunk");
        return NULL;
    }
    Buffers b = {.held = 0};
    Out o;
    int accounted;
    if (get_out(&b, columns, proto.n, total - start, detail, &o) < 0 ||
        (accounted = get_account(&b, account, proto.n, total - start, &o)) < 0) {
        release_buffers(&b);
        return NULL;
    }
    Game *g = new_game(&proto, duplicate, max_turns, accounted, POOL);
    if (g == NULL) {
        release_buffers(&b);
        return PyErr_NoMemory();
    }
    int python = set_host(g, host, table);
    if (python < 0) {
        free_game(g);
        release_buffers(&b);
        return NULL;
    }
    int rc;
    Py_ssize_t played = 0;
    DpCache *outer = dp_batch_enter();
    batch_progress = progress;
    batch_start = start;
    PyThreadState *saved = python ? NULL : PyEval_SaveThread();
    rc = (duplicate ? deals_duplicate : deals_independent)(g, table, &orders, prefix,
                                                           (size_t)prefix_len, first, stop,
                                                           start, &o, &played);
    if (saved != NULL) PyEval_RestoreThread(saved);
    dp_batch_leave(outer);
    batch_progress = NULL;
    free_game(g);
    release_buffers(&b);
    return finish_batch(rc, played);
}

/* play_games(rules, seats, max_turns, duplicate, rows, orders, columns, detail): the
 * games the rows' seating (an index into `orders`), seed (the dice key of duplicate
 * dice) and game_seed (independent dice, view.rng) columns describe, filling the other
 * columns but deal. */
static PyObject *py_play_games(PyObject *self, PyObject *args) {
    PyObject *rules, *seats, *orders_obj, *columns, *detail, *host = Py_None,
                                                            *account = Py_None;
    int max_turns, duplicate;
    Py_ssize_t rows;
    if (!PyArg_ParseTuple(args, "OOipnOOO|OO", &rules, &seats, &max_turns, &duplicate, &rows,
                          &orders_obj, &columns, &detail, &host, &account))
        return NULL;
    Game proto;
    Strat table[MAXP];
    Orders orders;
    if (parse_rules(rules, &proto) < 0 || parse_table(seats, proto.n, table) < 0 ||
        check_max_turns(max_turns) < 0 || parse_orders(orders_obj, proto.n, &orders) < 0)
        return NULL;
    int n = proto.n;
    if (rows < 0) {
        PyErr_SetString(PyExc_ValueError, "play_games: rows must be >= 0");
        return NULL;
    }
    Buffers b = {.held = 0};
    Out o;
    int accounted;
    if (get_out(&b, columns, n, rows, detail, &o) < 0 ||
        (accounted = get_account(&b, account, n, rows, &o)) < 0) {
        release_buffers(&b);
        return NULL;
    }
    for (Py_ssize_t row = 0; row < rows; row++)
        if (o.seating[row] < 0 || o.seating[row] >= orders.count) {
            PyErr_Format(PyExc_ValueError, "row %zd: seat order %d of a design of %d", row,
                         o.seating[row], orders.count);
            release_buffers(&b);
            return NULL;
        }
    Game *g = new_game(&proto, duplicate, max_turns, accounted, POOL);
    if (g == NULL) {
        release_buffers(&b);
        return PyErr_NoMemory();
    }
    int python = set_host(g, host, table);
    if (python < 0) {
        free_game(g);
        release_buffers(&b);
        return NULL;
    }
    int rc = 0;
    Py_ssize_t row = 0;
    DpCache *outer = dp_batch_enter();
    PyThreadState *saved = python ? NULL : PyEval_SaveThread();
    while (row < rows && rc == 0) {
        uint64_t stream_seeds[LANES];
        MT *streams[LANES];
        if (duplicate) { /* a new key: its seats' streams; the same key: its cache */
            int64_t key = o.seed[row];
            if (!g->dup.valid || g->dup.key != key) {
                for (int s = 0; s < n; s++) {
                    stream_seeds[s] = derive3(key, "seat", s);
                    streams[s] = &g->pool[s];
                }
                mt_seed_many(streams, stream_seeds, n);
                dup_attach(&g->dup, key, g->pool);
            }
            g->cur_deal = row;
            g->cur_k = o.seating[row];
            rc = play_row(g, orders.at[o.seating[row]], table, o.game_seed[row], &o, row);
            row++;
            continue;
        }
        int count = rows - row < LANES ? (int)(rows - row) : LANES;
        for (int k = 0; k < count; k++) {
            stream_seeds[k] = abs64(o.game_seed[row + k]); /* SeededDice(game_seed) */
            streams[k] = &g->pool[k];
        }
        mt_seed_many(streams, stream_seeds, count);
        for (int k = 0; k < count && rc == 0; k++, row++) {
            g->dice = &g->pool[k];
            g->cur_deal = row;
            g->cur_k = o.seating[row];
            rc = play_row(g, orders.at[o.seating[row]], table, o.game_seed[row], &o, row);
        }
    }
    if (saved != NULL) PyEval_RestoreThread(saved);
    dp_batch_leave(outer);
    free_game(g);
    release_buffers(&b);
    return finish_batch(rc, row - 1);
}

/* chunk_stats(n, rows, orders, seating, status, error_seat, worms, ranks): the standings
 * counters of harness.tourney.chunks.chunk_stats, per table entrant (seat i of a row in
 * order k holds entrant orders[k][i]), flat: for each entrant games, wins, worms, rank,
 * forfeits, capped, then shared[0..n]. `worms` and `ranks` are tuples of n int8
 * columns. */
static PyObject *py_chunk_stats(PyObject *self, PyObject *args) {
    int n;
    Py_ssize_t rows;
    PyObject *orders_obj, *seating_obj, *status_obj, *eseat_obj, *worms_obj, *ranks_obj;
    if (!PyArg_ParseTuple(args, "inOOOOOO", &n, &rows, &orders_obj, &seating_obj, &status_obj,
                          &eseat_obj, &worms_obj, &ranks_obj))
        return NULL;
    if (n < 2 || n > MAXP || rows < 0 || !PyTuple_Check(worms_obj) || !PyTuple_Check(ranks_obj) ||
        PyTuple_GET_SIZE(worms_obj) != n || PyTuple_GET_SIZE(ranks_obj) != n) {
        PyErr_SetString(PyExc_ValueError, "chunk_stats: n columns of worms and ranks");
        return NULL;
    }
    Orders orders;
    if (parse_orders(orders_obj, n, &orders) < 0) return NULL;
    Py_buffer views[3 + 2 * MAXP];
    int held = 0, ok = 1;
    const int8_t *cols[3 + 2 * MAXP];
    PyObject *objs[3 + 2 * MAXP];
    objs[0] = seating_obj;
    objs[1] = status_obj;
    objs[2] = eseat_obj;
    for (int i = 0; i < n; i++) {
        objs[3 + i] = PyTuple_GET_ITEM(worms_obj, i);
        objs[3 + n + i] = PyTuple_GET_ITEM(ranks_obj, i);
    }
    for (int k = 0; k < 3 + 2 * n && ok; k++) {
        if (PyObject_GetBuffer(objs[k], &views[k], PyBUF_C_CONTIGUOUS) < 0) {
            ok = 0;
            break;
        }
        held++;
        if (views[k].itemsize != 1 || views[k].len < rows) {
            PyErr_SetString(PyExc_ValueError, "chunk_stats: int8 columns of `rows` rows");
            ok = 0;
        }
        cols[k] = views[k].buf;
    }
    PyObject *out = NULL;
    if (ok) {
        long long games[MAXP] = {0}, wins[MAXP] = {0}, worms[MAXP] = {0}, rank[MAXP] = {0},
                  forfeits[MAXP] = {0}, capped[MAXP] = {0}, shared[MAXP][MAXP + 1];
        memset(shared, 0, sizeof(shared));
        const int8_t *seating = cols[0], *status = cols[1], *eseat = cols[2];
        for (Py_ssize_t row = 0; row < rows; row++) {
            int k = seating[row];
            if (k < 0 || k >= orders.count) {
                PyErr_Format(PyExc_ValueError,
                             "chunk_stats: row %zd has seat order %d of a design of %d", row, k,
                             orders.count);
                ok = 0;
                break;
            }
            const uint8_t *order = orders.at[k]; /* seat i holds entrant order[i] */
            if (status[row] == 1) {              /* turn cap: unfinished, never scored */
                for (int i = 0; i < n; i++) capped[order[i]]++;
                continue;
            }
            int firsts = 0, first = -1;
            for (int i = 0; i < n; i++) {
                int e = order[i];
                games[e]++;
                worms[e] += cols[3 + i][row];
                rank[e] += cols[3 + n + i][row];
                if (cols[3 + n + i][row] == 1) {
                    firsts++;
                    first = i;
                }
            }
            if (firsts == 1) {
                wins[order[first]]++;
            } else {
                for (int i = 0; i < n; i++)
                    if (cols[3 + n + i][row] == 1) shared[order[i]][firsts]++;
            }
            int es = eseat[row];
            if (es >= 0 && es < n) forfeits[order[es]]++;
        }
        if (ok) {
            out = PyTuple_New(n * (6 + n + 1));
            if (out != NULL) {
                Py_ssize_t k = 0;
                for (int e = 0; e < n; e++) {
                    long long vals[6] = {games[e], wins[e], worms[e], rank[e], forfeits[e], capped[e]};
                    for (int j = 0; j < 6; j++) PyTuple_SET_ITEM(out, k++, PyLong_FromLongLong(vals[j]));
                    for (int j = 0; j <= n; j++)
                        PyTuple_SET_ITEM(out, k++, PyLong_FromLongLong(shared[e][j]));
                }
            }
        }
    }
    for (int k = 0; k < held; k++) PyBuffer_Release(&views[k]);
    return out;
}

static PyObject *py_derive_seed(PyObject *self, PyObject *arg) {
    char *data;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(arg, &data, &len) < 0) return NULL;
    return PyLong_FromUnsignedLongLong(derive_bytes((const uint8_t *)data, (size_t)len));
}

/* mt_words(seed, n): the first n genrand_uint32 outputs of random.Random(seed), for a
 * seed with |seed| < 2**64 (tests compare them with random.getrandbits(32)). */
static PyObject *py_mt_words(PyObject *self, PyObject *args) {
    PyObject *seed;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "On", &seed, &count)) return NULL;
    PyObject *absolute = PyNumber_Absolute(seed);
    if (absolute == NULL) return NULL;
    unsigned long long s = PyLong_AsUnsignedLongLong(absolute);
    Py_DECREF(absolute);
    if (s == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    MT m;
    mt_seed_u64(&m, s);
    PyObject *out = PyList_New(count < 0 ? 0 : count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++)
        PyList_SET_ITEM(out, i, PyLong_FromUnsignedLong(mt_next(&m)));
    return out;
}

/* set_portable(flag): use the portable seeding, hashing and turn programme (True) or
 * the best this processor has (False); returns whether AVX2 versions exist. For tests:
 * both must play the same games. */
static PyObject *py_set_portable(PyObject *self, PyObject *arg) {
    int portable = PyObject_IsTrue(arg);
    if (portable < 0) return NULL;
    seed_lanes = seed_lanes_plain;
    derive4 = derive4_plain;
    if (!portable) {
        init_seed_lanes();
        init_derive4();
    }
    dp_use_lanes(portable ? 0 : 4);
#ifdef HAVE_AVX2_SEED
    return PyBool_FromLong(__builtin_cpu_supports("avx2"));
#else
    Py_RETURN_FALSE;
#endif
}

/* dp_lanes(most): the turn programme solved with the widest lanes at most `most` (4:
 * AVX2, 2: SSE2 or NEON, 0: state by state) that this build and processor have; returns
 * the lanes now in use (for tests and benchmarks; set_portable(False) restores the best). */
static PyObject *py_dp_lanes(PyObject *self, PyObject *arg) {
    long most = PyLong_AsLong(arg);
    if (most == -1 && PyErr_Occurred()) return NULL;
    return PyLong_FromLong(dp_use_lanes((int)most));
}

/* dp_states(): turn.STATES, as the C code built them (for tests). */
static PyObject *py_dp_states(PyObject *self, PyObject *unused) {
    PyObject *out = PyList_New(DP_N);
    if (out == NULL) return NULL;
    for (int i = 0; i < DP_N; i++) {
        PyObject *item = Py_BuildValue("(iii)", DP_MASK[i], DP_LEFT[i], DP_TOTAL[i]);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* dp_solve(stop, bust): (values, stops, rolls) of solve_arrays(Payoff(stop, bust)) for a
 * stop tuple of 41 floats or None, every state solved (for tests); a state with no dice
 * left rolls at -inf, as solve_arrays has it. */
static PyObject *py_dp_solve(PyObject *self, PyObject *args) {
    PyObject *stop_obj;
    double bust;
    if (!PyArg_ParseTuple(args, "Od", &stop_obj, &bust)) return NULL;
    PyObject *seq = PySequence_Fast(stop_obj, "stop: a sequence of 41 values");
    if (seq == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != DP_MAX_TOTAL + 1) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "stop: 41 values, one per total 0..40");
        return NULL;
    }
    double stop[DP_MAX_TOTAL + 1];
    for (int t = 0; t <= DP_MAX_TOTAL; t++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, t);
        stop[t] = item == Py_None ? -INFINITY : PyFloat_AsDouble(item);
        if (stop[t] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    double key[DP_MAX_TOTAL + 2];
    memcpy(key, stop, sizeof(stop));
    key[DP_MAX_TOTAL + 1] = bust;
    double *value = malloc((size_t)(DP_N - DP_V0) * sizeof(double));
    double *roll = malloc((size_t)DP_NRSLOT * sizeof(double));
    uint8_t *stops = malloc((size_t)DP_N);
    PyObject *values = NULL, *flags = NULL, *rolls = NULL;
    if (value != NULL && roll != NULL && stops != NULL && dp_solve(key, value, roll) == 0) {
        DpTurn w = {key, bust, value, roll, NULL, NULL, 0.0};
        values = PyList_New(DP_N);
        rolls = PyList_New(DP_N);
        for (int i = 0; values != NULL && rolls != NULL && i < DP_N; i++) {
            PyList_SET_ITEM(values, i, PyFloat_FromDouble(dp_value(&w, i)));
            double r = DP_LEFT[i] ? dp_roll_of(&w, i) : -INFINITY; /* no dice: no roll */
            PyList_SET_ITEM(rolls, i, PyFloat_FromDouble(r));
            stops[i] = (uint8_t)dp_stops(&w, i);
        }
        flags = PyBytes_FromStringAndSize((const char *)stops, DP_N);
    }
    free(value);
    free(roll);
    free(stops);
    if (values == NULL || flags == NULL || rolls == NULL) {
        Py_XDECREF(values);
        Py_XDECREF(flags);
        Py_XDECREF(rolls);
        return PyErr_NoMemory();
    }
    return Py_BuildValue("(NNN)", values, flags, rolls);
}

/* dp_cache_stats(): (hits, misses) of this thread's solved-turn cache. */
static PyObject *py_dp_cache_stats(PyObject *self, PyObject *unused) {
    if (dp_cache == NULL) return Py_BuildValue("(ii)", 0, 0);
    return Py_BuildValue("(ll)", dp_cache->hits, dp_cache->misses);
}

/* account_stats(): this thread's luck account and solved-turn cache, as a dict: turns
 * accounted, whose programme was solved already (hits), half solved (completed) or new
 * (misses), the states the account solved, the turns whose identity swing = par + luck -
 * regret was checked and the largest residual; the cache's sets, ways, entries allocated
 * and bytes per entry, and the caches alive in the process (for benchmarks and tests). */
static PyObject *py_account_stats(PyObject *self, PyObject *unused) {
    AccStats st = {0};
    long entries = 0;
    int sets = dp_cache_sets;
    if (dp_cache != NULL) {
        st = dp_cache->acc;
        entries = dp_cache->entries;
        sets = dp_cache->sets;
    }
    return Py_BuildValue("{sl,sl,sl,sl,sl,sl,sd,si,si,sl,sn,si}", "turns", st.turns, "hits",
                         st.hits, "completed", st.completed, "misses", st.misses, "states",
                         st.states, "checked", st.checked, "residual", st.residual, "sets", sets,
                         "ways", DP_CACHE_WAYS, "entries", entries, "entry_bytes",
                         (Py_ssize_t)(dp_block_bytes() + sizeof(DpSet) / DP_CACHE_WAYS),
                         "caches", __atomic_load_n(&dp_caches_alive, __ATOMIC_RELAXED));
}

/* dp_cache_size(sets): this thread's solved-turn cache emptied and freed (not while a batch
 * plays in this thread: a strategy's call never frees what its table holds), and every
 * thread's next one made with `sets` sets (a power of two, 1 to 2**20) of DP_CACHE_WAYS
 * ways; returns the sets before (for benchmarks: the hit rates of each size). */
static PyObject *py_dp_cache_size(PyObject *self, PyObject *arg) {
    long sets = PyLong_AsLong(arg);
    if (sets == -1 && PyErr_Occurred()) return NULL;
    if (sets < 1 || sets > (1L << 20) || (sets & (sets - 1))) {
        PyErr_SetString(PyExc_ValueError, "dp_cache_size: a power of two from 1 to 2**20");
        return NULL;
    }
    int before = dp_cache_sets;
    if (!dp_batches) dp_cache_free();
    dp_cache_sets = (int)sets;
    return PyLong_FromLong(before);
}
#include "vecenv.inc.c" /* the vector environment (harness.env.vector) */

static PyMethodDef methods[] = {
    {"play_deals", py_play_deals, METH_VARARGS, "Play a range of deals in every seat order."},
    {"play_games", py_play_games, METH_VARARGS, "Play the games described by rows."},
    {"chunk_stats", py_chunk_stats, METH_VARARGS, "The standings counters of a chunk's rows."},
    {"derive_seed", py_derive_seed, METH_O, "BLAKE2b-64 of bytes, big-endian (derive_seed)."},
    {"mt_words", py_mt_words, METH_VARARGS, "First words of random.Random(seed)."},
    {"set_portable", py_set_portable, METH_O, "Portable SIMD-free paths on (True) or off."},
    {"dp_states", py_dp_states, METH_NOARGS, "The turn programme's states."},
    {"dp_solve", py_dp_solve, METH_VARARGS, "solve_arrays of a payoff: (values, stops, rolls)."},
    {"dp_lanes", py_dp_lanes, METH_O, "The turn programme's lanes, at most n: those in use."},
    {"dp_cache_stats", py_dp_cache_stats, METH_NOARGS, "(hits, misses) of the solved turns."},
    {"account_stats", py_account_stats, METH_NOARGS, "The luck account's cache and checks."},
    {"dp_cache_size", py_dp_cache_size, METH_O, "Empty the solved turns; set their sets."},
    {"vec_new", py_vec_new, METH_VARARGS, "A vector environment's slots, in a capsule."},
    {"vec_reset", py_vec_reset, METH_VARARGS, "Every slot to its episode's first question."},
    {"vec_step", py_vec_step, METH_VARARGS, "One answer per slot; on to the next question."},
    {"vec_board", py_vec_board, METH_VARARGS, "One slot's board (render, info)."},
    {"vec_slot_bytes", py_vec_slot_bytes, METH_VARARGS, "Bytes a slot holds once playing."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "harness._native_core",
                                    "The native engine tier (see harness.native).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__native_core(void) {
    mt_init_base();
    init_seed_lanes();
    init_derive4();
    dp_use_lanes(4);
    init_block_limit();
    init_roll_tables();
    for (int t = 0; t <= 40; t++) WORMS[t] = (t >= 21 && t <= 36) ? (t - 17) / 4 : 0;
    if (!DP_READY && dp_init() < 0) return PyErr_NoMemory();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "DETAIL_BYTES", DETAIL_BYTES) < 0 ||
        PyModule_AddIntConstant(m, "KINDS", S_KINDS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_ORDERS", MAX_ORDERS) < 0 ||
        PyModule_AddIntConstant(m, "PYTHON_SEAT", S_PYTHON) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
#endif /* HARNESS_NO_PYTHON */
