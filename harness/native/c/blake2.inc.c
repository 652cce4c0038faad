/* BLAKE2b-64: every seed of a run derived as harness.game.dice.derive_seed derives it.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== BLAKE2b-64 (harness.game.dice.derive_seed) ==================================== */
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

static void init_derive4(void) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) derive4 = derive4_avx2;
#endif
}

