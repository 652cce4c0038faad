/* Python seats at a native table: the host's callbacks (harness/native/seats.py).
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 */

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
        if (code < 0 || code % 8 >= g->n || code / 8 >= ERROR_KINDS) {
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

