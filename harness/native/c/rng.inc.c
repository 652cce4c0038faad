/* The dice's generator: MT19937 exactly as CPython's random module draws it.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

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

