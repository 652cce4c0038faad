/* The vector environment (harness/env/vector.py): N games stepped per call, the agent's
 * decisions inverted.
 *
 * A part of core.c, #included after its Python bindings (one unit of compilation: the
 * engine's dice, the turn's state, play_turn(), the native strategies and the buffer
 * reader are static there). Each slot is one game at a time: the opponents' turns are the
 * engine's play_turn(), the agent's turn is the same state (turn.inc.c) stepped one
 * question at a time (the same dice groups, the same R5-R9 steps and checks), so a slot
 * plays exactly the game harness.env.game.SteppedGame plays on the Python engine with the
 * same answers (tests/env/test_env_vector.py compares them decision by decision).
 *
 * Episodes follow harness.env.game.Schedule: episode e is deal e / m in seat order
 * e % m (m orders), deal seed derive_seed(seed, "deal", deal) (the prefix is hashed with
 * the deal number, as play_deals does), duplicate dice keyed by it or independent dice
 * seeded by derive_seed(deal seed, "rotation", key of the order). Slot j begins at
 * episode start[j] and goes on by `stride`. Observations are harness.env.encoding's, the
 * float32 of the same doubles; rewards harness.env.game's.
 *
 * Entry points (harness/env/vector.py is the only caller):
 *   vec_new(rules, seats, orders, keys, duplicate, reward, illegal_raise, illegal_reward,
 *           max_turns, n)           -> a capsule holding n slots
 *   vec_reset(cap, prefix, starts, stride, out)   every slot to its first question
 *   vec_step(cap, actions, autoreset, out)        one answer per slot, on to the next
 *   vec_board(cap, slot)            one slot's board, for render() and info
 *   vec_slot_bytes(players, duplicate)  the memory one slot holds once playing
 * `out` is (obs, mask, reward, terminated, truncated, illegal, episode, seat): writable
 * buffers of n rows (reward float32, the flags uint8, episode int64, seat int8).
 */

/* VE_OBS, VE_ACTIONS, VE_STOP, VE_ROLL, VE_CLAIM0, VE_SKIPS, the observation's offsets O_*
 * and the rewards R_* are layout.inc.c's (harness.env.encoding, game, single). */
enum { VE_DONE = -1, VE_PICK = PHASE_PICK, VE_STOPQ = PHASE_STOP, VE_CLAIMQ = PHASE_CLAIM };

typedef struct {
    Game *g;
    int agent, phase;
    Turn t;               /* the agent's turn (turn.inc.c) */
    TurnDice dice;        /* its dice */
    int kept[7];          /* dice set aside this turn per face */
    long long episode;    /* the episode in play */
    double margin;        /* the agent's margin after its last step (swing) */
    int64_t dseed;
} Slot;

typedef struct {
    int n_envs, duplicate, reward, illegal_raise, max_turns;
    double illegal_reward;
    Game proto;
    Strat table[MAXP]; /* table entrant e; entrant 0 is the agent (never asked) */
    Orders orders;
    int keys[MAX_ORDERS]; /* the design index of each order (independent dice) */
    char prefix[600];
    size_t prefix_len;
    long long stride;
    Slot *slots;
} VecEnv;

/* harness.env.game.margin: the seat's worms minus the mean of the others'. */
static double ve_margin(const Game *g, int seat) {
    int sum = 0;
    for (int s = 0; s < g->n; s++) sum += g->score[s];
    return (double)(g->n * g->score[seat] - sum) / (double)(g->n - 1);
}

/* harness.env.game.win_share by rank_seats (R11): most worms, ties to the highest tile. */
static double ve_win(const Game *g, int seat) {
    int key[MAXP], best = -1, firsts = 0; /* a key is >= 0 */
    for (int s = 0; s < g->n; s++) {
        key[s] = rank_key(g, s);
        if (key[s] > best) best = key[s];
    }
    for (int s = 0; s < g->n; s++) firsts += key[s] == best;
    return key[seat] == best ? 1.0 / (double)firsts : 0.0;
}

/* R4 for the agent: roll the dice left. 1: a pick is asked; 0: the turn busted (R5). */
static int ve_roll(Slot *s) {
    if (turn_roll(&s->t, &s->dice)) {
        s->phase = VE_PICK;
        return 1;
    }
    turn_bust(s->g, &s->t);
    s->phase = VE_DONE;
    return 0;
}

