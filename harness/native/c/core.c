/* harness._native_core: the native engine tier, one unit of compilation.
 *
 * Plays whole batches of Pickomino games in C, bit-identical to the Python engine
 * (harness/game/engine.py, the reference): the same rules (R1-R11 and every RULES.md
 * variant), the same dice (CPython's MT19937, seeded and drawn exactly as
 * random.Random(seed).getrandbits does it for harness/game/dice.py), the same seeds
 * (harness.game.dice.derive_seed is BLAKE2b-64 of the parts' str() joined by 0x1f) and
 * the same decisions of the built-in strategies (harness/strategies/, transcribed
 * decision for decision, float operations in the same order).
 *
 * Nothing here is a new rule: every function names the Python it mirrors. When the
 * two ever disagree the Python engine is right and tests/native/test_native.py fails.
 *
 * This file is the table of contents: the parts below are #included in this order, each
 * a *.inc.c file of this folder (never compiled on its own; setup.py lists them as the
 * extension's dependencies, and harness.tourney.plan.engine_digest hashes every *.c
 * here, so a changed part rebuilds the extension and changes every chunk key).
 *
 * Entry points (the callers: harness/native/batch.py, and harness/env/vector.py for vec_*):
 *   play_deals(...)    the chunk path: deal seeds derived here, every deal played in
 *                      every seat order of the seating design
 *   play_games(...)    explicit rows: seat order, dice seed and game seed per game
 *   chunk_stats(...)   the standings counters of a chunk's rows
 *   vec_new, vec_reset, vec_step, vec_board, vec_slot_bytes  the vector environment
 *                      (vecenv.inc.c; harness/env/vector.py is its caller)
 *   derive_seed(b)     BLAKE2b-64 of bytes, as an int (for tests)
 *   mt_words(seed, n)  the first n 32-bit outputs of random.Random(seed) (for tests)
 *   dp_states(), dp_solve(stop, bust), dp_cache_stats(), dp_lanes(n)  optimal's turn
 *                      programme (for tests)
 *   account_stats(), dp_cache_size(sets)  the luck account's cache and checks (tests,
 *                      benchmarks); play_deals and play_games keep the account (account.inc.c)
 *                      when given its columns
 *   set_portable(flag) the SIMD-free seeding, hashing, turn programme and network (tests)
 *   wp_install(players, model bytes | None, neumaier)  win-optimal's evaluator of a
 *                      player count (harness/native/evaluators.py installs it);
 *                      wp_chances(...), wp_plan_stats()  its chances, its plan cache (tests)
 *
 * Speed, where it comes from: seeds are hashed four at a time and generators seeded
 * sixteen at a time (vector lanes), the twist is done word by word as words are
 * drawn, a turn's first four rolls are decoded at once, rolls and greedy picks are
 * table lookups; optimal's turn programmes are solved lazily, a template's states two or
 * four at a time (vector lanes). Built with -ffp-contract=off (setup.py): no fused
 * multiply-add, so every float operation rounds as Python's does.
 */
#ifndef HARNESS_NO_PYTHON
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#else /* the engine alone, for a C benchmark or debugger: no bindings */
#include <stddef.h>
typedef ptrdiff_t Py_ssize_t;
#define PyMem_Calloc calloc
#define PyMem_Free free
#endif

#include <limits.h> /* LLONG_MAX: the last episode number (vecenv.inc.c) */
#include <math.h>
#include <stdint.h>
#include <stdio.h> /* snprintf: why a model is refused (winprob.inc.c) */
#if defined(__linux__)
#include <sys/mman.h> /* madvise: huge pages for the solved turns (turn_dp.inc.c) */
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h> /* a thread's solved turns freed when it ends (turn_dp.inc.c) */
#define DP_THREAD_KEY 1
#endif
#include <stdlib.h>
#include <string.h>

#include "layout.inc.c"     /* GENERATED: the constants shared with the Python tables */

#ifndef HARNESS_SOURCES_DIGEST /* setup.py passes harness.native.c_sources.sources_digest() */
#define HARNESS_SOURCES_DIGEST ""
#endif

static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }
static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int highest_bit(uint64_t x) { return 63 - __builtin_clzll(x); }
static inline int lowest_bit(uint64_t x) { return __builtin_ctzll(x); }

