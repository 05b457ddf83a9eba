/* explore.c: DPIA_EXPLORE, the pass behind `dpia explore` (docs/explore.md).
 *
 * From a high-level kernel (docs/language.md section 21) to a fast one:
 * the rewrite rules (dpia/rules.h) composed into macro steps as Lift and
 * ELEVATE compose them ("one work-group per block, one work-item per
 * element", "vectorise by 4", ...), each step a fixed sequence of rules,
 * each rule applied at the first position in preorder where it applies
 * (rewrite_sites), its parameter a value of the step's slot drawn from
 * powers of two that fit the sizes.  A strategy is a sequence of steps
 * (a template, below) and the slots' values; after its steps every
 * strategy ends with the same finish: what is left is fused and made
 * sequential.  Candidates are checked as `dpia check` checks (several at
 * once, --jobs), timed one at a time on the device as `dpia run` times
 * them (run.c, through driver_process), and the fastest are checked
 * against the reference interpreter until one agrees.  A caller may run
 * the candidates elsewhere instead (DpiaExplore.evaluate: Python's
 * dpia.explore on a Ray cluster): the search is the same, each batch that
 * checks handed to it at once, and the checks of the fastest one at a
 * time.
 *
 * The search: every candidate when the space has at most EXHAUSTIVE_MAX;
 * else SAMPLE of them drawn by the seed, then local search around the
 * fastest (each slot one value up or down), then more of the seed's
 * draw, until the budget is spent or the space is. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "driver_int.h"

/* ---- the macro steps ---- */

/* X(ID, "name", "what it varies") : the slots a step's parameter comes from */
#define EXPLORE_SLOTS(X)                                                         \
  X(NONE, "", "")                                                                \
  X(WIDTH, "W", "the vector width")                                              \
  X(CHUNK, "C", "the chunk size")                                                \
  X(GROUP, "L", "the work-group size")                                           \
  X(GROUP_ANY, "L", "the work-group size, which some size is not a multiple of") \
  X(CHUNK_ANY, "C", "the chunk size, which some size is not a multiple of")      \
  X(TILE_ROWS, "RT", "the rows of a register tile")                              \
  X(TILE_COLS, "CT", "the columns of a register tile, the lanes of its vectors") \
  X(ACCUMULATORS, "A", "the accumulators a sum is folded into, side by side")    \
  X(ROW_SUMS, "R", "the rows a work-item sums side by side")

typedef enum Slot {
#define X(id, name, doc) SLOT_##id,
  EXPLORE_SLOTS(X)
#undef X
  SLOT_COUNT
} Slot;

static const char *const slot_names[SLOT_COUNT] = {
#define X(id, name, doc) name,
    EXPLORE_SLOTS(X)
#undef X
};

/* how a move finds where its rule goes */
typedef enum How {
  HOW_END,      /* the end of a step's moves */
  HOW_ONCE,     /* the first position where it applies; the step fails without one */
  HOW_OPTIONAL, /* the first position where it applies, if any */
  HOW_ALL,      /* again and again while it applies somewhere */
  HOW_ROOT,     /* the whole body, which it must fit */
  HOW_CUT,      /* no rule: the root's argument becomes the body (below) */
} How;

typedef struct Move {
  How how;
  RuleId rule;
  Slot slot; /* the parameter; SLOT_NONE: fixed, when above 0, else the rule's default (or none) */
  long long fixed;
} Move;

enum { MAX_MOVES = 8 };

/* X(ID, "name", SLOT, "what it does") */
#define EXPLORE_STEPS(X)                                                                                       \
  X(PARTIAL_SUMS, "partialSums", CHUNK,                                                                       \
    "a whole reduction: a pipeline of its partial sums of chunks of C and their sum; the map before it "     \
    "moves into the chunks and fuses with their reductions")                                                       \
  X(VECTORISE, "vectorise", WIDTH, "the first map on vectors of W lanes")                                     \
  X(VECTORISE_SUMS, "vectoriseSums", WIDTH,                                                                   \
    "the first map on vectors of W lanes, and the sum of its result as W sums side by side, one a lane")      \
  X(VECTORISE_LOOP, "vectoriseLoop", WIDTH,                                                                   \
    "the first map whose function is a loop over an array the elements share, on vectors of W lanes: the "    \
    "loop's accumulator a vector, its scalars broadcast")                                                      \
  X(ROWS, "rows", NONE,                                                                                       \
    "one work-item per row of the first map (dimension 1): the next step lowers its rows' map")             \
  X(GLOBAL, "global", NONE, "one work-item per element of the first map")                                     \
  X(WORKGROUP, "workgroup", GROUP, "one work-group per block of L elements, one work-item per element")       \
  X(CHUNK, "chunk", CHUNK, "one work-item per chunk of C elements, sequential in it")                         \
  X(LOCAL_SUMS, "localSums", CHUNK,                                                                           \
    "one work-group per element, its reduction's partial sums of chunks of C by the work-items in local "      \
    "memory")                                                                                                 \
  X(WORKGROUP_ANY, "workgroupAny", GROUP_ANY,                                                                 \
    "workgroup for a length L need not divide: the last block filled up, its results dropped")               \
  X(CHUNK_ANY, "chunkAny", CHUNK_ANY,                                                                         \
    "chunk for a length C need not divide: the last chunk filled up, its results dropped")                    \
  X(PARTIAL_SUMS_ANY, "partialSumsAny", CHUNK_ANY,                                                            \
    "partialSums for a length C need not divide: tile t sums the elements from t*C that exist, the map "     \
    "before it fused into each tile's loop")                                                                   \
  X(ACCUMULATORS, "accumulators", ACCUMULATORS,                                                              \
    "the first sum (after vectoriseSums: the sum of the W-lane vectors) folded into A accumulators side by "   \
    "side, each step A elements, the accumulators added together at the end")                                 \
  X(ROW_SUMS, "rowSums", ROW_SUMS,                                                                            \
    "R adjacent elements of the first map whose element is a sum (after vectoriseSums: a row's sum of W-lane " \
    "vectors) in one tile, their R sums folded in one loop, each step one element of the array beside the "   \
    "rows and one of each row, R accumulators")                                                                 \
  X(REGISTER_TILE, "registerTile", TILE_ROWS,                                                                 \
    "each work-item an RT x CT tile of the first map of maps whose elements reduce a row and a column: RT "    \
    "rows, CT columns one vector of CT lanes, the RT accumulators in registers; the tiles' rows in "          \
    "dimension 1, the next step lowers the map of their columns")

typedef enum StepId {
#define X(id, name, slot, doc) STEP_##id,
  EXPLORE_STEPS(X)
#undef X
  STEP_COUNT
} StepId;

typedef struct StepInfo {
  const char *name;
  Slot slot;
  const char *doc;
} StepInfo;

static const StepInfo step_info[STEP_COUNT] = {
#define X(id, name, slot, doc) {name, SLOT_##slot, doc},
    EXPLORE_STEPS(X)
#undef X
};