/* Play on until the agent is asked something or the game ends. -1: out of memory. */
static int ve_advance(Slot *s) {
    Game *g = s->g;
    while (!g->over && g->turn < g->max_turns) {
        if (g->seat != s->agent) {
            play_turn(g);
            if (g->failed) return -1;
            continue;
        }
        if (turn_begin(g, &s->t, &s->dice) < 0) return -1;
        memset(s->kept, 0, sizeof(s->kept));
        if (ve_roll(s)) return 0;
    }
    s->phase = VE_DONE;
    return 0;
}

/* R7: the agent stops: the one claim taken, or a question when there are several. */
static void ve_stop(Slot *s) {
    Claim choices[NTILES + 1];
    if (legal_claims(s->g, s->agent, s->t.total, choices) > 1) {
        s->phase = VE_CLAIMQ;
        return;
    }
    turn_take(s->g, &s->t, choices[0]);
    s->phase = VE_DONE;
}

/* Whether `a` answers the slot's question (the mask's 1s). */
static int ve_legal(const Slot *s, long long a) {
    if (s->phase == VE_PICK) return a >= 0 && a < 6 && count_of(s->t.packed, (int)a + 1) != 0;
    if (s->phase == VE_STOPQ) return a == VE_STOP || a == VE_ROLL;
    if (s->phase == VE_CLAIMQ && a >= VE_CLAIM0 && a < VE_ACTIONS) {
        Claim choices[NTILES + 1];
        int nc = legal_claims(s->g, s->agent, s->t.total, choices);
        for (int i = 0; i < nc; i++)
            if (choices[i].tile == (int)a - VE_CLAIM0 + 21) return 1;
    }
    return 0;
}

/* Answer the question with a legal action (SteppedGame.act), then play on. */
static int ve_act(Slot *s, int a) {
    Game *g = s->g;
    if (s->phase == VE_PICK) {
        int face = a + 1;
        s->kept[face] += count_of(s->t.packed, face);
        switch (turn_keep(g, &s->t, face)) {
        case TURN_MAY_STOP: /* R6 */
            s->phase = VE_STOPQ;
            return 0;
        case TURN_STOP:
            ve_stop(s);
            break;
        case TURN_BUST: /* R8 */
            turn_bust(g, &s->t);
            s->phase = VE_DONE;
            break;
        default: /* TURN_ROLL */
            if (ve_roll(s)) return 0;
        }
    } else if (s->phase == VE_STOPQ) {
        if (a == VE_STOP) ve_stop(s);
        else if (ve_roll(s)) return 0;
    } else {
        Claim choices[NTILES + 1];
        int nc = legal_claims(g, s->agent, s->t.total, choices);
        for (int i = 0; i < nc; i++)
            if (choices[i].tile == a - VE_CLAIM0 + 21) turn_take(g, &s->t, choices[i]);
        s->phase = VE_DONE;
    }
    return s->phase == VE_DONE ? ve_advance(s) : 0;
}