#include "rng.inc.c"        /* MT19937: the dice's generator, seeded in lanes */
#include "blake2.inc.c"     /* BLAKE2b-64: derive_seed, four messages at a time */
#include "dice.inc.c"       /* a turn's dice block, its rolls; duplicate dice */
#include "turn_dp.inc.c"    /* optimal's turn programme (with turn_rows, turn_lanes) */
#include "game.inc.c"       /* the board: seats' kinds, Game, its start and end */
#include "turn.inc.c"       /* the turn as a state: R4-R10, every rule check of a turn */
#include "optimal.inc.c"    /* the native optimal strategy */
#include "winprob.inc.c"    /* the win-probability evaluator, win-optimal's plan */
#include "seats.inc.c"      /* Python seats: the host's callbacks */
#include "strategies.inc.c" /* the built-ins' decisions */
#include "account.inc.c"    /* the luck account */
#include "engine.inc.c"     /* a seat's turn, a game: the turn driven by strategies */
#include "batch.inc.c"      /* rows of games: play_row, the chunk path's lanes */

#ifndef HARNESS_NO_PYTHON
#include "bindings.inc.c"   /* play_deals, play_games, chunk_stats */
#include "probes.inc.c"     /* the bindings for tests and benchmarks */
#include "vecenv.inc.c"     /* the vector environment (harness/env/vector.py) */

static PyMethodDef methods[] = {
    {"play_deals", py_play_deals, METH_VARARGS, "Play a range of deals in every seat order."},
    {"play_games", py_play_games, METH_VARARGS, "Play the games described by rows."},
    {"chunk_stats", py_chunk_stats, METH_VARARGS, "The standings counters of a chunk's rows."},
    {"derive_seed", py_derive_seed, METH_O, "BLAKE2b-64 of bytes, big-endian (derive_seed)."},
    {"mt_words", py_mt_words, METH_VARARGS, "First words of random.Random(seed)."},
    {"set_portable", py_set_portable, METH_O, "Portable SIMD-free paths on (True) or off."},
    {"dp_states", py_dp_states, METH_NOARGS, "The turn programme's states."},
    {"dp_solve", py_dp_solve, METH_VARARGS, "solve_arrays of a payoff: (values, stops, rolls)."},
    {"dp_lanes", py_dp_lanes, METH_O, "The turn programme's lanes, at most n: those in use."},
    {"dp_cache_stats", py_dp_cache_stats, METH_NOARGS, "(hits, misses) of the solved turns."},
    {"account_stats", py_account_stats, METH_NOARGS, "The luck account's cache and checks."},
    {"dp_cache_size", py_dp_cache_size, METH_O, "Empty the solved turns; set their sets."},
    {"wp_install", py_wp_install, METH_VARARGS, "Install the evaluator of a player count."},
    {"wp_chances", py_wp_chances, METH_VARARGS, "The evaluator's chances of a position."},
    {"wp_plan_stats", py_wp_plan_stats, METH_NOARGS, "(hits, misses) of win-optimal's plans."},
    {"vec_new", py_vec_new, METH_VARARGS, "A vector environment's slots, in a capsule."},
    {"vec_reset", py_vec_reset, METH_VARARGS, "Every slot to its episode's first question."},
    {"vec_step", py_vec_step, METH_VARARGS, "One answer per slot; on to the next question."},
    {"vec_board", py_vec_board, METH_VARARGS, "One slot's board (render, info)."},
    {"vec_slot_bytes", py_vec_slot_bytes, METH_VARARGS, "Bytes a slot holds once playing."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "harness._native_core",
                                    "The native engine tier (see harness.native).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__native_core(void) {
    mt_init_base();
    init_seed_lanes();
    init_derive4();
    dp_use_lanes(4);
    wp_use_lanes(4);
    init_block_limit();
    init_roll_tables();
    if (!DP_READY && dp_init() < 0) return PyErr_NoMemory();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "DETAIL_BYTES", DETAIL_BYTES) < 0 ||
        PyModule_AddIntConstant(m, "KINDS", S_KINDS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_ORDERS", MAX_ORDERS) < 0 ||
        PyModule_AddIntConstant(m, "PYTHON_SEAT", S_PYTHON) < 0 ||
        PyModule_AddStringConstant(m, "SOURCES_DIGEST", HARNESS_SOURCES_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
#endif /* HARNESS_NO_PYTHON */