/* the rules of each step, in order (docs/explore.md lists them) */
static const Move step_moves[STEP_COUNT][MAX_MOVES] = {
    [STEP_PARTIAL_SUMS] = {{HOW_ROOT, RULE_PARTIAL_REDUCE, SLOT_CHUNK, 0},
                           {HOW_CUT, RULE_COUNT, SLOT_NONE, 0},
                           {HOW_OPTIONAL, RULE_SPLIT_MAP, SLOT_NONE, 0},
                           {HOW_OPTIONAL, RULE_FUSE_MAPS, SLOT_NONE, 0}},
    [STEP_VECTORISE] = {{HOW_ONCE, RULE_VECTORISE, SLOT_WIDTH, 0}},
    [STEP_VECTORISE_SUMS] = {{HOW_ONCE, RULE_VECTORISE, SLOT_WIDTH, 0}, {HOW_ONCE, RULE_REDUCE_LANES, SLOT_WIDTH, 0}},
    [STEP_VECTORISE_LOOP] = {{HOW_ONCE, RULE_VECTORISE_LOOP, SLOT_WIDTH, 0}},
    [STEP_ACCUMULATORS] = {{HOW_ONCE, RULE_ACCUMULATORS, SLOT_ACCUMULATORS, 0}},
    [STEP_ROW_SUMS] = {{HOW_ONCE, RULE_ROW_TILE, SLOT_ROW_SUMS, 0}},
    [STEP_ROWS] = {{HOW_ONCE, RULE_LOWER_GLOBAL, SLOT_NONE, 1}},
    [STEP_GLOBAL] = {{HOW_ONCE, RULE_LOWER_GLOBAL, SLOT_NONE, 0}},
    [STEP_WORKGROUP] = {{HOW_ONCE, RULE_SPLIT_JOIN, SLOT_GROUP, 0},
                        {HOW_ONCE, RULE_LOWER_WORKGROUP, SLOT_NONE, 0},
                        {HOW_ONCE, RULE_LOWER_LOCAL, SLOT_NONE, 0}},
    [STEP_CHUNK] = {{HOW_ONCE, RULE_SPLIT_JOIN, SLOT_CHUNK, 0},
                    {HOW_ONCE, RULE_LOWER_GLOBAL, SLOT_NONE, 0},
                    {HOW_ONCE, RULE_LOWER_SEQ, SLOT_NONE, 0}},
    [STEP_LOCAL_SUMS] = {{HOW_ONCE, RULE_LOWER_WORKGROUP, SLOT_NONE, 0},
                         {HOW_ONCE, RULE_PARTIAL_REDUCE, SLOT_CHUNK, 0},
                         {HOW_OPTIONAL, RULE_SPLIT_MAP, SLOT_NONE, 0},
                         {HOW_OPTIONAL, RULE_FUSE_MAPS, SLOT_NONE, 0},
                         {HOW_ONCE, RULE_LOWER_LOCAL, SLOT_NONE, 0},
                         {HOW_ONCE, RULE_TO_LOCAL, SLOT_NONE, 0}},
    [STEP_WORKGROUP_ANY] = {{HOW_ONCE, RULE_PAD_SPLIT_JOIN, SLOT_GROUP_ANY, 0},
                            {HOW_ONCE, RULE_LOWER_WORKGROUP, SLOT_NONE, 0},
                            {HOW_ONCE, RULE_LOWER_LOCAL, SLOT_NONE, 0}},
    [STEP_CHUNK_ANY] = {{HOW_ONCE, RULE_PAD_SPLIT_JOIN, SLOT_CHUNK_ANY, 0},
                        {HOW_ONCE, RULE_LOWER_GLOBAL, SLOT_NONE, 0},
                        {HOW_ONCE, RULE_LOWER_SEQ, SLOT_NONE, 0}},
    [STEP_PARTIAL_SUMS_ANY] = {{HOW_ROOT, RULE_PARTIAL_REDUCE_ANY, SLOT_CHUNK_ANY, 0}, {HOW_CUT, RULE_COUNT, SLOT_NONE, 0}},
    [STEP_REGISTER_TILE] = {{HOW_ONCE, RULE_REGISTER_TILE, SLOT_TILE_ROWS, 0},
                            {HOW_ONCE, RULE_VECTORISE_TILE, SLOT_TILE_COLS, 0},
                            {HOW_ONCE, RULE_LOWER_GLOBAL, SLOT_NONE, 1}},
};

/* after every strategy's steps: what is left fused, then sequential.
 * The steps leave fuseReduceMap to the finish: at the first position it
 * would fold a reduction's map of chunk sums into its final sum, which
 * then is no longer partial (the chunks' own map is fused below it) */
static const Move finish[] = {{HOW_ALL, RULE_FUSE_MAPS, SLOT_NONE, 0},
                              {HOW_ALL, RULE_FUSE_REDUCE_MAP, SLOT_NONE, 0},
                              {HOW_ALL, RULE_LOWER_REDUCE_SEQ, SLOT_NONE, 0},
                              {HOW_ALL, RULE_LOWER_SEQ, SLOT_NONE, 0},
                              {HOW_END, RULE_COUNT, SLOT_NONE, 0}};

/* the strategies: sequences of steps (STEP_COUNT ends one).  Those whose
 * first step cuts the stage boundary (partialSums, partialSumsAny) are
 * the strategies of a whole reduction (a body that is a reduce), the
 * others of every other kernel.  After partialSumsAny the tiles' map has
 * ceil(N/C) elements, which a power of two L seldom divides: it is
 * lowered by global or workgroupAny. */
enum { MAX_TEMPLATE = 4 };
static const StepId templates[][MAX_TEMPLATE] = {
    {STEP_GLOBAL, STEP_COUNT},
    {STEP_VECTORISE, STEP_GLOBAL, STEP_COUNT},
    {STEP_WORKGROUP, STEP_COUNT},
    {STEP_VECTORISE, STEP_WORKGROUP, STEP_COUNT},
    {STEP_CHUNK, STEP_COUNT},
    {STEP_VECTORISE, STEP_CHUNK, STEP_COUNT},
    {STEP_LOCAL_SUMS, STEP_COUNT},
    {STEP_PARTIAL_SUMS, STEP_GLOBAL, STEP_COUNT},
    {STEP_PARTIAL_SUMS, STEP_WORKGROUP, STEP_COUNT},
    {STEP_WORKGROUP_ANY, STEP_COUNT},
    {STEP_CHUNK_ANY, STEP_COUNT},
    {STEP_PARTIAL_SUMS_ANY, STEP_GLOBAL, STEP_COUNT},
    {STEP_PARTIAL_SUMS_ANY, STEP_WORKGROUP_ANY, STEP_COUNT},
    {STEP_VECTORISE_SUMS, STEP_GLOBAL, STEP_COUNT},
    {STEP_VECTORISE_SUMS, STEP_WORKGROUP, STEP_COUNT},
    {STEP_ROWS, STEP_GLOBAL, STEP_COUNT},
    {STEP_ROWS, STEP_CHUNK, STEP_COUNT},
    {STEP_VECTORISE_LOOP, STEP_GLOBAL, STEP_COUNT},
    {STEP_VECTORISE_LOOP, STEP_WORKGROUP, STEP_COUNT},
    {STEP_REGISTER_TILE, STEP_GLOBAL, STEP_COUNT},
    {STEP_REGISTER_TILE, STEP_WORKGROUP, STEP_COUNT},
    {STEP_VECTORISE_SUMS, STEP_ACCUMULATORS, STEP_GLOBAL, STEP_COUNT},
    {STEP_VECTORISE_SUMS, STEP_ACCUMULATORS, STEP_WORKGROUP, STEP_COUNT},
    {STEP_VECTORISE_SUMS, STEP_ROW_SUMS, STEP_GLOBAL, STEP_COUNT},
    {STEP_VECTORISE_SUMS, STEP_ROW_SUMS, STEP_WORKGROUP, STEP_COUNT},
};

/* Steps whose strategies are in the space only where their first rule
 * applies somewhere in the kernel's body: vectoriseLoop fits few kernels
 * (a map whose function is a loop over a shared array), and left out of
 * the others' spaces it keeps those spaces, and the seed's draw from
 * them, as they were before the step was added; accumulators, where a
 * sum is left after the steps before it, and rowSums, where a map whose
 * element is such a sum is (template_applies) */
static const bool step_only_where_applies[STEP_COUNT] = {
    [STEP_VECTORISE_LOOP] = true, [STEP_REGISTER_TILE] = true, [STEP_ACCUMULATORS] = true,
    [STEP_ROW_SUMS] = true};

/* a step's second slot (SLOT_NONE: it has one at most): a register
 * tile's columns, beside its rows */
static const Slot step_slot2[STEP_COUNT] = {[STEP_REGISTER_TILE] = SLOT_TILE_COLS};
enum { NTEMPLATES = (int)DPIA_COUNTOF(templates) };

/* the values a slot takes: powers of two in [lo, hi] that divide one of
 * the sizes given (WIDTH: the vector widths of at least 4); for the
 * *_ANY slots, those that some size given is not a multiple of, so that
 * the any-length steps add nothing when every size divides (the plain
 * steps do the same without the padding) */
static const long long slot_lo[SLOT_COUNT] = {0, 4, 16, 32, 32, 16, 2, 4, 2, 2};
static const long long slot_hi[SLOT_COUNT] = {0, 16, 8192, 256, 256, 8192, 8, 16, 4, 8};
static const bool slot_any[SLOT_COUNT] = {[SLOT_GROUP_ANY] = true, [SLOT_CHUNK_ANY] = true};

enum {
  EXHAUSTIVE_MAX = 64, /* a space this small is searched whole */
  SAMPLE = 24,         /* else this many drawn first */
  MAX_VALUES = 16,
  CHECK_TRIES = 3, /* the fastest checked against the reference, until one agrees */
  DEFAULT_REPEAT = 5,
  BATCH_PER_JOB = 4, /* candidates checked per --jobs before they are timed */
  PROBE_CUT = 3,     /* a probe this many times the best's time is not timed again (time_one) */
  /* the re-timing at the end (docs/explore.md "The re-timing"): the
   * RETIME fastest of the search run again in RETIME_ROUNDS rounds, in
   * turns, each round begun by another */
  RETIME = 4,
  RETIME_ROUNDS = 3,
  RETIME_MAX_FACTOR = 10,
};
#define RETIME_LAUNCH_MS 200.0
#define DEFAULT_BUDGET_S 60.0

/* ---- candidates ---- */

#define CAND_STATES(X)                                                                \
  X(PENDING, "pending", "not tried")                                                 \
  X(NOT_DERIVED, "not_derived", "a step of its strategy finds no position")          \
  X(REJECTED, "rejected", "the derived program does not check")                      \
  X(PRECONDITION, "precondition", "a precondition fails at the sizes given")         \
  X(FAILED, "failed", "the run failed")                                              \
  X(NOT_TIMED, "not_timed", "every launch left out at the sizes: nothing ran to time") \
  X(TIMED, "timed", "run and timed") /* last: the report counts the states below it */