/* harness.env.encoding.encode of the agent's view (phase VE_DONE: the board alone). */
static void ve_observe(const VecEnv *e, const Slot *s, float *o, int8_t *m) {
    const Game *g = s->g;
    memset(o, 0, VE_OBS * sizeof(float));
    memset(m, 0, VE_ACTIONS);
    int done = s->phase == VE_DONE;
    if (!done) o[s->phase] = 1.0f;
    if (!done) {
        for (int f = 1; f <= 6; f++) {
            o[O_ROLL + f - 1] = (float)(count_of(s->t.shown, f) / 8.0);
            o[O_KEPT + f - 1] = (float)(s->kept[f] / 8.0);
        }
        o[O_TOTAL] = (float)(s->t.total / 40.0);
        o[O_HAS_WORM] = (float)s->t.worm;
    }
    o[O_DICE_LEFT] = done ? 1.0f : (float)(s->t.left / 8.0);
    if (!done && s->t.worm) {
        Claim choices[NTILES + 1];
        int nc = legal_claims(g, s->agent, s->t.total, choices);
        for (int i = 0; i < nc; i++) {
            o[O_CLAIMS + choices[i].tile - 21] = 1.0f;
            if (s->phase == VE_CLAIMQ) m[VE_CLAIM0 + choices[i].tile - 21] = 1;
        }
    }
    for (int t = 21; t <= 36; t++) {
        if (g->grill >> t & 1) o[O_GRILL + t - 21] = 1.0f;
        if (g->flipped >> t & 1) o[O_FLIPPED + t - 21] = 1.0f;
    }
    for (int j = 0; j < g->n; j++) {
        int seat = (s->agent + j) % g->n;
        float *b = o + O_SEATS + O_SEAT_BLOCK * j;
        b[0] = 1.0f;
        b[1] = (float)(g->score[seat] / 40.0);
        b[2] = (float)(g->len[seat] / 16.0);
        if (g->len[seat]) b[3 + g->top[seat] - 21] = 1.0f;
    }
    o[O_RULES] = (float)g->lower_any;
    o[O_RULES + 1 + (g->flip_mode == FLIP_HIGHEST ? 0 : g->flip_mode == FLIP_LOWEST ? 1 : 2)] = 1.0f;
    o[O_RULES + 4] = (float)g->flip_without;
    o[O_RULES + 5] = (float)!g->keep_returned;
    if (s->phase == VE_PICK) {
        for (int f = 1; f <= 6; f++) m[f - 1] = count_of(s->t.packed, f) != 0;
    } else if (s->phase == VE_STOPQ) {
        m[VE_STOP] = m[VE_ROLL] = 1;
    }
}

/* Begin episode e on the slot (SingleAgent._begin): its deal, seat order and dice. */
static void ve_begin(VecEnv *e, Slot *s, long long episode) {
    Game *g = s->g;
    int m = e->orders.count;
    long long deal = episode / m;
    int k = (int)(episode % m);
    int64_t dseed;
    deal_seeds(e->prefix, e->prefix_len, deal, 1, &dseed);
    const uint8_t *order = e->orders.at[k];
    int64_t gseed = dseed;
    if (g->duplicate) {
        uint64_t seeds[MAXP];
        MT *streams[MAXP];
        for (int i = 0; i < g->n; i++) {
            seeds[i] = derive3(dseed, "seat", i);
            streams[i] = &g->pool[i];
        }
        mt_seed_many(streams, seeds, g->n);
        dup_attach(&g->dup, dseed, g->pool);
    } else {
        gseed = (int64_t)(derive3(dseed, "rotation", e->keys[k]) & SEED_MASK);
        mt_seed_u64(&g->pool[0], (uint64_t)gseed);
        g->dice = &g->pool[0];
    }
    game_start(g, order, e->table, gseed);
    for (int i = 0; i < g->n; i++)
        if (order[i] == 0) s->agent = i;
    s->episode = episode;
    s->dseed = dseed;
    s->margin = 0.0;
    s->phase = VE_DONE;
}

/* SingleAgent.reset: episode `from` or, when it ends before the agent is asked anything,
 * the slot's next ones. 0, -1 out of memory, -2 every try ended first, -4 the next
 * episode number would pass 2**63 - 1 (harness.env.game.MAX_EPISODE: never wrapped). */
static int ve_reset_slot(VecEnv *e, Slot *s, long long from) {
    long long episode = from;
    for (int k = 0; k < VE_SKIPS; k++) {
        if (k > 0) {
            if (episode > LLONG_MAX - e->stride) return -4;
            episode += e->stride;
        }
        ve_begin(e, s, episode);
        if (ve_advance(s) < 0) return -1;
        if (s->phase != VE_DONE) return 0;
    }
    return -2;
}

static void ve_free(VecEnv *e) {
    if (e == NULL) return;
    if (e->slots != NULL)
        for (int i = 0; i < e->n_envs; i++) free_game(e->slots[i].g);
    PyMem_Free(e->slots);
    PyMem_Free(e);
}

static void ve_capsule_free(PyObject *cap) {
    ve_free((VecEnv *)PyCapsule_GetPointer(cap, "harness.vecenv"));
}

static VecEnv *ve_get(PyObject *cap) {
    return (VecEnv *)PyCapsule_GetPointer(cap, "harness.vecenv");
}

