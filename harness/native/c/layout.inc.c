/* The constants the C engine shares with Python: GENERATED from the Python tables by
 * tests/native/test_c_layout.py (`python tests/native/test_c_layout.py` writes this
 * file again). Do not edit: change the Python table, then write this file again;
 * the test fails while the two differ. A part of core.c, #included first. */

/* ==== the rules (harness/game/rules.py) ==== */
#define MAXP 7 /* MAX_PLAYERS (R3) */
#define NTILES 16 /* TILES (R1) */
#define LOWEST_TILE 21
#define HIGHEST_TILE 36
#define NDICE 8 /* DICE (R2) */
#define WORM 6 /* the worm's face (R2) */
#define ALL_FACES 0x7Eu /* FACES as a mask: bit f for face f */
#define MAX_TOTAL 40 /* DICE * the most points a face counts */
static const int FACE_POINTS[7] = {0, 1, 2, 3, 4, 5, 5};
/* WORMS[tile]: worms(tile), 0 off the tiles (R1) */
static const int WORMS[MAX_TOTAL + 1] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 0, 0, 0, 0};
/* the bust_flip variant as a flip mode (harness/native/columns.py FLIP_MODES) */
enum { FLIP_NONE, FLIP_HIGHEST, FLIP_LOWEST, FLIP_MODES };
/* the evaluator slots: one per preset (harness/game/rules.py PRESETS), which model judges its games */
#define WP_SLOTS 4

/* ==== the native kinds (harness/native/kinds.py KINDS) and the parameters each
 * reads, in its order, with the bounds its built-in declares (Strategy.bounds) */
enum { S_GREEDY = 0, S_THRESHOLD = 1, S_WORM_FIRST = 2, S_SIMPLE = 3, S_ENV_HEURISTIC = 4,
    S_TACTICIAN = 5, S_RANDOM = 6, S_OPTIMAL = 7, S_WIN_OPTIMAL = 8, S_KINDS = 9 };
#define MAX_PARAMS 3
typedef struct {
    double low, high;
    int low_open; /* low itself excluded */
} Bound;
static const struct {
    int count;
    const char *names[MAX_PARAMS];
    Bound p[MAX_PARAMS];
} KIND_BOUNDS[S_KINDS] = {
    [S_GREEDY] = {0, {0}, {{0}}},
    [S_THRESHOLD] = {1, {"target"}, {{21.0, 40.0, 0}}},
    [S_WORM_FIRST] = {2, {"target", "min_dice"}, {{0.0, 40.0, 0}, {0.0, 8.0, 0}}},
    [S_SIMPLE] = {0, {0}, {{0}}},
    [S_ENV_HEURISTIC] = {0, {0}, {{0}}},
    [S_TACTICIAN] = {2, {"caution", "worm_by"}, {{0.0, 100.0, 1}, {0.0, 8.0, 0}}},
    [S_RANDOM] = {1, {"p_stop"}, {{0.0, 1.0, 0}}},
    [S_OPTIMAL] = {3, {"endgame", "spread", "flip"}, {{0.0, 16.0, 0}, {0.0, 100.0, 1}, {0.0, 100.0, 0}}},
    [S_WIN_OPTIMAL] = {0, {0}, {{0}}},
};

/* ==== the columns of a batch (harness/native/columns.py GAME_ORDER, SEAT_ORDER,
 * ACCOUNT_ORDER: the order the C code takes their buffers in; item sizes from
 * harness/runfolder/schema.py) ==== */
/* a game's */
#define GCOL_COUNT 9
enum { GCOL_DEAL, GCOL_SEATING, GCOL_SEED, GCOL_GAME_SEED, GCOL_TURNS, GCOL_STATUS,
    GCOL_WINNER, GCOL_ERROR_SEAT, GCOL_ERROR_KIND };
#define GCOL_DEAL_SIZE 4
#define GCOL_SEATING_SIZE 1
#define GCOL_SEED_SIZE 8
#define GCOL_GAME_SEED_SIZE 8
#define GCOL_TURNS_SIZE 2
#define GCOL_STATUS_SIZE 1
#define GCOL_WINNER_SIZE 1
#define GCOL_ERROR_SEAT_SIZE 1
#define GCOL_ERROR_KIND_SIZE 1
static const char *const GCOL_NAMES[] = {"deal", "seating", "seed", "game_seed", "turns",
    "status", "winner", "error_seat", "error_kind"};
