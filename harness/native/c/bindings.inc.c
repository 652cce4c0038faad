/* The Python bindings of the batches: play_deals, play_games, chunk_stats.
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 *
 * Every buffer a binding reads (a batch's columns, the account's, the final boards,
 * progress, a design, the vector environment's arrays) goes through read_buffer, and the
 * two batch bindings share one set-up (Batch: batch_parse, batch_open, batch_play,
 * batch_close); what differs is which rows they play (batch.inc.c). */

/* ==== Python bindings ================================================================== */
/* The buffers a call holds until release_buffers: `views` is the caller's storage. */
typedef struct {
    Py_buffer *views;
    int held, cap;
} Buffers;
#define BUFFERS(store) {(store), 0, (int)(sizeof(store) / sizeof((store)[0]))}

static void release_buffers(Buffers *b) {
    for (int i = 0; i < b->held; i++) PyBuffer_Release(&b->views[i]);
    b->held = 0;
}

/* The one buffer reader: `obj`'s C-contiguous memory (writable when asked), held in `b`.
 * NULL with an exception (a ValueError naming `what`) unless its items are `itemsize`
 * bytes (0: any) and it holds `count` of them (at least, or exactly when `exact`). */
static void *read_buffer(Buffers *b, PyObject *obj, int writable, Py_ssize_t itemsize,
                         Py_ssize_t count, int exact, const char *what) {
    if (b->held == b->cap) {
        PyErr_Format(PyExc_RuntimeError, "native engine: no room for buffer %s", what);
        return NULL;
    }
    Py_buffer *view = &b->views[b->held];
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return NULL;
    b->held++;
    Py_ssize_t need = count * (itemsize ? itemsize : 1);
    if ((itemsize && view->itemsize != itemsize) || (exact ? view->len != need : view->len < need)) {
        if (itemsize)
            PyErr_Format(PyExc_ValueError, "%s: %zd items of %zd bytes needed, got %zd bytes of "
                         "%zd-byte items", what, count, itemsize, view->len, view->itemsize);
        else
            PyErr_Format(PyExc_ValueError, "%s: %zd bytes needed, got %zd", what, need, view->len);
        return NULL;
    }
    return view->buf;
}

/* (players, lower_any, flip mode, flip_without, keep_returned, evaluator slot): the rules
 * (RULES.md) and which installed evaluator judges them (columns.rules_c: their preset's).
 * The slot is required: a default would judge a preset's games by another model. */
static int parse_rules(PyObject *rules, Game *g) {
    int n, lower_any, flip_mode, flip_without, keep_returned, slot;
    if (!PyArg_ParseTuple(rules, "iiiiii", &n, &lower_any, &flip_mode, &flip_without,
                          &keep_returned, &slot))
        return -1;
    if (slot < 0 || slot >= WP_SLOTS) {
        PyErr_Format(PyExc_ValueError, "evaluator slot must be 0 to %d", WP_SLOTS - 1);
        return -1;
    }
    if (n < 2 || n > MAXP) {
        PyErr_Format(PyExc_ValueError, "%d players; a game has 2 to %d (R3)", n, MAXP);
        return -1;
    }
    if (flip_mode < 0 || flip_mode >= FLIP_MODES) {
        PyErr_Format(PyExc_ValueError, "flip mode must be 0 to %d", FLIP_MODES - 1);
        return -1;
    }
    g->n = n;
    g->lower_any = lower_any != 0;
    g->flip_mode = flip_mode;
    g->flip_without = flip_without != 0;
    g->keep_returned = keep_returned != 0;
    g->wp_slot = slot;
    return 0;
}

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

/* The table's seats: per entrant a (kind, params...) tuple, every kind's parameters held to
 * KIND_BOUNDS (layout.inc.c: the bounds its built-in declares in Python), or a Python seat
 * (S_PYTHON, no parameter). A seat out of them is refused here, never played as something
 * else. */