typedef enum CandState {
#define X(id, name, doc) CAND_##id,
  CAND_STATES(X)
#undef X
} CandState;

static const char *const cand_state_names[] = {
#define X(id, name, doc) name,
    CAND_STATES(X)
#undef X
};

/* X(ID, its "check" in --json, its mark in the ranking): what the check
 * of a timed candidate against the reference interpreter said */
#define CAND_CHECKS(X)                                                                                       \
  X(UNCHECKED, "null", "")                                                                                   \
  X(DIFFERS, "\"differs\"", "  [checked: DIFFERS]")                                                          \
  X(OK, "\"ok\"", "  [checked: ok]")                                                                         \
  /* E0006: the seed's inputs are outside the program's domain, or the                                      \
   * reference is all zeros, or an int overflows */                                                          \
  X(NOT_CHECKABLE, "\"not checkable\"", "  [not checkable: the inputs are outside the program's domain, E0006]")

typedef enum CandCheck {
#define X(id, json, mark) CHECK_##id,
  CAND_CHECKS(X)
#undef X
} CandCheck;

static const char *const cand_check_json[] = {
#define X(id, json, mark) json,
    CAND_CHECKS(X)
#undef X
};

static const char *const cand_check_marks[] = {
#define X(id, json, mark) mark,
    CAND_CHECKS(X)
#undef X
};

typedef struct Candidate {
  int tmpl;
  int value[SLOT_COUNT]; /* the index of each slot's value */
  CandState state;
  bool derived;
  Buf derivation; /* rule@path n=V, ... */
  int nrules;
  const char *program; /* the whole program, dpia source */
  const char *kname;   /* the kernel derived, or the pipeline of a whole reduction */
  bool partial;
  const char *why;     /* the code of the first error, when refused */
  double min_ms, median_ms;
  /* timed by its first launches alone, which took more than PROBE_CUT
   * times the best's time so far (time_one) */
  bool probe_cut;
  double found_s;      /* when it was timed, from the start */
  double run_s;        /* the wall time of its timing run (an evaluator's: its share of the batch's) */
  int nrounds;         /* the re-timing's rounds that ran it (0: not re-timed) */
  double rounds_ms[RETIME_ROUNDS]; /* each round's fastest launch */
  double retimed_ms;   /* the fastest of the rounds: its time in the ranking */
  CandCheck check;
  int order;           /* the order tried (0, 1, ...) */
} Candidate;

typedef struct Explorer {
  Ctx *c;
  const Decl *k;
  const DpiaExplore *x;
  bool whole; /* the body is a whole reduction */
  long long values[SLOT_COUNT][MAX_VALUES];
  int nvalues[SLOT_COUNT];
  Candidate *cands;
  int ncands;
  int tried;
  struct timespec start;
  double budget;
  int *sample; /* the seed's draw: candidate indices */
  int nsample;
  bool evaluator_failed; /* DpiaExplore.evaluate returned non-zero: the search stops */
  double run_s;          /* the time the full timing runs took, to foresee the next one's */
  int nruns;
  int nretimed;          /* candidates re-timed at the end */
  double retime_s;       /* the time the re-timing took */
  double retime_ended_s; /* when it ended (the search, when none), from the start: within the budget */
  int retime_rounds;     /* the rounds it ran: RETIME_ROUNDS, fewer when the budget ended it (retime) */
  /* the check of a candidate said E0006: the reference cannot be compared
   * on the seed's inputs, for any strategy (the reference is the kernel's
   * meaning); why: the check's message, NULL from an evaluator */
  bool not_checkable;
  const char *not_checkable_why;
  /* the candidates' random inputs, made once (driver_int.h) */
  SharedInputs inputs;
} Explorer;

static double elapsed(const Explorer *e) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - e->start.tv_sec) + (double)(now.tv_nsec - e->start.tv_nsec) * 1e-9;
}

static int repeat_of(const Explorer *e);
static int retime_repeat(const Explorer *e, const Candidate *cd);

/* The time the re-timing at the end is expected to take (docs/explore.md
 * "The re-timing"): RETIME_ROUNDS rounds of a run of each of the RETIME
 * fastest so far, with the launches the re-timing adds (retime_repeat),
 * each run as long as the less of two over-estimates: its own timing run
 * (the same translation and upload; but the OpenCL build, which the
 * re-timing finds in the driver's cache), and the search's mean run
 * (which counts the slow strategies' long launches, which the fastest
 * do not have).  The second alone, at most a quarter of the
 * budget, let a search of a large space end up to a quarter of its
 * budget early, and the quarter, when it bound, the re-timing go past
 * the budget; the re-timing leaves out a round that would (retime). */
static double retime_reserve(const Explorer *e) {
  const Candidate *fastest[RETIME];
  int k = 0;
  for (int i = 0; i < e->ncands; i++) {
    const Candidate *cd = &e->cands[i];
    if (cd->state != CAND_TIMED) continue;
    int at = k < RETIME ? k++ : RETIME;
    while (at > 0 && fastest[at - 1]->min_ms > cd->min_ms) {
      if (at < RETIME) fastest[at] = fastest[at - 1];
      at--;
    }
    if (at < RETIME) fastest[at] = cd;
  }
  if (k < 2) return 0; /* retime: one alone is not re-timed */
  double runs = 0, launches = 0;
  for (int i = 0; i < k; i++) {
    int more = retime_repeat(e, fastest[i]) - repeat_of(e);
    runs += fastest[i]->run_s;
    launches += more > 0 ? more * fastest[i]->median_ms * 1e-3 : 0;
  }
  double mean = e->nruns ? k * e->run_s / e->nruns : runs;
  return RETIME_ROUNDS * ((runs < mean ? runs : mean) + launches);
}

/* the search goes on while the budget, less the re-timing's share and
 * the next run (the mean of the full runs so far), lasts and the
 * evaluator answers: so a search that the budget ends uses it, and its
 * re-timing ends within it */
static bool over_time(const Explorer *e) {
  double next = e->nruns ? e->run_s / e->nruns : 0;
  return elapsed(e) + next > e->budget - retime_reserve(e);
}
/* DpiaExplore.max_tries: a search that ends at a count of strategies,
 * not of seconds, goes as far on a loaded machine as on an idle one */
static bool tries_spent(const Explorer *e) { return e->x->max_tries > 0 && e->tried >= e->x->max_tries; }
static bool spent(const Explorer *e) { return e->evaluator_failed || tries_spent(e) || over_time(e); }

static bool is_reduce(const Ast *e) {
  while (e->kind == AST_APP) e = e->lhs;
  return e->kind == AST_PRIM && e->prim == PRIM_REDUCE;
}

static bool template_uses(int t, Slot s) {
  for (int i = 0; i < MAX_TEMPLATE && templates[t][i] != STEP_COUNT; i++)
    if (step_info[templates[t][i]].slot == s || (s != SLOT_NONE && step_slot2[templates[t][i]] == s)) return true;
  return false;
}

/* the slots' values that fit the sizes */
static void slot_values(Explorer *e) {
  const DpiaOptions *o = e->c->opt;
  for (int s = 1; s < SLOT_COUNT; s++) {
    for (long long v = slot_lo[s]; v <= slot_hi[s] && e->nvalues[s] < MAX_VALUES; v *= 2) {
      bool fits = false;
      for (int i = 0; i < o->nsizes; i++)
        fits |= slot_any[s] ? o->size_values[i] % v != 0 : o->size_values[i] >= v && o->size_values[i] % v == 0;
      if (fits) e->values[s][e->nvalues[s]++] = v;
    }
  }
}

/* does the step make the stage boundary of a whole reduction? */
static bool step_cuts(StepId st) {
  for (const Move *m = step_moves[st]; m->how != HOW_END; m++)
    if (m->how == HOW_CUT) return true;
  return false;
}

static const char *first_site(Arena *a, const Program *prog, const Ast *body, RuleId rule, bool root);

static bool do_move(Explorer *e, Candidate *cd, const Move *m, Ast **body);

/* Is template t in the space: each of its steps that is there only where
 * its first rule applies (step_only_where_applies) has a position for
 * that rule in the body as the steps before it leave it, derived with
 * the first value of each slot (the values do not change where a rule
 * applies, only its parameter): accumulators after vectoriseSums is
 * judged on the sum of vectors, not on every sum of the body as written
 * (stencil1d's windows, jacobi2d's neighbours) */
