/* The Python bindings of the batches: play_deals, play_games, chunk_stats.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

/* ==== Python bindings ================================================================== */
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