_Static_assert(MAX_PARAMS == 3, "parse_table reads three parameters at most (\"i|ddd\")");
static int parse_table(PyObject *seats, int n, int slot, Strat *table) {
    if (!PyTuple_Check(seats) || PyTuple_GET_SIZE(seats) != n) {
        PyErr_Format(PyExc_ValueError, "seats: a tuple of %d (kind, params) pairs", n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int kind;
        double p[MAX_PARAMS] = {0};
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
        if (kind == S_WIN_OPTIMAL && !wp_mode[slot][n]) { /* never played on no evaluator */
            PyErr_Format(PyExc_ValueError,
                         "seat %d: win-optimal has no evaluator for %d players installed "
                         "(harness.native.evaluators.install)", i, n);
            return -1;
        }
        table[i].kind = kind;
        memcpy(table[i].p, p, sizeof(p));
    }
    return 0;
}

/* The columns: a tuple of GCOL_COUNT game columns, then SCOL_COUNT per seat, in
 * layout.inc.c's order, each of `rows` items of its size; `detail`: None or a buffer of
 * DETAIL_BYTES a row (the final boards). */
static int get_out(Buffers *b, PyObject *columns, int n, Py_ssize_t rows, PyObject *detail,
                   Out *o) {
    int count = GCOL_COUNT + SCOL_COUNT * n;
    if (!PyTuple_Check(columns) || PyTuple_GET_SIZE(columns) != count) {
        PyErr_Format(PyExc_ValueError, "columns: a tuple of %d buffers", count);
        return -1;
    }
    void *p[GCOL_COUNT + SCOL_COUNT * MAXP];
    for (int i = 0; i < count; i++) {
        int k = i < GCOL_COUNT ? i : (i - GCOL_COUNT) % SCOL_COUNT;
        int size = i < GCOL_COUNT ? GCOL_SIZES[k] : SCOL_SIZES[k];
        const char *what = i < GCOL_COUNT ? GCOL_NAMES[k] : SCOL_NAMES[k];
        p[i] = read_buffer(b, PyTuple_GET_ITEM(columns, i), 1, size, rows, 0, what);
        if (p[i] == NULL) return -1;
    }
    o->deal = p[GCOL_DEAL];
    o->seating = p[GCOL_SEATING];
    o->seed = p[GCOL_SEED];
    o->game_seed = p[GCOL_GAME_SEED];
    o->turns = p[GCOL_TURNS];
    o->status = p[GCOL_STATUS];
    o->winner = p[GCOL_WINNER];
    o->error_seat = p[GCOL_ERROR_SEAT];
    o->error_kind = p[GCOL_ERROR_KIND];
    for (int s = 0; s < n; s++) {
        void **seat = p + GCOL_COUNT + SCOL_COUNT * s;
        o->worms[s] = seat[SCOL_WORMS];
        o->rank[s] = seat[SCOL_RANK];
        o->busts[s] = seat[SCOL_BUSTS];
        o->steals[s] = seat[SCOL_STEALS];
        o->stolen[s] = seat[SCOL_STOLEN];
    }
    o->detail = NULL;
    if (detail != Py_None) {
        o->detail = read_buffer(b, detail, 1, 1, rows * DETAIL_BYTES, 0, "detail");
        if (o->detail == NULL) return -1;
    }
    return 0;
}

/* The account's columns: None (no account kept), or a tuple of ACC_COUNT buffers per seat,
 * seat by seat, in layout.inc.c's order (ACC_SUMS doubles, then ACC_COUNTS int16), or
 * ACC_COUNT - 2 per seat without winluck's and winvec's (the worm account alone: no win
 * account kept, o->win 0). 1: an account is kept, 0: none, -1: a bad argument. */
static int get_account(Buffers *b, PyObject *account, int n, Py_ssize_t rows, Out *o) {
    o->win = 0;
    if (account == Py_None) return 0;
    Py_ssize_t size = PyTuple_Check(account) ? PyTuple_GET_SIZE(account) : -1;
    if (size != ACC_COUNT * n && size != (ACC_COUNT - 2) * n) {
        PyErr_Format(PyExc_ValueError,
                     "account: a tuple of %d buffers (%d without winluck's and winvec's)",
                     ACC_COUNT * n, (ACC_COUNT - 2) * n);
        return -1;
    }
    o->win = size == ACC_COUNT * n;
    int per = o->win ? ACC_COUNT : ACC_COUNT - 2;
    for (int i = 0; i < per * n; i++) {
        int k = i % per, s = i / per;
        if (!o->win && k >= ACC_WINLUCK) k += 2; /* no win buffers: the counts follow */
        void *col = read_buffer(b, PyTuple_GET_ITEM(account, i), 1, ACC_SIZES[k], rows, 0,
                                ACC_NAMES[k]);
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
    Py_buffer store[1];
    Buffers b = BUFFERS(store);
    const uint8_t *bytes = read_buffer(&b, obj, 0, 0, 0, 0, "orders");
    if (bytes == NULL) {
        PyErr_Clear(); /* not bytes-like: the same one-line refusal as a bad design */
        PyErr_SetString(PyExc_ValueError, "orders: a design is a bytes-like object");
        release_buffers(&b);
        return -1;
    }
    Py_ssize_t len = store[0].len;
    int ok = store[0].itemsize == 1 && len > 0 && len % n == 0 && len / n <= MAX_ORDERS;
    if (ok) {
        out->count = (int)(len / n);
        for (int k = 0; k < out->count; k++)
            memcpy(out->at[k], bytes + (Py_ssize_t)k * n, (size_t)n);
    }
    release_buffers(&b);
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
    if (max_turns > INT16_MAX) { /* the turns column is int16 */
        PyErr_SetString(PyExc_ValueError, "max_turns above 32767 does not fit the turns column");
        return -1;
    }
    return 0;
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

/* ---- one batch's set-up, the same for play_deals and play_games ---- */
#define BATCH_BUFFERS (GCOL_COUNT + SCOL_COUNT * MAXP + ACC_COUNT * MAXP + 2)
#define BATCH_REFUSED (-4) /* batch_close: a refusal after batch_open, its exception set */
typedef struct {
    Game proto; /* the rules (parse_rules) */
    Strat table[MAXP];
    Orders orders;
    Py_buffer store[BATCH_BUFFERS];
    Buffers b;
    Out o;
    Game *g;
    int python, playing; /* the table has Python seats; the games are under way */
    DpCache *outer;
    PyThreadState *saved;
} Batch;

/* The rules, seats, turn cap and design, read and checked. -1: refused (its exception). */
static int batch_parse(Batch *t, PyObject *rules, PyObject *seats, int max_turns,
                       PyObject *orders) {
    t->b = (Buffers)BUFFERS(t->store);
    t->g = NULL;
    t->playing = 0;
    if (parse_rules(rules, &t->proto) < 0 || parse_table(seats, t->proto.n, t->proto.wp_slot, t->table) < 0 ||
        check_max_turns(max_turns) < 0 || parse_orders(orders, t->proto.n, &t->orders) < 0)
        return -1;
    return 0;
}

/* What batch_open took, given back. */
static void batch_free(Batch *t) {
    free_game(t->g);
    t->g = NULL;
    release_buffers(&t->b);
}

/* The columns of `rows` rows (and the account's) read, the game made and the host of the
 * Python seats set. -1: refused or out of memory (its exception; all given back). */
static int batch_open(Batch *t, Py_ssize_t rows, PyObject *columns, PyObject *detail,
                      PyObject *account, PyObject *host, int duplicate, int max_turns) {
    int accounted;
    if (get_out(&t->b, columns, t->proto.n, rows, detail, &t->o) < 0 ||
        (accounted = get_account(&t->b, account, t->proto.n, rows, &t->o)) < 0) {
        batch_free(t);
        return -1;
    }
    t->g = new_game(&t->proto, duplicate, max_turns, accounted, POOL);
    t->python = t->g == NULL ? -1 : set_host(t->g, host, t->table);
    if (t->python < 0) {
        if (t->g == NULL) PyErr_NoMemory();
        batch_free(t);
        return -1;
    }
    return 0;
}

/* The games begin: this thread's solved turns entered (turn_dp.inc.c), the GIL let go
 * unless a Python seat plays (its host calls into Python). */
static void batch_play(Batch *t) {
    t->outer = dp_batch_enter();
    t->saved = t->python ? NULL : PyEval_SaveThread();
    t->playing = 1;
}

/* The games are over (rc: 0, or the failure of the game in row `row`): everything given
 * back; None, or the failure's exception. */
static PyObject *batch_close(Batch *t, int rc, Py_ssize_t row) {
    if (t->playing) {
        if (t->saved != NULL) PyEval_RestoreThread(t->saved);
        dp_batch_leave(t->outer);
        t->playing = 0;
    }
    batch_free(t);
    if (rc == -3) return NULL; /* a Python seat's host raised: its exception propagates */
    if (rc == -1) return PyErr_NoMemory();
    if (rc == -2) {
        PyErr_Format(PyExc_RuntimeError,
                     "native engine: game in row %zd failed its integrity check (R1, R11)", row);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* play_deals(rules, seats, max_turns, duplicate, prefix, first, stop, start, orders,
 *            columns, detail[, host[, account[, progress]]]): deals first..stop-1, each
 * in every seat order of `orders` (rows by deal, then order index), rows from chunk row
 * `start` on (the deal seed of deal d is derive_seed of prefix + str(d), masked to int64).
 * `account`: the luck account's columns (or None). `progress`: a writable buffer of a
 * double (or None) that gets the chunk row of each game as it starts. */
static PyObject *py_play_deals(PyObject *self, PyObject *args) {
    PyObject *rules, *seats, *orders, *columns, *detail, *host = Py_None;
    PyObject *account = Py_None, *progress = Py_None;
    int max_turns, duplicate;
    const char *prefix;
    Py_ssize_t prefix_len, start;
    long long first, stop;
    if (!PyArg_ParseTuple(args, "OOipy#LLnOOO|OOO", &rules, &seats, &max_turns, &duplicate,
                          &prefix, &prefix_len, &first, &stop, &start, &orders, &columns,
                          &detail, &host, &account, &progress))
        return NULL;
    Batch t;
    if (batch_parse(&t, rules, seats, max_turns, orders) < 0) return NULL;
    if (prefix_len > 512 || stop < first || first < 0 || stop > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "play_deals: bad prefix or deal range");
        return NULL;
    }
    Py_ssize_t total = (Py_ssize_t)(stop - first) * t.orders.count;
    if (start < 0 || start > total) {
        PyErr_SetString(PyExc_ValueError, "play_deals: start is outside the chunk");
        return NULL;
    }
    double *told = NULL;
    if (progress != Py_None &&
        (told = read_buffer(&t.b, progress, 1, 0, sizeof(double), 0, "progress")) == NULL) {
        release_buffers(&t.b);
        return NULL;
    }
    if (batch_open(&t, total - start, columns, detail, account, host, duplicate, max_turns) < 0)
        return NULL;
    Py_ssize_t played = 0;
    batch_play(&t);
    batch_progress = told;
    batch_start = start;
    int rc = (duplicate ? deals_duplicate : deals_independent)(
        t.g, t.table, &t.orders, prefix, (size_t)prefix_len, first, stop, start, &t.o, &played);
    batch_progress = NULL;
    return batch_close(&t, rc, played);
}

/* play_games(rules, seats, max_turns, duplicate, rows, orders, columns, detail[, host[,
 * account]]): the games the rows' seating (an index into `orders`), seed (the dice key of
 * duplicate dice) and game_seed (independent dice, view.rng) columns describe, filling
 * the other columns but deal. */
static PyObject *py_play_games(PyObject *self, PyObject *args) {
    PyObject *rules, *seats, *orders, *columns, *detail, *host = Py_None, *account = Py_None;
    int max_turns, duplicate;
    Py_ssize_t rows;
    if (!PyArg_ParseTuple(args, "OOipnOOO|OO", &rules, &seats, &max_turns, &duplicate, &rows,
                          &orders, &columns, &detail, &host, &account))
        return NULL;
    Batch t;
    if (batch_parse(&t, rules, seats, max_turns, orders) < 0) return NULL;
    if (rows < 0) {
        PyErr_SetString(PyExc_ValueError, "play_games: rows must be >= 0");
        return NULL;
    }
    if (batch_open(&t, rows, columns, detail, account, host, duplicate, max_turns) < 0)
        return NULL;
    for (Py_ssize_t row = 0; row < rows; row++)
        if (t.o.seating[row] < 0 || t.o.seating[row] >= t.orders.count) {
            PyErr_Format(PyExc_ValueError, "row %zd: seat order %d of a design of %d", row,
                         t.o.seating[row], t.orders.count);
            batch_free(&t);
            return NULL;
        }
    Py_ssize_t row = 0;
    batch_play(&t);
    int rc = rows_play(t.g, t.table, &t.orders, &t.o, rows, &row);
    return batch_close(&t, rc, row - 1); /* rows_play counts the failing row in */
}

/* chunk_stats(n, rows, orders, seating, status, error_seat, worms, ranks): the standings
 * counters of harness.tourney.chunk_result.chunk_stats, per table entrant (seat i of a row
 * in order k holds entrant orders[k][i]), flat: for each entrant its STAT_FIELDS counters
 * (layout.inc.c: games, wins, worms, rank, forfeits, capped), then shared[0..n]. `worms`
 * and `ranks` are tuples of n int8 columns. */
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
    Py_buffer store[3 + 2 * MAXP];
    Buffers b = BUFFERS(store);
    const int8_t *cols[3 + 2 * MAXP] = {0};
    const char *names[3] = {"seating", "status", "error_seat"};
    PyObject *objs[3 + 2 * MAXP] = {seating_obj, status_obj, eseat_obj};
    for (int i = 0; i < n; i++) {
        objs[3 + i] = PyTuple_GET_ITEM(worms_obj, i);
        objs[3 + n + i] = PyTuple_GET_ITEM(ranks_obj, i);
    }
    int ok = 1;
    for (int k = 0; k < 3 + 2 * n && ok; k++) {
        const char *what = k < 3 ? names[k] : k < 3 + n ? "worms" : "rank";
        ok = (cols[k] = read_buffer(&b, objs[k], 0, 1, rows, 0, what)) != NULL;
    }
    PyObject *out = NULL;
    long long stat[MAXP][STAT_FIELDS], shared[MAXP][MAXP + 1];
    memset(stat, 0, sizeof(stat));
    memset(shared, 0, sizeof(shared));
    const int8_t *seating = cols[0], *status = cols[1], *eseat = cols[2];
    for (Py_ssize_t row = 0; ok && row < rows; row++) {
        int k = seating[row];
        if (k < 0 || k >= orders.count) {
            PyErr_Format(PyExc_ValueError,
                         "chunk_stats: row %zd has seat order %d of a design of %d", row, k,
                         orders.count);
            ok = 0;
            break;
        }
        const uint8_t *order = orders.at[k]; /* seat i holds entrant order[i] */
        if (status[row] == STATUS_TURN_CAP) { /* unfinished, never scored */
            for (int i = 0; i < n; i++) stat[order[i]][STAT_CAPPED]++;
            continue;
        }
        int firsts = 0, first = -1;
        for (int i = 0; i < n; i++) {
            long long *e = stat[order[i]];
            e[STAT_GAMES]++;
            e[STAT_WORMS] += cols[3 + i][row];
            e[STAT_RANK] += cols[3 + n + i][row];
            if (cols[3 + n + i][row] == 1) {
                firsts++;
                first = i;
            }
        }
        if (firsts == 1) {
            stat[order[first]][STAT_WINS]++;
        } else {
            for (int i = 0; i < n; i++)
                if (cols[3 + n + i][row] == 1) shared[order[i]][firsts]++;
        }
        int es = eseat[row];
        if (es >= 0 && es < n) stat[order[es]][STAT_FORFEITS]++;
    }
    if (ok) out = PyTuple_New(n * (STAT_FIELDS + n + 1));
    for (int e = 0, k = 0; out != NULL && e < n; e++)
        for (int j = 0; out != NULL && j < STAT_FIELDS + n + 1; j++) {
            PyObject *v = PyLong_FromLongLong(j < STAT_FIELDS ? stat[e][j] : shared[e][j - STAT_FIELDS]);
            if (v == NULL) Py_CLEAR(out);
            else PyTuple_SET_ITEM(out, k++, v);
        }
    release_buffers(&b);
    return out;
}

/* wp_install(players, model, neumaier[, slot]): the evaluator of `players` seats for
 * win-optimal and the win account, in `slot` (the rules' preset: columns.rules_c):
 * `model` the bytes of its file (harness.winprob.Model.to_bytes(), checked by the caller
 * against its sha256) or None for the normal approximation; `neumaier`: whether this
 * Python's sum() of floats is compensated (3.12 and later). A model that does not fit is
 * a ValueError saying why, and nothing changes. */
static PyObject *py_wp_install(PyObject *self, PyObject *args) {
    int players, neumaier, slot = 0;
    PyObject *data;
    if (!PyArg_ParseTuple(args, "iOp|i", &players, &data, &neumaier, &slot)) return NULL;
    if (players < 2 || players > MAXP) {
        PyErr_Format(PyExc_ValueError, "%d players; a game has 2 to %d (R3)", players, MAXP);
        return NULL;
    }
    if (slot < 0 || slot >= WP_SLOTS) {
        PyErr_Format(PyExc_ValueError, "evaluator slot must be 0 to %d", WP_SLOTS - 1);
        return NULL;
    }
    WpModel *m = NULL;
    if (data != Py_None) {
        char *bytes, why[200];
        Py_ssize_t size;
        if (PyBytes_AsStringAndSize(data, &bytes, &size) < 0) return NULL;
        m = wp_parse((const uint8_t *)bytes, (size_t)size, players, why, sizeof why);
        if (m == NULL) {
            PyErr_Format(PyExc_ValueError, "the %d-player model: %s", players, why);
            return NULL;
        }
    }
    wp_neumaier = neumaier;
    wp_model[slot][players] = m; /* the one before stays allocated: a batch may still read it */
    wp_mode[slot][players] = m == NULL ? 1 : 2;
    wp_generation++; /* every plan cache's boards of other models: misses from now */
    Py_RETURN_NONE;
}
