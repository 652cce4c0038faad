/* The dice of a turn (harness/game/dice.py): a block drawn per turn, its rolls decoded.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== dice (harness/game/dice.py) =================================================== */
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
/* The block of the seat's `turn`-th turn (drawn from its stream when first asked, kept for
 * the deal's other seat orders); NULL: out of memory. */
static const Block *dup_block(Dup *d, int seat, int turn) {
    while (d->count[seat] <= turn) {
        if (d->count[seat] == d->cap[seat]) {
            int cap = d->cap[seat] ? 2 * d->cap[seat] : DUP_FIRST_BLOCKS;
            Block *grown = realloc(d->blocks[seat], (size_t)cap * sizeof(Block));
            if (grown == NULL) return NULL;
            d->blocks[seat] = grown;
            d->cap[seat] = cap;
        }
        draw_block(d->mt[seat], &d->blocks[seat][d->count[seat]++]);
    }
    return &d->blocks[seat][turn];
}