static bool template_applies(Explorer *e, int t) {
  Candidate scratch = {.tmpl = t};
  buf_init(&scratch.derivation, e->c->arena);
  Ast *body = e->k->body;
  int last = -1; /* the last step that is there only where it applies */
  for (int i = 0; i < MAX_TEMPLATE && templates[t][i] != STEP_COUNT; i++)
    if (step_only_where_applies[templates[t][i]]) last = i;
  for (int i = 0; i <= last; i++) {
    StepId st = templates[t][i];
    if (step_only_where_applies[st] && !first_site(e->c->arena, e->c->prog, body, step_moves[st][0].rule, false))
      return false;
    for (const Move *m = step_moves[st]; i < last && m->how != HOW_END; m++)
      if (!do_move(e, &scratch, m, &body)) return false;
  }
  return true;
}

/* every template and value of its slots, in a fixed order */
static void enumerate(Explorer *e) {
  Vec all = {0};
  for (int t = 0; t < NTEMPLATES; t++) {
    if (step_cuts(templates[t][0]) != e->whole) continue;
    int n[SLOT_COUNT], idx[SLOT_COUNT] = {0};
    bool empty = false;
    for (int s = 0; s < SLOT_COUNT; s++) {
      n[s] = s && template_uses(t, (Slot)s) ? e->nvalues[s] : 1;
      empty |= n[s] == 0;
    }
    if (empty || !template_applies(e, t)) continue;
    for (;;) {
      Candidate *cd = NEW(e->c->arena, Candidate);
      cd->tmpl = t;
      for (int s = 0; s < SLOT_COUNT; s++) cd->value[s] = idx[s];
      cd->check = CHECK_UNCHECKED;
      cd->order = -1;
      vec_push(e->c->arena, &all, cd);
      int s = SLOT_COUNT - 1;
      while (s >= 0 && ++idx[s] == n[s]) idx[s--] = 0;
      if (s < 0) break;
    }
  }
  e->ncands = all.len;
  e->cands = NEWARRAY(e->c->arena, Candidate, all.len ? all.len : 1);
  for (int i = 0; i < all.len; i++) e->cands[i] = *(Candidate *)all.items[i];
}

static long long slot_value(const Explorer *e, const Candidate *cd, Slot s) { return e->values[s][cd->value[s]]; }

/* "vectorise W=4, global" */
static const char *strategy_text(const Explorer *e, const Candidate *cd) {
  Buf b;
  buf_init(&b, e->c->arena);
  for (int i = 0; i < MAX_TEMPLATE && templates[cd->tmpl][i] != STEP_COUNT; i++) {
    const StepInfo *st = &step_info[templates[cd->tmpl][i]];
    emit(&b, "%s%s", i ? ", " : "", st->name);
    if (st->slot != SLOT_NONE) emit(&b, " %s=%lld", slot_names[st->slot], slot_value(e, cd, st->slot));
    Slot s2 = step_slot2[templates[cd->tmpl][i]];
    if (s2 != SLOT_NONE) emit(&b, " %s=%lld", slot_names[s2], slot_value(e, cd, s2));
  }
  return b.data;
}

/* ---- derivation ---- */

/* e is map h xs, h a view primitive (fst, asVector W ...), written either
 * way; *xs its array */
static bool map_of_view(const Ast *e, const Ast **xs) {
  if (e->kind != AST_APP || e->lhs->kind != AST_APP) return false;
  const Ast *map = e->lhs->lhs, *h = e->lhs->rhs;
  *xs = e->rhs;
  return map->kind == AST_PRIM && map->prim == PRIM_MAP && h->kind == AST_PRIM && prim_family(h->prim) == PFAM_VIEW;
}

/* e is map h1 (map h2 xs) of two view primitives, such as rowSums leaves
 * (rowTile's rows side by side, rows |> map fst |> map (asVector W) |>
 * transpose): each map is a view, read in place, where fuseMaps would
 * make a map of a lambda that the lowering copies into memory (a loop
 * over the tile's rows before the sums), so the steps and the finish
 * leave it */
static bool maps_of_views(const Ast *e) {
  const Ast *xs, *ys;
  return map_of_view(e, &xs) && map_of_view(xs, &ys);
}

/* the first position of body where rule applies; NULL if none (root:
 * only the body itself) */
static const char *first_site(Arena *a, const Program *prog, const Ast *body, RuleId rule, bool root) {
  RewriteSite *sites;
  int n;
  rewrite_sites(a, prog, body, &sites, &n);
  for (int i = 0; i < n; i++) {
    if (root && sites[i].node != body) continue;
    if (rule == RULE_FUSE_MAPS && maps_of_views(sites[i].node)) continue;
    for (int r = 0; r < sites[i].nrules; r++)
      if (sites[i].rules[r] == rule) return sites[i].path;
  }
  return NULL;
}

/* one move on *body; false when a move that must apply does not */
static bool do_move(Explorer *e, Candidate *cd, const Move *m, Ast **body) {
  Ctx *c = e->c;
  if (m->how == HOW_CUT) { /* the stage boundary of a whole reduction: reduce f z E -> E */
    Buf why;
    buf_init(&why, c->arena);
    const Ast *arg = rewrite_node_at(c->arena, *body, "1", &why);
    if (!arg) return false;
    *body = (Ast *)arg;
    cd->partial = true;
    emit(&cd->derivation, "%sstage boundary at 1", cd->nrules ? ", " : "");
    return true;
  }
  for (int round = 0;; round++) {
    const char *path = first_site(c->arena, c->prog, *body, m->rule, m->how == HOW_ROOT);
    if (!path) return round > 0 || m->how == HOW_OPTIONAL || m->how == HOW_ALL;
    const RuleParamInfo *pi = &rule_param_info[rule_info[m->rule].param];
    long long param = m->slot != SLOT_NONE ? slot_value(e, cd, m->slot)
                      : m->fixed > 0         ? m->fixed
                      : pi->dflt >= 0        ? pi->dflt
                                             : 0;
    Buf why;
    buf_init(&why, c->arena);
    Ast *next = rewrite_apply(c->arena, &c->in, c->prog, *body, m->rule, path, param, &why);
    if (!next) return m->how == HOW_OPTIONAL;
    *body = next;
    emit(&cd->derivation, "%s%s@%s", cd->nrules++ ? ", " : "", rule_info[m->rule].name, path);
    if (m->slot != SLOT_NONE || m->fixed > 0) emit(&cd->derivation, " %s=%lld", pi->name, param);
    if (m->how != HOW_ALL || round > 64) return true;
  }
}

/* the candidate's program: its steps, then the finish */
static void derive(Explorer *e, Candidate *cd) {
  Ctx *c = e->c;
  cd->derived = true;
  buf_init(&cd->derivation, c->arena);
  Ast *body = e->k->body;
  for (int i = 0; i < MAX_TEMPLATE && templates[cd->tmpl][i] != STEP_COUNT; i++)
    for (const Move *m = step_moves[templates[cd->tmpl][i]]; m->how != HOW_END; m++)
      if (!do_move(e, cd, m, &body)) {
        cd->state = CAND_NOT_DERIVED;
        return;
      }
  for (const Move *m = finish; m->how != HOW_END; m++)
    if (!do_move(e, cd, m, &body)) {
      cd->state = CAND_NOT_DERIVED;
      return;
    }
  /* the program with only this kernel: the other kernels and the
   * pipelines are not explored (they may be high-level, or launch this
   * kernel by its name); its functions and foreign functions stay.  A
   * whole reduction's partial sums become a pipeline of two kernels,
   * named as the kernel (rewrite_reduction_pipeline). */
  Decl *made[3] = {NULL, NULL, NULL};
  int nmade = 1;
  if (cd->partial) {
    Buf why;
    buf_init(&why, c->arena);
    if (!rewrite_reduction_pipeline(c->arena, &c->in, c->prog, e->k, body, made, &why)) {
      cd->state = CAND_NOT_DERIVED;
      cd->why = "no pipeline";
      return;
    }
    nmade = 3;
  } else {
    made[0] = NEW(c->arena, Decl);
    *made[0] = *e->k;
    made[0]->body = body;
  }
  Program *prog = NEW(c->arena, Program);
  *prog = *c->prog;
  prog->decls = NEWARRAY(c->arena, Decl *, c->prog->ndecls + 2);
  prog->ndecls = 0;
  cd->kname = e->k->name;
  for (int i = 0; i < c->prog->ndecls; i++) {
    Decl *old = c->prog->decls[i];
    if (old->from_prelude || ((old->is_kernel || old->is_pipeline) && old != e->k)) continue;
    if (old != e->k) {
      prog->decls[prog->ndecls++] = old;
      continue;
    }
    for (int j = 0; j < nmade; j++) prog->decls[prog->ndecls++] = made[j];
  }
  Buf text;
  buf_init(&text, c->arena);
  program_print(&text, prog);
  cd->program = text.data;
}

/* ---- checking several at once ---- */

typedef struct CheckJob {
  const Explorer *e;
  Candidate **cands;
  int n;
  int next; /* guarded by lock */
  pthread_mutex_t lock;
} CheckJob;