static PyObject *py_vec_new(PyObject *self, PyObject *args) {
    PyObject *rules, *seats, *orders_obj, *keys;
    int duplicate, reward, illegal_raise, max_turns, n_envs;
    double illegal_reward;
    if (!PyArg_ParseTuple(args, "OOOOiiidii", &rules, &seats, &orders_obj, &keys, &duplicate,
                          &reward, &illegal_raise, &illegal_reward, &max_turns, &n_envs))
        return NULL;
    VecEnv *e = PyMem_Calloc(1, sizeof(VecEnv));
    if (e == NULL) return PyErr_NoMemory();
    int ok = parse_rules(rules, &e->proto) == 0 && parse_table(seats, e->proto.n, e->proto.wp_slot, e->table) == 0 &&
             check_max_turns(max_turns) == 0 && parse_orders(orders_obj, e->proto.n, &e->orders) == 0;
    if (ok) {
        for (int i = 0; i < e->proto.n; i++)
            if (e->table[i].kind == S_PYTHON) ok = 0;
        if (!ok) PyErr_SetString(PyExc_ValueError, "vec_new: every opponent must be native");
    }
    Py_buffer store[1];
    Buffers b = BUFFERS(store);
    const uint8_t *key = ok ? read_buffer(&b, keys, 0, 1, e->orders.count, 1, "keys") : NULL;
    if (key != NULL && (n_envs < 1 || n_envs > (1 << 16) || max_turns < 1 || reward < 0 ||
                        reward > R_SWING)) {
        PyErr_SetString(PyExc_ValueError, "vec_new: one key per order, 1 to 2**16 slots");
        key = NULL;
    }
    if (key != NULL)
        for (int k = 0; k < e->orders.count; k++) e->keys[k] = key[k];
    ok = key != NULL;
    release_buffers(&b);
    if (!ok) {
        ve_free(e);
        return NULL;
    }
    e->n_envs = n_envs;
    e->duplicate = duplicate != 0;
    e->reward = reward;
    e->illegal_raise = illegal_raise != 0;
    e->illegal_reward = illegal_reward;
    e->max_turns = max_turns;
    e->stride = n_envs;
    e->slots = PyMem_Calloc((size_t)n_envs, sizeof(Slot));
    if (e->slots == NULL) {
        ve_free(e);
        return PyErr_NoMemory();
    }
    for (int i = 0; i < n_envs; i++) {
        e->slots[i].g = new_game(&e->proto, e->duplicate, max_turns, 0, MAXP); /* no account */
        if (e->slots[i].g == NULL) {
            ve_free(e);
            return PyErr_NoMemory();
        }
        e->slots[i].phase = VE_DONE;
        e->slots[i].episode = -1;
    }
    PyObject *cap = PyCapsule_New(e, "harness.vecenv", ve_capsule_free);
    if (cap == NULL) ve_free(e);
    return cap;
}

/* vec_slot_bytes(players, duplicate): what one slot holds once its games are under way:
 * the slot, its game and dice streams, and with duplicate dice each seat's first blocks
 * (a seat of a longer game doubles them); harness/env/vector.py adds its arrays' rows. */
static PyObject *py_vec_slot_bytes(PyObject *self, PyObject *args) {
    int players, duplicate;
    if (!PyArg_ParseTuple(args, "ip", &players, &duplicate)) return NULL;
    if (players < 2 || players > MAXP) {
        PyErr_SetString(PyExc_ValueError, "vec_slot_bytes: 2 to 7 players");
        return NULL;
    }
    size_t bytes = sizeof(Slot) + sizeof(Game) + MAXP * sizeof(MT);
    if (duplicate) bytes += (size_t)players * DUP_FIRST_BLOCKS * sizeof(Block);
    return PyLong_FromSize_t(bytes);
}

typedef struct {
    float *obs, *reward;
    int8_t *mask, *seat;
    uint8_t *term, *trunc, *illegal;
    int64_t *episode;
} VeOut;

