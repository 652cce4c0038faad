/* The Python bindings for tests and benchmarks: the dice, the seeds, the turn programme.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== probes (tests, benchmarks) ======================================================== */
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
    wp_use_lanes(portable ? 0 : 4); /* the evaluator's rows (winprob.inc.c) */
#ifdef HAVE_AVX2_SEED
    return PyBool_FromLong(__builtin_cpu_supports("avx2"));
#else
    Py_RETURN_FALSE;
#endif
}

/* dp_lanes(most): the turn programme (and win-optimal's network) solved with the widest
 * lanes at most `most` (4: AVX2, 2: SSE2 or NEON, 0: state by state) that this build and
 * processor have; returns
 * the lanes now in use (for tests and benchmarks; set_portable(False) restores the best). */
static PyObject *py_dp_lanes(PyObject *self, PyObject *arg) {
    long most = PyLong_AsLong(arg);
    if (most == -1 && PyErr_Occurred()) return NULL;
    int lanes = dp_use_lanes((int)most);
    wp_use_lanes(lanes); /* the evaluator's rows in the same widths (winprob.inc.c) */
    return PyLong_FromLong(lanes);
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
 * and bytes per entry, the caches alive in the process, and the win account's own
 * look-ups of the cache and how many missed (for benchmarks and tests). */
static PyObject *py_account_stats(PyObject *self, PyObject *unused) {
    AccStats st = {0};
    long entries = 0;
    int sets = dp_cache_sets;
    if (dp_cache != NULL) {
        st = dp_cache->acc;
        entries = dp_cache->entries;
        sets = dp_cache->sets;
    }
    return Py_BuildValue("{sl,sl,sl,sl,sl,sl,sd,si,si,sl,sn,si,sl,sl}", "turns", st.turns, "hits",
                         st.hits, "completed", st.completed, "misses", st.misses, "states",
                         st.states, "checked", st.checked, "residual", st.residual, "sets", sets,
                         "ways", DP_CACHE_WAYS, "entries", entries, "entry_bytes",
                         (Py_ssize_t)(dp_block_bytes() + sizeof(DpSet) / DP_CACHE_WAYS),
                         "caches", __atomic_load_n(&dp_caches_alive, __ATOMIC_RELAXED),
                         "win_lookups", st.win_lookups, "win_misses", st.win_misses);
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

/* wp_chances(players, grill, stacks, to_move[, slot]): Evaluator.chances of a position, by
 * the evaluator installed for `players` seats in `slot` (tests compare them with Python's,
 * bit for bit). */
static PyObject *py_wp_chances(PyObject *self, PyObject *args) {
    WpPos p;
    unsigned long long grill;
    PyObject *stacks;
    p.slot = 0;
    if (!PyArg_ParseTuple(args, "iKOi|i", &p.n, &grill, &stacks, &p.to_move, &p.slot))
        return NULL;
    if (p.slot < 0 || p.slot >= WP_SLOTS || p.n < 2 || p.n > MAXP || !wp_mode[p.slot][p.n] ||
        p.to_move < 0 || p.to_move >= p.n ||
        !PyTuple_Check(stacks) || PyTuple_GET_SIZE(stacks) != p.n) {
        PyErr_SetString(PyExc_ValueError, "wp_chances: an installed player count, its stacks");
        return NULL;
    }
    p.grill = grill & (0xFFFFULL << LOWEST_TILE);
    for (int s = 0; s < p.n; s++) {
        PyObject *one = PyTuple_GET_ITEM(stacks, s);
        if (!PyTuple_Check(one) || PyTuple_GET_SIZE(one) > NTILES) {
            PyErr_SetString(PyExc_ValueError, "wp_chances: stacks of tiles");
            return NULL;
        }
        p.len[s] = (int)PyTuple_GET_SIZE(one);
        for (int k = 0; k < p.len[s]; k++) {
            long t = PyLong_AsLong(PyTuple_GET_ITEM(one, k));
            if (t < LOWEST_TILE || t > HIGHEST_TILE) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "wp_chances: a tile");
                return NULL;
            }
            p.stack[s][k] = (uint8_t)t;
        }
    }
    PyObject *out = PyTuple_New(p.n);
    if (out == NULL) return NULL;
    for (int s = 0; s < p.n; s++) PyTuple_SET_ITEM(out, s, PyFloat_FromDouble(wp_chance(&p, s)));
    return out;
}

/* wp_plan_stats(): (hits, misses) of this thread's win-optimal plan cache. */
static PyObject *py_wp_plan_stats(PyObject *self, PyObject *noargs) {
    DpCache *c = dp_cache;
    return Py_BuildValue("ll", c ? c->wp_hits : 0L, c ? c->wp_misses : 0L);
}