static void check_one(const Explorer *e, Candidate *cd) {
  DpiaOptions o;
  dpia_options_init(&o);
  o.action = DPIA_CHECK;
  o.kernel = cd->kname;
  /* a verifier (libclang, for foreign bodies) is not shared between
   * threads: with --jobs each call makes its own when it needs one */
  o.verifier = e->x->jobs > 1 ? NULL : e->c->opt->verifier;
  o.tune_cache = "off"; /* the candidate as derived */
  DpiaResult *r = NULL;
  int status = driver_process(e->c->target, "<explored>", cd->program, strlen(cd->program), &o, &r);
  if (status != DPIA_OK) {
    cd->state = CAND_REJECTED;
    const DpiaDiagnostic *d = dpia_result_diagnostic_count(r) ? dpia_result_diagnostic(r, 0) : NULL;
    /* a static string of the code table, or the arena's copy below */
    cd->why = d && d->code ? d->code : "error";
  }
  /* the code strings are diag_code_name's, static: safe after the free */
  dpia_result_free(r);
}

static void *check_worker(void *arg) {
  CheckJob *j = arg;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    int i = j->next++;
    pthread_mutex_unlock(&j->lock);
    if (i >= j->n) return NULL;
    check_one(j->e, j->cands[i]);
  }
}

enum { MAX_JOBS = 64 };

static void check_all(const Explorer *e, Candidate **cands, int n) {
  int jobs = e->x->jobs > 1 ? e->x->jobs : 1;
  if (jobs > MAX_JOBS) jobs = MAX_JOBS;
  CheckJob j = {e, cands, n, 0, PTHREAD_MUTEX_INITIALIZER};
  pthread_t threads[MAX_JOBS];
  int started = 0;
  for (int t = 1; t < jobs && t < n; t++)
    if (pthread_create(&threads[started], NULL, check_worker, &j) == 0) started++;
  check_worker(&j);
  for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
}

/* ---- timing ---- */

DpiaResult *search_run(const Ctx *c, const char *program, const char *kernel, int nsets, const char *const *set_names,
                       const long long *set_values, bool check, int repeat, const RunHooks *hooks) {
  const DpiaOptions *co = c->opt;
  DpiaOptions o;
  dpia_options_init(&o);
  o.action = DPIA_RUN;
  o.kernel = kernel;
  o.verifier = co->verifier;
  o.nsizes = co->nsizes;
  o.size_names = co->size_names;
  o.size_values = co->size_values;
  o.nsets = nsets;
  o.set_names = set_names;
  o.set_values = set_values;
  o.seed = co->seed;
  o.inputs = co->inputs;
  o.platform = co->platform;
  o.device = co->device;
  o.repeat = repeat;
  o.check = check;
  o.verify = check; /* as dpia run: the SCIR re-check, libclang, the semantic and race checks */
  o.tune_cache = "off"; /* the values asked for, nothing else */
  DpiaResult *r = NULL;
  driver_process_hooked(c->target, c->opt->action == DPIA_TUNE ? c->src.name : "<explored>", program, strlen(program),
                        &o, hooks, &r);
  return r;
}

/* a candidate's run: a timing run (check false) on the search's shared
 * inputs, its timing cut short when its first two launches took more
 * than cut_ms > 0 (time_one); a check (check true) on inputs of its own,
 * as dpia run --check makes them */
static DpiaResult *run_candidate(Explorer *e, const Candidate *cd, bool check, int repeat, double cut_ms) {
  RunHooks hooks = {cut_ms, &e->inputs};
  return search_run(e->c, cd->program, cd->kname, 0, NULL, NULL, check, repeat, check ? NULL : &hooks);
}

static int repeat_of(const Explorer *e) { return e->c->opt->repeat > 0 ? e->c->opt->repeat : DEFAULT_REPEAT; }

/* a timing run's outcome: ran (its times), or why not (the first
 * error's code; a static string of the code table, or the arena's).  A
 * run that succeeded but launched nothing (every NDRange empty and every
 * output empty; docs/reference.md "Sizes that do not divide"), or that an
 * evaluator reports with no time, is not timed: never 0 ms, never best */
static void timed(Explorer *e, Candidate *cd, int status, bool ran, double min_ms, double median_ms, const char *why) {
  if (status == DPIA_OK && (!ran || !(min_ms > 0))) {
    cd->state = CAND_NOT_TIMED;
    cd->why = "no launch";
  } else if (status == DPIA_OK) {
    cd->state = CAND_TIMED;
    cd->min_ms = min_ms;
    cd->median_ms = median_ms;
    cd->found_s = elapsed(e);
  } else {
    cd->state = status == DPIA_EPRECONDITION ? CAND_PRECONDITION : CAND_FAILED;
    cd->why = why && *why ? why : "error";
  }
}

static const char *first_code(const DpiaResult *r) {
  const DpiaDiagnostic *d = dpia_result_diagnostic_count(r) ? dpia_result_diagnostic(r, 0) : NULL;
  return d ? d->code : NULL; /* diag_code_name's, static: safe after the free */
}

static const Candidate *best_timed(const Explorer *e);

/* Timed with the full repeat, its first launches a probe once some
 * candidate has been timed: a candidate whose first two launches (the
 * untimed one included) each take more than PROBE_CUT times the best so
 * far keeps their time (it cannot come near the best) and is launched no
 * more, so that the slow strategies of a large size (a scalar matrix
 * product at 512^3 runs about a second a launch) spend two launches
 * each, not the repeat's, and the budget reaches more of the space.  The
 * probe is the run's own first launches (RtLaunch.cut_ms): one
 * translation, one OpenCL build and one upload a candidate, whether cut
 * or not. */
static void time_one(Explorer *e, Candidate *cd) {
  const Candidate *best = best_timed(e);
  double cut_ms = best && repeat_of(e) > 1 ? PROBE_CUT * best->min_ms : 0;
  double min_ms = 0, median_ms = 0;
  double t0 = elapsed(e);
  DpiaResult *r = run_candidate(e, cd, false, repeat_of(e), cut_ms);
  cd->run_s = elapsed(e) - t0;
  bool ran = dpia_result_run_time(r, &min_ms, &median_ms);
  cd->probe_cut = dpia_result_status(r) == DPIA_OK && ran && search_launches(r) < repeat_of(e);
  /* the full runs' time foresees the re-timing's (retime_reserve): the
   * candidates a probe leaves out are not among the fastest it re-times */
  if (dpia_result_status(r) == DPIA_OK && !cd->probe_cut) {
    e->run_s += elapsed(e) - t0;
    e->nruns++;
  }
  timed(e, cd, dpia_result_status(r), ran, min_ms, median_ms, first_code(r));
  dpia_result_free(r);
}

/* ---- an evaluator of the caller's (DpiaExplore.evaluate) ---- */

/* the runs of cands[0..n) handed to the evaluator: false when it failed */
static bool evaluate_elsewhere(Explorer *e, Candidate **cands, int n, bool check, const int *repeat,
                               DpiaExploreRun **out) {
  DpiaExploreRun *runs = NEWARRAY(e->c->arena, DpiaExploreRun, n ? n : 1);
  for (int i = 0; i < n; i++) {
    runs[i] = (DpiaExploreRun){.id = (int)(cands[i] - e->cands),
                               .strategy = strategy_text(e, cands[i]),
                               .program = cands[i]->program,
                               .kernel = cands[i]->kname,
                               .check = check,
                               .repeat = check ? 1 : repeat ? repeat[i] : repeat_of(e),
                               .status = DPIA_EINTERNAL};
  }
  *out = runs;
  if (e->x->evaluate(e->x->evaluate_user, runs, n) != 0) {
    e->evaluator_failed = true;
    return false;
  }
  return true;
}

static const char *run_reason(Explorer *e, const DpiaExploreRun *run) {
  /* the evaluator's buffer, whatever it holds, ended and copied */
  return arena_strndup(e->c->arena, run->reason, strnlen(run->reason, sizeof run->reason));
}

/* time the batch's candidates that check, all at once, by the evaluator */
static void time_elsewhere(Explorer *e, Candidate **batch, int n) {
  DpiaExploreRun *runs;
  if (n == 0) return; /* none of the batch checks: nothing to ask */
  double t0 = elapsed(e);
  bool answered = evaluate_elsewhere(e, batch, n, false, NULL, &runs);
  double share = elapsed(e) - t0; /* a batch may run at once on several workers: the share of each */
  e->run_s += share;
  e->nruns += n;
  for (int i = 0; i < n; i++) batch[i]->run_s = share / n;
  if (!answered) {
    for (int i = 0; i < n; i++) { /* not timed: not tried */
      batch[i]->order = -1;
      e->tried--;
    }
    return;
  }
  for (int i = 0; i < n; i++)
    timed(e, batch[i], runs[i].status, runs[i].status == DPIA_OK, runs[i].min_ms, runs[i].median_ms,
          run_reason(e, &runs[i]));
}

/* a timed candidate's time in the ranking: its re-timing's, if it was re-timed */
static double rank_ms(const Candidate *cd) { return cd->nrounds ? cd->retimed_ms : cd->min_ms; }