/* The out tuple's buffers, each of exactly n rows (a row's bytes: sizes[i]). */
#define VE_OUTS 8
static int ve_out(Buffers *b, PyObject *out, Py_ssize_t n, VeOut *o) {
    static const int sizes[VE_OUTS] = {4 * VE_OBS, VE_ACTIONS, 4, 1, 1, 1, 8, 1};
    static const char *names[VE_OUTS] = {"obs", "mask", "reward", "terminated",
                                         "truncated", "illegal", "episode", "seat"};
    if (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != VE_OUTS) {
        PyErr_SetString(PyExc_ValueError, "out: a tuple of 8 buffers");
        return -1;
    }
    void *p[VE_OUTS];
    for (int i = 0; i < VE_OUTS; i++)
        if ((p[i] = read_buffer(b, PyTuple_GET_ITEM(out, i), 1, 0, n * sizes[i], 1, names[i])) ==
            NULL)
            return -1;
    o->obs = p[0];
    o->mask = p[1];
    o->reward = p[2];
    o->term = p[3];
    o->trunc = p[4];
    o->illegal = p[5];
    o->episode = p[6];
    o->seat = p[7];
    return 0;
}

static void ve_row(const VecEnv *e, const Slot *s, VeOut *o, Py_ssize_t i) {
    ve_observe(e, s, o->obs + i * VE_OBS, o->mask + i * VE_ACTIONS);
    o->episode[i] = s->episode;
    o->seat[i] = (int8_t)s->agent;
}

static PyObject *ve_failed(int rc, Py_ssize_t slot) {
    if (rc == -1) return PyErr_NoMemory();
    if (rc == -4) {
        PyErr_Format(PyExc_ValueError,
                     "slot %zd: its next episode is past the last episode number, 2**63 - 1 "
                     "(an int64): reset with a smaller start or stride", slot);
        return NULL;
    }
    PyErr_Format(PyExc_RuntimeError,
                 "slot %zd: %d episodes in a row ended before the agent was asked anything",
                 slot, VE_SKIPS);
    return NULL;
}

/* What a call (vec_reset, vec_step) reads: an int64 a slot and the out buffers. */
typedef struct {
    Py_buffer store[VE_OUTS + 1];
    Buffers b;
    VeOut o;
    const int64_t *values;
} VeCall;

/* A call's set-up: the env of `cap`, its int64 a slot (`what`) and the out buffers, held
 * in c->b until release_buffers. NULL with an exception. */
static VecEnv *ve_call(VeCall *c, PyObject *cap, PyObject *per_slot, const char *what,
                       PyObject *out) {
    c->b = (Buffers)BUFFERS(c->store);
    VecEnv *e = ve_get(cap);
    if (e == NULL) return NULL;
    c->values = read_buffer(&c->b, per_slot, 0, 0, (Py_ssize_t)e->n_envs * 8, 1, what);
    return c->values == NULL || ve_out(&c->b, out, e->n_envs, &c->o) < 0 ? NULL : e;
}

/* vec_reset(cap, prefix, starts, stride, out) */
static PyObject *py_vec_reset(PyObject *self, PyObject *args) {
    PyObject *cap, *starts, *out;
    const char *prefix;
    Py_ssize_t prefix_len;
    long long stride;
    if (!PyArg_ParseTuple(args, "Oy#OLO", &cap, &prefix, &prefix_len, &starts, &stride, &out))
        return NULL;
    if (prefix_len > 512 || stride < 1) {
        PyErr_SetString(PyExc_ValueError, "vec_reset: a short prefix, n int64 starts, stride >= 1");
        return NULL;
    }
    VeCall c;
    PyObject *result = NULL;
    VecEnv *e = ve_call(&c, cap, starts, "starts", out);
    if (e == NULL) goto done;
    const int64_t *from = c.values;
    memcpy(e->prefix, prefix, (size_t)prefix_len);
    e->prefix_len = (size_t)prefix_len;
    e->stride = stride;
    int rc = 0;
    Py_ssize_t i = 0;
    for (; i < e->n_envs; i++) { /* the GIL is kept: two threads must not step one env */
        if (from[i] < 0) {
            rc = -3;
            break;
        }
        rc = ve_reset_slot(e, &e->slots[i], from[i]);
        if (rc) break;
        ve_row(e, &e->slots[i], &c.o, i);
        c.o.reward[i] = 0.0f;
        c.o.term[i] = c.o.trunc[i] = c.o.illegal[i] = 0;
    }
    if (rc == -3) PyErr_SetString(PyExc_ValueError, "vec_reset: episodes are >= 0");
    else if (rc) ve_failed(rc, i);
    else result = Py_NewRef(Py_None);
done:
    release_buffers(&c.b);
    return result;
}

