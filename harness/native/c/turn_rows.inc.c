/* The arithmetic of a state's roll value, written once for two number types: a part of
 * turn_dp.inc.c, #included there twice, for a double (one state: dp_roll) and for DpLanes
 * (DP_LANES states of one template side by side: dp_roll_lanes). The includer defines
 *   DP_T          the type
 *   DP_OF(x)      a DP_T with x in every lane
 *   DP_MAX(m, x)  x > m ? x : m, in every lane
 *   DP_FN(name)   this type's name of a function
 *   DP_ATTR       its attributes (the lanes': target("avx2"))
 * A lane's operations are the scalar ones in the same order, and a vector add, multiply
 * or select rounds each lane as the scalar operation does, so a lane's value is the
 * scalar value bit for bit. */

/* numpy's pairwise_sum of a[0..n) (DOUBLE_pairwise_sum, unit stride) */
DP_ATTR static DP_T DP_FN(dp_pairwise)(const DP_T *a, int n) {
    if (n < 8) {
        DP_T res = DP_OF(0.);
        for (int i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        DP_T r[8];
        int i;
        for (int j = 0; j < 8; j++) r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        DP_T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    int n2 = n / 2;
    n2 -= n2 % 8;
    return DP_FN(dp_pairwise)(a, n2) + DP_FN(dp_pairwise)(a + n2, n - n2);
}

/* The roll value of a state of template tpl (nfree free faces): the sum of its rows,
 * value * probability each (turn.solve_arrays' terms), as np.add.reduceat sums them (the
 * first term, plus the pairwise sum of the others). keep[j * 9 + c] is the value of
 * keeping the c dice of free slot j, keep[j * 9] = -inf (not shown). A row's best keep
 * is the running maximum over its slots in slot order, `x > m ? x : m`, which is numpy's
 * np.maximum(best, column j) over the row's keeps in the same order (ties keep the
 * earlier, -0.0 included): carried down the template's prefix tree, level by level, so
 * each term is solve_arrays' own. The one row that shows no free face (R5, a bust) is
 * the last: every die in the lump. `terms` is scratch for the rows, `best` for two
 * levels of the tree. */
DP_ATTR static DP_T DP_FN(dp_roll)(const DpTemplate *tpl, int nfree, const DP_T *keep,
                                   double bust, DP_T *restrict terms, DP_T *restrict best) {
    int last = nfree - 1, rows = tpl->rows;
    const double *prob = tpl->prob;
    if (nfree == 0) /* every face kept: one row, a sure bust */
        return DP_OF(bust) * prob[0];
    DP_T *above = best, *here = best + DP_MAX_ROWS;
    const uint8_t *count = tpl->count[0];
    DP_T *out = last ? above : terms;
    for (int k = 0; k < tpl->level[0]; k++) out[k] = keep[count[k]];
    for (int j = 1; j < last; j++) {
        const uint16_t *par = tpl->par[j];
        const DP_T *kj = keep + j * 9;
        count = tpl->count[j];
        for (int k = 0; k < tpl->level[j]; k++) here[k] = DP_MAX(above[par[k]], kj[count[k]]);
        DP_T *swap = above;
        above = here, here = swap;
    }
    if (last) {
        const uint16_t *par = tpl->par[last];
        const DP_T *kl = keep + last * 9;
        count = tpl->count[last];
        for (int r = 0; r < rows; r++) terms[r] = DP_MAX(above[par[r]], kl[count[r]]) * prob[r];
    } else {
        for (int r = 0; r < rows; r++) terms[r] *= prob[r];
    }
    if (nfree < 6) terms[rows - 1] = DP_OF(bust) * prob[rows - 1];
    return rows > 1 ? terms[0] + DP_FN(dp_pairwise)(terms + 1, rows - 1) : terms[0];
}