static const Candidate *best_timed(const Explorer *e) {
  const Candidate *best = NULL;
  for (int i = 0; i < e->ncands; i++) {
    const Candidate *cd = &e->cands[i];
    if (cd->state == CAND_TIMED && (!best || cd->min_ms < best->min_ms)) best = cd;
  }
  return best;
}

static void progress(Explorer *e) {
  if (!e->x->progress) return;
  const Candidate *b = best_timed(e);
  const char *line =
      b ? arena_printf(e->c->arena, "explore %s: %d of %d strategies tried, %.1f s; best %.4f ms (%s)", e->k->name,
                       e->tried, e->ncands, elapsed(e), b->min_ms, strategy_text(e, b))
        : arena_printf(e->c->arena, "explore %s: %d of %d strategies tried, %.1f s", e->k->name, e->tried, e->ncands,
                       elapsed(e));
  e->x->progress(e->x->progress_user, line);
}

/* derive, check (--jobs at once), time (one at a time) the candidates
 * idx[0..n) not tried yet, within the budget */
static void evaluate_batch(Explorer *e, const int *idx, int n) {
  Candidate **batch = NEWARRAY(e->c->arena, Candidate *, n ? n : 1);
  int nb = 0;
  for (int i = 0; i < n; i++) {
    Candidate *cd = &e->cands[idx[i]];
    if (cd->order >= 0 || spent(e)) continue;
    cd->order = e->tried++;
    derive(e, cd);
    if (cd->state == CAND_PENDING) batch[nb++] = cd;
  }
  check_all(e, batch, nb);
  if (e->x->evaluate) {
    int nc = 0;
    for (int i = 0; i < nb; i++)
      if (batch[i]->state == CAND_PENDING) batch[nc++] = batch[i];
    time_elsewhere(e, batch, nc);
    progress(e);
    return;
  }
  for (int i = 0; i < nb; i++) {
    if (batch[i]->state != CAND_PENDING) continue;
    if (over_time(e)) { /* derived and checked, not timed: not tried */
      batch[i]->order = -1;
      e->tried--;
      continue;
    }
    time_one(e, batch[i]);
    progress(e);
  }
}

/* evaluate_batch on a few at a time, so that the budget is spent timing
 * as it goes, not checking the whole space first */
static void evaluate(Explorer *e, const int *idx, int n) {
  int batch = BATCH_PER_JOB * (e->x->jobs > 1 ? e->x->jobs : 1);
  for (int i = 0; i < n && !spent(e); i += batch) evaluate_batch(e, idx + i, n - i < batch ? n - i : batch);
}

static int template_length(int t) {
  int n = 0;
  while (n < MAX_TEMPLATE && templates[t][n] != STEP_COUNT) n++;
  return n;
}

/* is o cd's strategy with its last step replaced by another (global,
 * workgroup, chunk ...), the steps before it and their values the same,
 * the new step's value, if it has one, the middle of its slot's values? */
static bool other_last_step(const Explorer *e, const Candidate *cd, const Candidate *o) {
  int len = template_length(cd->tmpl);
  if (o->tmpl == cd->tmpl || template_length(o->tmpl) != len) return false;
  bool before[SLOT_COUNT] = {false};
  for (int i = 0; i + 1 < len; i++) {
    if (templates[o->tmpl][i] != templates[cd->tmpl][i]) return false;
    before[step_info[templates[cd->tmpl][i]].slot] = true;
  }
  Slot last = step_info[templates[o->tmpl][len - 1]].slot;
  for (int s = 1; s < SLOT_COUNT; s++) {
    if (before[s] && o->value[s] != cd->value[s]) return false;
    if (!before[s] && s == (int)last && o->value[s] != e->nvalues[s] / 2) return false;
  }
  return true;
}

/* is o cd's strategy with a step inserted between two of its steps, one
 * that is in the space only where it applies (accumulators between
 * vectoriseSums and global), the steps' values the same, the new step's
 * the middle of its slot's values?  So a search that found
 * `vectoriseSums W=16, global` tries it with accumulators; no other
 * steps are inserted, so the local search of a space without such a step
 * is what it was */
static bool inserted_step(const Explorer *e, const Candidate *cd, const Candidate *o) {
  int len = template_length(cd->tmpl);
  if (len < 2 || template_length(o->tmpl) != len + 1) return false;
  int at = 0;
  while (at < len && templates[o->tmpl][at] == templates[cd->tmpl][at]) at++;
  if (at == 0 || at == len || !step_only_where_applies[templates[o->tmpl][at]]) return false;
  for (int i = at; i < len; i++)
    if (templates[o->tmpl][i + 1] != templates[cd->tmpl][i]) return false;
  Slot added = step_info[templates[o->tmpl][at]].slot;
  for (int s = 1; s < SLOT_COUNT; s++)
    if (o->value[s] != (s == (int)added && !template_uses(cd->tmpl, (Slot)s) ? e->nvalues[s] / 2 : cd->value[s])) return false;
  return true;
}

/* the untried neighbours of cd: the same strategy, one slot one value
 * up or down; or the strategy with another last step (other_last_step),
 * so that a search which found a good first step (vectoriseSums W=8)
 * tries it with each way of spreading the work */
static int neighbours(const Explorer *e, const Candidate *cd, int *out) {
  int n = 0;
  for (int i = 0; i < e->ncands; i++) {
    const Candidate *o = &e->cands[i];
    if (o->order >= 0) continue;
    if (o->tmpl != cd->tmpl) {
      if (other_last_step(e, cd, o) || inserted_step(e, cd, o)) out[n++] = i;
      continue;
    }
    int diff = 0;
    for (int s = 0; s < SLOT_COUNT; s++) {
      int d = o->value[s] - cd->value[s];
      diff += d < 0 ? -d : d;
    }
    if (diff == 1) out[n++] = i;
  }
  return n;
}

int *seed_order(Arena *a, int n, uint64_t seed) {
  int *order = NEWARRAY(a, int, n ? n : 1);
  for (int i = 0; i < n; i++) order[i] = i;
  Rng rng; /* Fisher-Yates */
  rng_seed(&rng, seed);
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(rng_next(&rng) % (uint64_t)(i + 1));
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  return order;
}

static void search(Explorer *e) {
  /* the seed's draw: a shuffle of the space, so that a budget that ends a
   * search early has tried a sample of every strategy */
  int *all = seed_order(e->c->arena, e->ncands, e->c->opt->seed);
  if (e->ncands <= EXHAUSTIVE_MAX) {
    e->sample = all;
    e->nsample = e->ncands;
    evaluate(e, all, e->ncands);
    return;
  }
  e->sample = all;
  e->nsample = SAMPLE;
  evaluate(e, all, SAMPLE);
  int *near = NEWARRAY(e->c->arena, int, e->ncands);
  int drawn = SAMPLE;
  while (e->tried < e->ncands && !spent(e)) {
    const Candidate *b = best_timed(e);
    int n = b ? neighbours(e, b, near) : 0;
    if (n) {
      evaluate(e, near, n);
      continue;
    }
    /* a local optimum (or nothing timed): more of the draw */
    int more = drawn + SAMPLE / 2 < e->ncands ? SAMPLE / 2 : e->ncands - drawn;
    if (more <= 0) break;
    evaluate(e, all + drawn, more);
    drawn += more;
  }
}

/* ---- the report ---- */

/* the ranking: the re-timed by their re-timing, then the others timed
 * by the search's time, then the rest in the order tried */
static int by_time(const void *pa, const void *pb) {
  const Candidate *a = *(Candidate *const *)pa, *b = *(Candidate *const *)pb;
  bool ta = a->state == CAND_TIMED, tb = b->state == CAND_TIMED;
  if (ta != tb) return ta ? -1 : 1;
  if (ta && (a->nrounds > 0) != (b->nrounds > 0)) return a->nrounds ? -1 : 1;
  if (ta && rank_ms(a) != rank_ms(b)) return rank_ms(a) < rank_ms(b) ? -1 : 1;
  return a->order - b->order;
}

/* The re-timing (docs/explore.md): the search times each candidate once,
 * at its own moment, so that on a busy machine two candidates' times
 * differ by the load of their moments as much as by their speed, and the
 * fastest of the search is often not the fastest.  The RETIME fastest
 * are run again, RETIME_ROUNDS rounds of each in turn (round r begins
 * with the r-th), so that each meets every moment's load alike; a
 * candidate's time in the ranking is then its fastest launch of the
 * rounds.  ranked: by the search's times. */
/* the launches of a re-timing run: a run's translation and OpenCL build
 * take far longer than a short kernel's launches, so that more of them
 * cost little and give the load more chances to leave one launch alone:
 * about RETIME_LAUNCH_MS of launches (by the search's median), from
 * --repeat to RETIME_MAX_FACTOR times it */
static int retime_repeat(const Explorer *e, const Candidate *cd) {
  int lo = repeat_of(e), hi = lo * RETIME_MAX_FACTOR;
  double want = cd->median_ms > 0 ? RETIME_LAUNCH_MS / cd->median_ms : hi;
  return want < lo ? lo : want > hi ? hi : (int)want;
}

