/* The engine: a seat's turn and a game played to its end (harness/game/engine.py, Game).
 * A part of core.c: #included there in its order (one unit of compilation, so everything
 * stays static); never compiled on its own.
 *
 * play_turn drives the turn's state (turn.inc.c) with the seat's decisions: a built-in's
 * (strategies.inc.c) or a Python seat's host's (seats.inc.c); the luck account
 * (account.inc.c) hears each step. */

/* ==== the engine (harness/game/engine.py, Game) ========================================== */
/* A stop (R7): the seat's claim among the legal ones (asked only when there are two or
 * more), taken. 1: the game ends (it is over, or a Python seat forfeited). */
static int play_claim(Game *g, const Turn *t) {
    Claim choices[NTILES + 1];
    int nc = legal_claims(g, t->seat, t->total, choices);
    Claim c = nc == 1 ? choices[0] : strat_claim(g, t->seat, t->total, choices, nc);
    if (c.tile < 0) return 1; /* a Python seat's forfeit: nothing of the turn counts */
    if (ACCOUNTED(g->acc)) acc_claim(g, t->total, c.tile, c.victim, nc);
    return turn_take(g, t, c);
}

/* Game.play_turn (R4-R9); returns 1 when the turn ended the game (R10), a Python seat
 * forfeited or the batch failed (g->failed). */
static int play_turn(Game *g) {
    Turn t;
    TurnDice d;
    if (turn_begin(g, &t, &d) < 0) return 1;
    int seat = t.seat;
    int kind = g->strat[seat]->kind; /* optimal's and win-optimal's plan: the first roll */
    if ((kind == S_OPTIMAL && opt_plan(g, seat) < 0) ||
        (kind == S_WIN_OPTIMAL && win_plan(g, seat) < 0)) {
        g->failed = 1;
        return 1;
    }
    /* the account after optimal's plan (the same programme, when it is the worm swing's:
     * completed, not solved again) and before anything a Python seat does (a forfeit) */
    Account *acc = g->acc; /* the luck account (account.inc.c), NULL: none */
    if (ACCOUNTED(acc) && acc_turn(g, seat) < 0) {
        g->failed = 1;
        return 1;
    }
    if (g->strat[seat]->kind == S_PYTHON && host_turn(g, seat) < 0) return 1;
    for (;;) {
        if (!turn_roll(&t, &d)) { /* R5: every face shown is already set aside */
            if (ACCOUNTED(acc)) acc_bust(g, 1);
            return turn_bust(g, &t);
        }
        if (ACCOUNTED(acc)) acc_fetch(g, &t);
        int face = strat_pick(g, seat, &t);
        if (face <= 0) return 1; /* a Python seat's forfeit (or its host failed) */
        if (ACCOUNTED(acc)) acc_kept(g, &t, face);
        int next = turn_keep(g, &t, face);
        if (next == TURN_ROLL) continue;
        if (next == TURN_BUST) { /* R8 */
            if (ACCOUNTED(acc)) acc_bust(g, 0);
            return turn_bust(g, &t);
        }
        if (next == TURN_MAY_STOP) { /* R6 */
            int stop = strat_stop(g, seat, &t);
            if (stop < 0) return 1; /* a Python seat's forfeit */
            if (!stop) continue;
        }
        return play_claim(g, &t); /* R7 */
    }
}

/* Game.play: turns until the game is over, a seat forfeits or the turn cap (the host of
 * Python seats told of the game first). */
static void play_game(Game *g) {
    if (g->host[H_GAME] == NULL || host_game(g) == 0)
        for (int k = 0; k < g->max_turns; k++)
            if (play_turn(g)) break;
}