/* vec_step(cap, actions, autoreset, out): slot i answers actions[i] (int64). */
static PyObject *py_vec_step(PyObject *self, PyObject *args) {
    PyObject *cap, *acts, *out;
    int autoreset;
    if (!PyArg_ParseTuple(args, "OOpO", &cap, &acts, &autoreset, &out)) return NULL;
    VeCall c;
    PyObject *result = NULL;
    VecEnv *e = ve_call(&c, cap, acts, "actions", out);
    if (e == NULL) goto done;
    const int64_t *a = c.values;
    for (Py_ssize_t i = 0; i < e->n_envs; i++) {
        if (e->slots[i].phase == VE_DONE) {
            PyErr_Format(PyExc_ValueError, "slot %zd: its episode is over; reset first", i);
            goto done;
        }
        if (e->illegal_raise && !ve_legal(&e->slots[i], a[i])) {
            PyErr_Format(PyExc_ValueError,
                         "slot %zd: action %lld is not legal now; see the action mask", i,
                         (long long)a[i]);
            goto done;
        }
    }
    int rc = 0;
    Py_ssize_t i = 0;
    for (; i < e->n_envs; i++) {
        Slot *s = &e->slots[i];
        Game *g = s->g;
        c.o.term[i] = c.o.trunc[i] = 0;
        if (!ve_legal(s, a[i])) {
            c.o.reward[i] = (float)e->illegal_reward;
            c.o.illegal[i] = 1;
            ve_row(e, s, &c.o, i);
            continue;
        }
        c.o.illegal[i] = 0;
        if (ve_act(s, (int)a[i]) < 0) {
            rc = -1;
            break;
        }
        double r = 0.0;
        if (e->reward == R_SWING) {
            double now = ve_margin(g, s->agent);
            r = now - s->margin;
            s->margin = now;
        }
        if (s->phase == VE_DONE) {
            if (g->over) {
                c.o.term[i] = 1;
                if (e->reward == R_MARGIN) r += ve_margin(g, s->agent);
                else if (e->reward == R_WIN) r += ve_win(g, s->agent);
            } else {
                c.o.trunc[i] = game_capped(g);
            }
            if (autoreset) {
                rc = s->episode > LLONG_MAX - e->stride ? -4
                                                        : ve_reset_slot(e, s, s->episode + e->stride);
                if (rc) break;
            }
        }
        c.o.reward[i] = (float)r;
        ve_row(e, s, &c.o, i);
    }
    if (rc) ve_failed(rc, i);
    else result = Py_NewRef(Py_None);
done:
    release_buffers(&c.b);
    return result;
}

/* vec_board(cap, slot): (turn, grill, flipped, stacks, phase, agent, shown counts, kept
 * counts, total, left, over, capped, episode): one slot's game, for render() and info. */
static PyObject *py_vec_board(PyObject *self, PyObject *args) {
    PyObject *cap;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "On", &cap, &i)) return NULL;
    VecEnv *e = ve_get(cap);
    if (e == NULL) return NULL;
    if (i < 0 || i >= e->n_envs) {
        PyErr_SetString(PyExc_IndexError, "vec_board: no such slot");
        return NULL;
    }
    const Slot *s = &e->slots[i];
    const Game *g = s->g;
    PyObject *stacks = stacks_tuple(g);
    if (stacks == NULL) return NULL;
    int shown[7] = {0}, kept[7] = {0};
    if (s->phase != VE_DONE)
        for (int f = 1; f <= 6; f++) {
            shown[f] = count_of(s->t.shown, f);
            kept[f] = s->kept[f];
        }
    return Py_BuildValue("(iKKNii(iiiiii)(iiiiii)iiiiL)", g->turn,
                         (unsigned long long)g->grill, (unsigned long long)g->flipped, stacks,
                         s->phase, s->agent, shown[1], shown[2], shown[3], shown[4], shown[5],
                         shown[6], kept[1], kept[2], kept[3], kept[4], kept[5], kept[6],
                         s->t.total, s->t.left, g->over, game_capped(g), s->episode);
}