static void retime(Explorer *e, Candidate **ranked, int n) {
  int k = 0;
  while (k < n && k < RETIME && ranked[k]->state == CAND_TIMED) k++;
  e->retime_ended_s = elapsed(e);
  if (k < 2 || e->evaluator_failed) return; /* one alone has nothing to be compared with */
  double t0 = elapsed(e);
  Candidate *turn[RETIME];
  int repeat[RETIME];
  double round_s = 0;
  for (int r = 0; r < RETIME_ROUNDS && !e->evaluator_failed; r++) {
    /* the first round was foreseen (retime_reserve); a later one that
     * would end after the budget, as long as the one before it, is left
     * out: a load that grew since the search foresaw them does not take
     * the re-timing past the budget by more than a round */
    if (r > 0 && elapsed(e) + round_s > e->budget) break;
    double r0 = elapsed(e);
    e->retime_rounds = r + 1;
    for (int i = 0; i < k; i++) {
      turn[i] = ranked[(i + r) % k];
      repeat[i] = retime_repeat(e, turn[i]);
    }
    if (e->x->evaluate) {
      DpiaExploreRun *runs;
      if (!evaluate_elsewhere(e, turn, k, false, repeat, &runs)) break; /* the rounds so far count */
      for (int i = 0; i < k; i++)
        if (runs[i].status == DPIA_OK) turn[i]->rounds_ms[turn[i]->nrounds++] = runs[i].min_ms;
      round_s = elapsed(e) - r0;
      continue;
    }
    for (int i = 0; i < k; i++) {
      DpiaResult *res = run_candidate(e, turn[i], false, repeat[i], 0);
      double min_ms = 0, median_ms = 0;
      if (dpia_result_status(res) == DPIA_OK && dpia_result_run_time(res, &min_ms, &median_ms))
        turn[i]->rounds_ms[turn[i]->nrounds++] = min_ms;
      dpia_result_free(res);
    }
    round_s = elapsed(e) - r0;
  }
  for (int i = 0; i < k; i++) {
    Candidate *cd = ranked[i];
    for (int r = 0; r < cd->nrounds; r++)
      if (r == 0 || cd->rounds_ms[r] < cd->retimed_ms) cd->retimed_ms = cd->rounds_ms[r];
  }
  e->nretimed = k;
  e->retime_ended_s = elapsed(e);
  e->retime_s = e->retime_ended_s - t0;
}

/* the fastest that agrees with the reference interpreter.  A check that
 * says E0006 (the reference not finite on the seed's inputs, all zeros,
 * or an int overflow: run.c) says it of the inputs, not of the strategy,
 * and every other strategy would meet the same reference: none is
 * checked after it, and the explorer is marked not_checkable */
static Candidate *check_best(Explorer *e, Candidate **ranked, int n) {
  const char *not_checkable = diag_code_name(ERR_NOT_CHECKABLE);
  for (int i = 0; i < n && i < CHECK_TRIES && ranked[i]->state == CAND_TIMED && !e->evaluator_failed; i++) {
    bool vacuous = false;
    if (e->x->evaluate) {
      DpiaExploreRun *run;
      if (!evaluate_elsewhere(e, &ranked[i], 1, true, NULL, &run)) return NULL;
      ranked[i]->check = run->status == DPIA_OK ? CHECK_OK : CHECK_DIFFERS;
      vacuous = run->status != DPIA_OK && strcmp(run->reason, not_checkable) == 0;
    } else {
      DpiaResult *r = run_candidate(e, ranked[i], true, 1, 0);
      ranked[i]->check = dpia_result_status(r) == DPIA_OK ? CHECK_OK : CHECK_DIFFERS;
      /* the run's own reason (app/run.c), copied before the free */
      const char *why = search_not_checkable(r);
      if (why) {
        vacuous = true;
        e->not_checkable_why = arena_printf(e->c->arena, "%s", why);
      }
      dpia_result_free(r);
    }
    if (vacuous) {
      ranked[i]->check = CHECK_NOT_CHECKABLE;
      e->not_checkable = true;
      return NULL;
    }
    if (ranked[i]->check == CHECK_OK) return ranked[i];
  }
  return NULL;
}

static void emit_candidate_json(const Explorer *e, Buf *out, const Candidate *cd) {
  buf_puts(out, "{\"id\": ");
  emit(out, "%d, \"strategy\": ", (int)(cd - e->cands));
  emit_json_string(out, strategy_text(e, cd));
  buf_puts(out, ", \"steps\": [");
  for (int i = 0; i < MAX_TEMPLATE && templates[cd->tmpl][i] != STEP_COUNT; i++) {
    const StepInfo *st = &step_info[templates[cd->tmpl][i]];
    buf_puts(out, i ? ", {\"step\": " : "{\"step\": ");
    emit_json_string(out, st->name);
    if (st->slot != SLOT_NONE) {
      buf_puts(out, ", \"param\": ");
      emit_json_string(out, slot_names[st->slot]);
      emit(out, ", \"value\": %lld", slot_value(e, cd, st->slot));
    }
    Slot s2 = step_slot2[templates[cd->tmpl][i]];
    if (s2 != SLOT_NONE) {
      buf_puts(out, ", \"param2\": ");
      emit_json_string(out, slot_names[s2]);
      emit(out, ", \"value2\": %lld", slot_value(e, cd, s2));
    }
    buf_putc(out, '}');
  }
  buf_puts(out, "], \"derivation\": ");
  emit_json_string(out, cd->derived ? cd->derivation.data : "");
  emit(out, ", \"rules\": %d, \"status\": \"%s\", \"reason\": ", cd->nrules, cand_state_names[cd->state]);
  if (cd->why) emit_json_string(out, cd->why);
  else buf_puts(out, "null");
  if (cd->state == CAND_TIMED) emit(out, ", \"min_ms\": %.6g, \"median_ms\": %.6g, \"found_s\": %.3f", cd->min_ms,
                                    cd->median_ms, cd->found_s);
  else buf_puts(out, ", \"min_ms\": null, \"median_ms\": null, \"found_s\": null");
  emit(out, ", \"probe_cut\": %s", cd->probe_cut ? "true" : "false");
  if (cd->nrounds) {
    emit(out, ", \"retimed_ms\": %.6g, \"rounds_ms\": [", cd->retimed_ms);
    for (int r = 0; r < cd->nrounds; r++) emit(out, "%s%.6g", r ? ", " : "", cd->rounds_ms[r]);
    buf_putc(out, ']');
  } else buf_puts(out, ", \"retimed_ms\": null, \"rounds_ms\": []");
  if (cd->order >= 0) emit(out, ", \"order\": %d", cd->order);
  else buf_puts(out, ", \"order\": null");
  emit(out, ", \"check\": %s}", cand_check_json[cd->check]);
}

