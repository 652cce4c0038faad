/* States of one template (the same dice left and free faces) solved side by side, DPL_N
 * at a time in vector lanes: a part of turn_dp.inc.c, #included there once per lane width.
 * Each lane does dp_state's operations on its own state, in the same order, and a
 * vector add, multiply or select rounds each lane as the scalar operation does, so a
 * lane's value is dp_state's, bit for bit (the tests compare every width with
 * solve_arrays and with each other). The includer defines
 *   DPL_N             lanes: 4 (AVX2) or 2 (SSE2, NEON)
 *   DP_FN(name)       this width's name of a function or type
 *   DPL_ATTR          its functions' attributes (target("avx2") for AVX2)
 *   DPL_GATHER(v, k)  the initializer of a vector of v[*k[0]], ... v[*k[DPL_N - 1]]
 *   DPL_FINS(w, k)    the same of dp_fin(w, *k[0]), ... (values of no dice left)
 * States with as many dice left never need each other, and a turn's first rolls need
 * many of a template at once (dp_need_all): see turn_dp.inc.c for what it saves. */

/* aligned(8): unaligned loads (as fast on aligned data), so malloc'd scratch will do */
typedef double DP_FN(DpLanes) __attribute__((vector_size(DPL_N * sizeof(double)), aligned(8)));
typedef int64_t DP_FN(DpLaneMask)
    __attribute__((vector_size(DPL_N * sizeof(double)), aligned(8)));
typedef struct {
    DP_FN(DpLanes) keep[6 * 9];
    DP_FN(DpLanes) terms[DP_MAX_ROWS];
    DP_FN(DpLanes) best[2 * DP_MAX_ROWS]; /* two levels of the tree */
} DP_FN(DpLaneScratch);
static _Thread_local DP_FN(DpLaneScratch) *DP_FN(dp_lane_scratch); /* a thread's, for life */

DPL_ATTR static inline DP_FN(DpLanes) DP_FN(dp_lanes_of)(double x) {
    DP_FN(DpLanes) v;
    for (int l = 0; l < DPL_N; l++) v[l] = x;
    return v;
}

/* dp_max in each lane: x > m ? x : m */
DPL_ATTR static inline DP_FN(DpLanes) DP_FN(dp_max_lanes)(DP_FN(DpLanes) m, DP_FN(DpLanes) x) {
    DP_FN(DpLaneMask) more = x > m;
    return (DP_FN(DpLanes))((more & (DP_FN(DpLaneMask))x) | (~more & (DP_FN(DpLaneMask))m));
}

/* DP_FN(dp_roll)(tpl, nfree, keep, bust, terms, best): DPL_N states' roll values */
#define DP_T DP_FN(DpLanes)
#define DP_OF(x) DP_FN(dp_lanes_of)(x)
#define DP_MAX(m, x) DP_FN(dp_max_lanes)(m, x)
#define DP_ATTR DPL_ATTR
#include "turn_rows.inc.c"
#undef DP_T
#undef DP_OF
#undef DP_MAX
#undef DP_ATTR

/* dp_state of states[0..count), count <= DPL_N, one template with a free face (lanes
 * past count repeat lane 0, and are dropped). 0, or -1 when out of memory (nothing
 * solved: the caller solves them state by state). */
DPL_ATTR static int DP_FN(dp_states)(const DpTurn *w, const int *states, int count) {
    if (DP_FN(dp_lane_scratch) == NULL) /* once a thread */
        DP_FN(dp_lane_scratch) = malloc(sizeof(DP_FN(DpLaneScratch)));
    DP_FN(DpLaneScratch) *sc = DP_FN(dp_lane_scratch);
    if (sc == NULL) return -1;
    int n = DP_LEFT[states[0]], nfree = DP_NFREE[states[0]];
    const double *value = w->value;
    const int16_t *kid[DPL_N];
    for (int l = 0; l < DPL_N; l++) kid[l] = DP_KIDS + DP_KOFF[states[l < count ? l : 0]];
    DP_FN(DpLanes) *keep = sc->keep;
    for (int j = 0; j < nfree; j++) {
        keep[j * 9] = DP_FN(dp_lanes_of)(-INFINITY);
        for (int c = 1; c < n; c++) {
            keep[j * 9 + c] = (DP_FN(DpLanes))DPL_GATHER(value, kid);
            for (int l = 0; l < DPL_N; l++) kid[l]++;
        }
        keep[j * 9 + n] = (DP_FN(DpLanes))DPL_FINS(w, kid); /* every die left kept */
        for (int l = 0; l < DPL_N; l++) kid[l]++;
    }
    DP_FN(DpLanes) roll =
        DP_FN(dp_roll)(&DP_TPL[n][nfree], nfree, keep, w->bust, sc->terms, sc->best);
    for (int l = 0; l < count; l++) dp_settle(w, states[l], roll[l]);
    return 0;
}