static const int GCOL_SIZES[] = {4, 1, 8, 8, 2, 1, 1, 1, 1};
/* a seat's */
#define SCOL_COUNT 5
enum { SCOL_WORMS, SCOL_RANK, SCOL_BUSTS, SCOL_STEALS, SCOL_STOLEN };
#define SCOL_WORMS_SIZE 1
#define SCOL_RANK_SIZE 1
#define SCOL_BUSTS_SIZE 2
#define SCOL_STEALS_SIZE 2
#define SCOL_STOLEN_SIZE 2
static const char *const SCOL_NAMES[] = {"worms", "rank", "busts", "steals", "stolen"};
static const int SCOL_SIZES[] = {1, 1, 2, 2, 2};
/* a seat's account */
#define ACC_COUNT 12
enum { ACC_PAR, ACC_LUCK, ACC_WLUCK, ACC_REGRET_PICK, ACC_REGRET_STOP, ACC_REGRET_CLAIM,
    ACC_WINLUCK, ACC_WINVEC, ACC_ROLLS, ACC_PICKS, ACC_STOPS, ACC_CLAIMS };
#define ACC_PAR_SIZE 8
#define ACC_LUCK_SIZE 8
#define ACC_WLUCK_SIZE 8
#define ACC_REGRET_PICK_SIZE 8
#define ACC_REGRET_STOP_SIZE 8
#define ACC_REGRET_CLAIM_SIZE 8
#define ACC_WINLUCK_SIZE 8
#define ACC_WINVEC_SIZE 8
#define ACC_ROLLS_SIZE 2
#define ACC_PICKS_SIZE 2
#define ACC_STOPS_SIZE 2
#define ACC_CLAIMS_SIZE 2
static const char *const ACC_NAMES[] = {"par", "luck", "wluck", "regret_pick", "regret_stop",
    "regret_claim", "winluck", "winvec", "rolls", "picks", "stops", "claims"};
static const int ACC_SIZES[] = {8, 8, 8, 8, 8, 8, 8, 8, 2, 2, 2, 2};
#define ACC_SUMS 8 /* float64 sums, then the int16 counts */
#define ACC_COUNTS 4
/* the status column's codes and the error kinds (schema.STATUSES, ERROR_KINDS) */
enum { STATUS_OVER = 0, STATUS_TURN_CAP = 1, STATUS_FORFEIT = 2 };
#define ERROR_KINDS 4
#define NO_KIND (-1)
#define MAX_ORDERS 127 /* a design's seat orders (an int8 column) */
/* chunk_stats' counters of an entrant (columns.STAT_FIELDS), then shared[0..players] */
enum { STAT_GAMES, STAT_WINS, STAT_WORMS, STAT_RANK, STAT_FORFEITS, STAT_CAPPED, STAT_FIELDS };
/* a game's final board (columns.DETAIL_*) */
#define DETAIL_BYTES 128
#define DETAIL_HEAD 4
#define DETAIL_SEAT 17
/* ==== seeds, the account, optimal's turn programme ==== */
#define SEED_MASK 0x7fffffffffffffffULL /* harness.tourney.plan.SEED_MASK: int64 */
#define ACC_SPREAD 2.5 /* harness.analysis.account.WIN_SPREAD */
#define DP_EPS 1e-12 /* harness.analysis.turn.EPS */
/* the win-probability evaluator's inputs (harness/winprob/features.py) */
#define PER_SEAT_FEATURES 7 /* PER_SEAT: integers per seat */
#define GRILL_FEATURES 18 /* the grill's: bits, count, worms */

/* ==== the environments (harness/env/encoding.py, game.py, single.py) ==== */
#define VE_OBS 205 /* OBS_SIZE */
#define VE_ACTIONS 24 /* ACTIONS */
#define VE_STOP 6 /* STOP */
#define VE_ROLL 7 /* ROLL_ON */
#define VE_CLAIM0 8 /* FIRST_CLAIM: claim tile LOWEST_TILE */
enum { PHASE_PICK = 0, PHASE_STOP = 1, PHASE_CLAIM = 2 };
/* OFFSETS: where each field of the observation starts */
#define O_PHASE 0
#define O_ROLL 3
#define O_KEPT 9
#define O_TOTAL 15
#define O_DICE_LEFT 16
#define O_HAS_WORM 17
#define O_CLAIMS 18
#define O_GRILL 34
#define O_FLIPPED 50
#define O_SEATS 66
#define O_RULES 199
#define O_SEAT_BLOCK 19 /* SEAT_BLOCK: a seat's floats in O_SEATS */
#define VE_SKIPS 100 /* harness.env.single.MAX_SKIPPED */
enum { R_MARGIN, R_WIN, R_SWING }; /* harness.env.game.REWARDS */