static void report(Explorer *e, Candidate **ranked, int n, const Candidate *best) {
  Buf *out = &e->c->out;
  const DpiaOptions *o = e->c->opt;
  bool exhaustive = e->ncands <= EXHAUSTIVE_MAX;
  int timed = 0;
  for (int i = 0; i < n; i++) timed += ranked[i]->state == CAND_TIMED;
  if (e->x->json) {
    buf_puts(out, "{\"kernel\": ");
    emit_json_string(out, e->k->name);
    buf_puts(out, ", \"sizes\": {");
    for (int i = 0; i < o->nsizes; i++) {
      buf_puts(out, i ? ", " : "");
      emit_json_string(out, o->size_names[i]);
      emit(out, ": %lld", o->size_values[i]);
    }
    emit(out, "}, \"seed\": %llu, \"budget_s\": %g, \"search\": \"%s\", \"space\": %d, \"tried\": %d, \"timed\": %d, ",
         (unsigned long long)o->seed, e->budget, exhaustive ? "exhaustive" : "sampled", e->ncands, e->tried, timed);
    emit(out, "\"elapsed_s\": %.3f, \"pipeline\": %s, ", elapsed(e), e->whole ? "true" : "false");
    emit(out,
         "\"retiming\": {\"candidates\": %d, \"rounds\": %d, \"elapsed_s\": %.3f, \"ended_s\": %.3f}, \"sample\": [",
         e->nretimed, e->nretimed ? e->retime_rounds : 0, e->retime_s, e->retime_ended_s);
    for (int i = 0; i < e->nsample; i++) emit(out, "%s%d", i ? ", " : "", e->sample[i]);
    buf_puts(out, "], \"best\": ");
    if (best) emit_candidate_json(e, out, best);
    else buf_puts(out, "null");
    buf_puts(out, ", \"candidates\": [");
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (ranked[i]->order < 0) continue;
      buf_puts(out, k++ ? ",\n  " : "\n  ");
      emit_candidate_json(e, out, ranked[i]);
    }
    buf_puts(out, "]}\n");
    return;
  }
  emit(out, "explore %s:", e->k->name);
  for (int i = 0; i < o->nsizes; i++) emit(out, " %s=%lld", o->size_names[i], o->size_values[i]);
  emit(out, "; %d strategies, %d tried (%s, seed %llu%s), %d timed in %.1f s\n", e->ncands, e->tried,
       exhaustive ? "exhaustive" : "sampled, then local search", (unsigned long long)o->seed,
       e->tried == e->ncands ? ""
       : e->evaluator_failed ? "; the evaluator failed"
       : tries_spent(e)      ? "; --tries ended it"
                             : "; the budget ended it",
       timed, elapsed(e));
  if (e->whole)
    emit(out, "  %s is a whole reduction: each strategy is a pipeline of its partial sums (%sParts) and their sum "
              "on one work-item (%sSum), timed together\n",
         e->k->name, e->k->name, e->k->name);
  if (e->nretimed)
    emit(out, "  the %d fastest re-timed: %d round%s of each in turn, %.1f s; ranked by the fastest of the rounds\n",
         e->nretimed, e->retime_rounds, e->retime_rounds == 1 ? "" : "s", e->retime_s);
  for (int i = 0, rank = 0; i < n && ranked[i]->state == CAND_TIMED; i++) {
    const Candidate *cd = ranked[i];
    emit(out, "%3d. %9.4f ms  %s%s\n", ++rank, rank_ms(cd), strategy_text(e, cd), cand_check_marks[cd->check]);
    if (cd->nrounds) {
      emit(out, "       re-timed:");
      for (int r = 0; r < cd->nrounds; r++) emit(out, " %.4f", cd->rounds_ms[r]);
      emit(out, " ms; in the search %.4f ms\n", cd->min_ms);
    }
    emit(out, "       %s\n", cd->derivation.data);
  }
  int counts[CAND_TIMED + 1] = {0};
  for (int i = 0; i < n; i++)
    if (ranked[i]->order >= 0) counts[ranked[i]->state]++;
  emit(out, "  not derived %d, rejected by check %d, preconditions %d, failed %d, not timed %d\n",
       counts[CAND_NOT_DERIVED], counts[CAND_REJECTED], counts[CAND_PRECONDITION], counts[CAND_FAILED],
       counts[CAND_NOT_TIMED]);
  if (best) emit(out, "best: %s (%.4f ms), agrees with the reference interpreter\n", strategy_text(e, best), rank_ms(best));
}

/* the best as a program, its derivation a comment */
static const char *best_program(Explorer *e, const Candidate *best) {
  Buf b;
  buf_init(&b, e->c->arena);
  const DpiaOptions *o = e->c->opt;
  emit(&b, "-- Derived by dpia explore from %s, kernel %s, at", e->c->src.name, e->k->name);
  for (int i = 0; i < o->nsizes; i++) emit(&b, " %s=%lld", o->size_names[i], o->size_values[i]);
  emit(&b, ":\n-- the fastest of %d strategies tried, %.4f ms%s, checked against the reference interpreter.\n",
       e->tried, rank_ms(best), best->nrounds ? " (re-timed)" : "");
  emit(&b, "-- strategy: %s\n-- derivation: %s\n", strategy_text(e, best), best->derivation.data);
  if (best->partial)
    emit(&b, "-- %s is a pipeline: the partial sums, then their sum on one work-item.\n", e->k->name);
  buf_puts(&b, best->program);
  return b.data;
}

static bool is_tuned(const Param *const *tuned, int ntuned, const char *name) {
  for (int i = 0; i < ntuned; i++)
    if (strcmp(tuned[i]->name, name) == 0) return true;
  return false;
}

bool search_sizes_given(Ctx *c, const Decl *k, const DefInfo *def, const char *what, DiagCode code,
                        const Param *const *tuned, int ntuned) {
  /* every size given, and no other: the preconditions and the runs need them */
  for (int i = 0; i < def->nsize_params; i++) {
    if (is_tuned(tuned, ntuned, def->size_params[i])) continue;
    bool given = false;
    for (int j = 0; j < c->opt->nsizes; j++) given |= strcmp(c->opt->size_names[j], def->size_params[i]) == 0;
    if (!given) {
      diag_error(&c->diag, code, k->name_span,
                 "kernel '%s' needs a value for its size %s to be %s: add --size %s=VALUE", k->name,
                 def->size_params[i], what, def->size_params[i]);
      return false;
    }
  }
  for (int j = 0; j < c->opt->nsizes; j++) {
    bool known = false;
    for (int i = 0; i < def->nsize_params; i++) known |= strcmp(c->opt->size_names[j], def->size_params[i]) == 0;
    if (!known || c->opt->size_values[j] < 1) {
      diag_error(&c->diag, code, k->name_span,
                 known ? "--size %s=%lld: a size is at least 1" : "--size %s=%lld: kernel '%s' has no size named %s",
                 c->opt->size_names[j], c->opt->size_values[j], k->name, c->opt->size_names[j]);
      return false;
    }
  }
  return true;
}

int pass_explore(Ctx *c) {
  const DpiaExplore *x = c->opt->explore;
  const Decl *k = NULL;
  DefInfo *def = NULL;
  for (int i = 0; i < c->prog->ndecls; i++) {
    const Decl *d = c->prog->decls[i];
    if (d->is_kernel && c->opt->kernel && strcmp(d->name, c->opt->kernel) == 0) {
      k = d;
      def = c->checked->defs[i];
    }
  }
  if (!x || !k) {
    diag_error(&c->diag, x ? ERR_NO_SUCH_KERNEL : ERR_BAD_REQUEST, (Span){0},
               x ? "dpia explore works on one kernel: name it with -k; %s" : "an exploration needs its request%s",
               x ? kernel_names(c) : "");
    return x ? DPIA_EUSER : DPIA_EUSAGE;
  }
  if (!search_sizes_given(c, k, def, "explored", ERR_EXPLORE_BAD_REQUEST, NULL, 0)) return DPIA_EUSER;
  Explorer e = {.c = c, .k = k, .x = x};
  clock_gettime(CLOCK_MONOTONIC, &e.start);
  e.budget = x->budget_s > 0 ? x->budget_s : DEFAULT_BUDGET_S;
  e.whole = is_reduce(k->body);
  c->arena->limit = 0; /* the candidates' programs add up; each translation has its own limit */
  e.inputs.mem = *c->arena->mem;
  arena_init(&e.inputs.arena, &e.inputs.mem);
  slot_values(&e);
  enumerate(&e);
  search(&e);
  Candidate **ranked = NEWARRAY(c->arena, Candidate *, e.ncands ? e.ncands : 1);
  for (int i = 0; i < e.ncands; i++) ranked[i] = &e.cands[i];
  qsort(ranked, (size_t)e.ncands, sizeof *ranked, by_time);
  retime(&e, ranked, e.ncands);
  arena_free(&e.inputs.arena); /* the checks make their own, as dpia run --check */
  qsort(ranked, (size_t)e.ncands, sizeof *ranked, by_time);
  Candidate *best = check_best(&e, ranked, e.ncands);
  report(&e, ranked, e.ncands, best);
  if (e.evaluator_failed) {
    diag_error(&c->diag, ERR_EXPLORE_EVALUATOR_FAILED, k->name_span,
               "the evaluator of kernel '%s''s candidates failed (DpiaExplore.evaluate returned non-zero): the search "
               "stopped after %d of %d strategies tried",
               k->name, e.tried, e.ncands);
    return DPIA_EUSER;
  }
  if (!best && e.not_checkable) {
    /* as dpia run --check says it (run.c): the inputs, not a strategy */
    diag_error(&c->diag, ERR_NOT_CHECKABLE, k->name_span,
               "kernel '%s' cannot be checked on the inputs of seed %llu, whatever its strategy, so none is "
               "chosen: %s",
               k->name, (unsigned long long)c->opt->seed,
               e.not_checkable_why ? e.not_checkable_why
                                   : "the reference is not finite (the inputs are outside the program's domain), all "
                                     "zeros, or an int operation overflows; try --inputs=positive (or --inputs=unit)");
    return DPIA_EVERIFY;
  }
  if (!best) {
    int untimed = 0;
    for (int i = 0; i < e.ncands; i++) untimed += e.cands[i].state == CAND_NOT_TIMED;
    diag_error(&c->diag, ERR_EXPLORE_NOTHING_FOUND, k->name_span,
               "no strategy for kernel '%s' checks, runs and agrees with the reference interpreter within %s (%d of "
               "%d strategies tried%s)",
               k->name,
               tries_spent(&e) ? arena_printf(c->arena, "--tries %d", e.x->max_tries)
                               : arena_printf(c->arena, "%g s", e.budget),
               e.tried, e.ncands,
               untimed ? arena_printf(c->arena, "; %d not timed: every launch has no work-item at these sizes", untimed)
                       : "");
    return DPIA_EUSER;
  }
  c->explored = best_program(&e, best);
  return DPIA_OK;
}
