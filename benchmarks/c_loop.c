/* The speed-of-light reference for benchmarks/native_speed.py.
 *
 * A minimal C loop of the same rules: the greedy mirror, 2 players, official rules
 * (R1-R11), and nothing else: no variants, no strategy dispatch, no seeds derived, no
 * Python, no results stored but a checksum. The roll and the greedy pick are table
 * lookups (counts of 4 dice at a time, the best face of 3 faces at a time), as fast as
 * this writer knows how. Two modes:
 *
 *   same-dice   the same games as the Python engine: game k is play_game(["greedy",
 *               "greedy"], seed=first + k), its dice from CPython's MT19937 seeded
 *               with first + k (init_by_array, the whole-array twist) and drawn as
 *               harness/dice.py draws them: one getrandbits(145) per turn, redrawn at
 *               6**56 or above, roll j of a turn the base-6 digits of group j of 8.
 *               The checksum of every game's turns and scores is the Python engine's
 *               (native_speed.py checks it).
 *   rules-only  the same rules with a cheap generator (xorshift64*, one draw per
 *               roll): the cost of the rules alone, not the same games.
 *
 *   cc -O2 -o c_loop benchmarks/c_loop.c && ./c_loop same-dice 200000 0
 *
 * Output: one line "mode games cpu_seconds checksum".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 624
#define M 397

static uint32_t base_state[N];
static uint32_t mt[N];
static int mti;

static void seed_u64(uint64_t s) {
    uint32_t key[2] = {(uint32_t)s, (uint32_t)(s >> 32)};
    size_t klen = key[1] ? 2 : 1;
    memcpy(mt, base_state, sizeof(mt));
    size_t i = 1, j = 0, k = N;
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= N) {
            mt[0] = mt[N - 1];
            i = 1;
        }
        if (j >= klen) j = 0;
    }
    for (k = N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= N) {
            mt[0] = mt[N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
    mti = N;
}

static uint32_t next32(void) {
    if (mti >= N) { /* the whole-array twist, as CPython does it */
        int kk;
        uint32_t y;
        for (kk = 0; kk < N - M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
        }
        for (; kk < N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (M - N)] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
        }
        y = (mt[N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
        mti = 0;
    }
    uint32_t y = mt[mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static uint32_t limit[5]; /* 6**56 in 32-bit words */
static uint32_t block[5];

static void draw_block(void) {
    for (;;) {
        for (int i = 0; i < 4; i++) block[i] = next32();
        block[4] = next32() >> 15;
        int i = 4;
        while (i >= 0 && block[i] == limit[i]) i--;
        if (i >= 0 && block[i] < limit[i]) return;
    }
}

/* block % 6**8, block //= 6**8: the next group of 8 base-6 digits */
static uint32_t next_group(void) {
    uint64_t r = 0;
    for (int i = 4; i >= 0; i--) {
        uint64_t cur = (r << 32) | block[i];
        block[i] = (uint32_t)(cur / 1679616u);
        r = cur % 1679616u;
    }
    return (uint32_t)r;
}

static uint64_t xs = 88172645463325252ULL;
static uint32_t cheap_group(void) { /* xorshift64*: 8 digits from one draw */
    xs ^= xs >> 12;
    xs ^= xs << 25;
    xs ^= xs >> 27;
    return (uint32_t)(((xs * 2685821657736338717ULL) >> 11) % 1679616u);
}

/* PC[k][x]: counts per face (4 bits per face f at bit 4f) of the first k base-6 digits
 * of x < 6**4; NIB[used]: the count fields of the faces not yet set aside; BEST[x]: the
 * largest points * 8 + face over three faces' counts (faces 1-3 or 4-6). */
static uint32_t PC[5][1296], NIB[128];
static uint16_t BEST_LO[4096], BEST_HI[4096];
static const int points[7] = {0, 1, 2, 3, 4, 5, 5};

static void init_tables(void) {
    for (int k = 0; k <= 4; k++)
        for (int x = 0; x < 1296; x++) {
            uint32_t p = 0;
            for (int d = 0, v = x; d < k; d++, v /= 6) p += 1u << (4 * (v % 6 + 1));
            PC[k][x] = p;
        }
    for (int u = 0; u < 128; u++) {
        NIB[u] = 0;
        for (int f = 1; f <= 6; f++)
            if (!(u >> f & 1)) NIB[u] |= 15u << (4 * f);
    }
    for (int x = 0; x < 4096; x++) {
        int lo = 0, hi = 0;
        for (int j = 0; j < 3; j++) {
            int c = x >> (4 * j) & 15;
            int a = c ? c * points[j + 1] * 8 + j + 1 : 0, b = c ? c * points[j + 4] * 8 + j + 4 : 0;
            lo = a > lo ? a : lo;
            hi = b > hi ? b : hi;
        }
        BEST_LO[x] = (uint16_t)lo;
        BEST_HI[x] = (uint16_t)hi;
    }
}

static int worms(int t) { return (t - 17) / 4; }

int main(int argc, char **argv) {
    int same = argc > 1 && strcmp(argv[1], "same-dice") == 0;
    long games = argc > 2 ? atol(argv[2]) : 100000;
    long first = argc > 3 ? atol(argv[3]) : 0;
    base_state[0] = 19650218U;
    for (int i = 1; i < N; i++)
        base_state[i] = 1812433253U * (base_state[i - 1] ^ (base_state[i - 1] >> 30)) + i;
    uint64_t w[5] = {1, 0, 0, 0, 0};
    for (int k = 0; k < 56; k++) {
        uint64_t carry = 0;
        for (int i = 0; i < 5; i++) {
            uint64_t x = w[i] * 6 + carry;
            w[i] = x & 0xffffffffu;
            carry = x >> 32;
        }
    }
    for (int i = 0; i < 5; i++) limit[i] = (uint32_t)w[i];
    init_tables();
    uint64_t checksum = 0;
    clock_t start = clock();
    for (long g = 0; g < games; g++) {
        uint64_t grill = 0xFFFFULL << 21;
        int stack[2][16], len[2] = {0, 0}, score[2] = {0, 0};
        int turn = 0;
        if (same) seed_u64((uint64_t)(first + g));
        while (grill && turn < 1000) {
            int seat = turn & 1, other = 1 - seat;
            turn++;
            if (same) draw_block();
            int total = 0, left = 8, worm = 0, result = 0; /* 1 claim, -1 bust */
            unsigned used = 0;
            int low = __builtin_ctzll(grill);
            while (!result) {
                uint32_t group = same ? next_group() : cheap_group();
                uint32_t lo = group % 1296, hi = group / 1296;
                uint32_t counts = (PC[left < 4 ? left : 4][lo] + PC[left > 4 ? left - 4 : 0][hi]) & NIB[used];
                int lo_key = BEST_LO[counts >> 4 & 0xFFF], hi_key = BEST_HI[counts >> 16 & 0xFFF];
                int key = lo_key > hi_key ? lo_key : hi_key;
                if (!key) { /* R5: no new face */
                    result = -1;
                    break;
                }
                int best = key & 7;
                used |= 1u << best;
                left -= counts >> (4 * best) & 15;
                total += key >> 3;
                worm |= best == 6;
                /* greedy stops at the first claim: a grill tile <= total, or the rival's top */
                int steal = len[other] && stack[other][len[other] - 1] == total;
                if (worm && (total >= low || steal)) {
                    int tile;
                    if (steal) { /* the greatest claim_key (Strategy.claim's default) */
                        tile = total;
                        len[other]--;
                        score[other] -= worms(tile);
                    } else {
                        tile = 63 - __builtin_clzll(grill & ((1ULL << (total + 1)) - 1));
                        grill ^= 1ULL << tile;
                    }
                    stack[seat][len[seat]++] = tile;
                    score[seat] += worms(tile);
                    result = 1;
                } else if (!left) {
                    result = -1;
                }
            }
            if (result < 0 && len[seat]) { /* R9: return the top tile, turn the highest */
                int returned = stack[seat][--len[seat]];
                score[seat] -= worms(returned);
                grill |= 1ULL << returned;
                int top = 63 - __builtin_clzll(grill);
                if (top != returned) grill ^= 1ULL << top;
            }
        }
        checksum = checksum * 1000003u + (uint64_t)turn * 4096 + (uint64_t)score[0] * 64 + score[1];
    }
    double cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("%s %ld %.6f %llu\n", same ? "same-dice" : "rules-only", games, cpu,
           (unsigned long long)checksum);
    return 0;
}
