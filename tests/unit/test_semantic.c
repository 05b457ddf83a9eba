/* test_semantic.c: the semantic check of `dpia verify` (verify/semantic.h)
 * on deliberately wrong imperative programs.
 *
 * The "translations" here are written by hand as imperative defs next to
 * the functional kernel they claim to implement, checked by the same
 * checker (so they are well-typed imperative DPIA), and given to
 * semantic_check in place of the translator's output.  This injects
 * translation bugs without a hook in the library:
 *   - the defect: a pair accumulator updated component by
 *     component, the second reading the already-updated first (the
 *     compound assignment expanded in the wrong way);
 *   - a race: a parallel loop reading elements of the array it writes,
 *     which the increasing order happens to get right and the decreasing
 *     order does not;
 * and checks that the correct hand translations pass.  No OpenCL device is
 * involved.  Prints `semantic: P passed, F failed`. */
#include <stdio.h>
#include <string.h>

#include "unit_env.h"
#include "semantic.h"

static const char program[] =
    "kernel pairs (N: nat) (xs: [N]float) =\n"
    "  xs |> split 2 |> mapGlobal (\\c -> c |> reduceSeq (\\x a -> (snd a + x, fst a * x)) (0.0, 1.0) |> (\\p -> fst p))\n"
    "\n"
    "def pairsRight (N: nat) (output: acc[[N/2]float]) (xs: exp[[N]float]) =\n"
    "  parforGlobal output (\\gid o ->\n"
    "    newPrivate (float, float) (\\acc ->\n"
    "      pairAcc1 acc.1 := 0.0;\n"
    "      pairAcc2 acc.1 := 1.0;\n"
    "      for 2 (\\i ->\n"
    "        newPrivate (float, float) (\\t ->\n"
    "          pairAcc1 t.1 := snd acc.2 + idx (idx (split 2 xs) gid) i;\n"
    "          pairAcc2 t.1 := fst acc.2 * idx (idx (split 2 xs) gid) i;\n"
    "          pairAcc1 acc.1 := fst t.2;\n"
    "          pairAcc2 acc.1 := snd t.2));\n"
    "      o := fst acc.2))\n"
    "\n"
    "def pairsWrong (N: nat) (output: acc[[N/2]float]) (xs: exp[[N]float]) =\n"
    "  parforGlobal output (\\gid o ->\n"
    "    newPrivate (float, float) (\\acc ->\n"
    "      pairAcc1 acc.1 := 0.0;\n"
    "      pairAcc2 acc.1 := 1.0;\n"
    "      for 2 (\\i ->\n"
    "        pairAcc1 acc.1 := snd acc.2 + idx (idx (split 2 xs) gid) i;\n"
    "        pairAcc2 acc.1 := fst acc.2 * idx (idx (split 2 xs) gid) i);\n"
    "      o := fst acc.2))\n"
    "\n"
    "kernel shifted (N: nat) (xs: [N]float) = xs |> padClamp 0 1 |> drop 1 |> mapGlobal (\\x -> x * 2.0)\n"
    "\n"
    "def shiftedRight (N: nat) (output: acc[[N]float]) (xs: exp[[N]float]) (tmp: var[[N]float]) =\n"
    "  parforGlobal tmp.1 (\\i o -> o := idx xs i);\n"
    "  parforGlobal output (\\i o -> o := idx (drop 1 (padClamp 0 1 tmp.2)) i * 2.0)\n"
    "\n"
    "def shiftedUnwritten (N: nat) (output: acc[[N]float]) (xs: exp[[N]float]) (tmp: var[[N]float]) =\n"
    "  parforGlobal output (\\i o -> o := idx (drop 1 (padClamp 0 1 tmp.2)) i * 2.0);\n"
    "  parforGlobal tmp.1 (\\i o -> o := idx xs i)\n";

/* A race SCIR rejects (tmp written and read by the same parfor): the
 * hoisted program is not checked again under SCIR (driver.c, pass_recheck
 * checks the program before hoisting), so a hoisting bug could produce
 * such a program; the semantic check must catch it even so.  The checker's
 * error is expected and the elaborated def used anyway. */
static const char racy_program[] =
    "def shiftedRacy (N: nat) (output: acc[[N]float]) (xs: exp[[N]float]) (tmp: var[[N]float]) =\n"
    "  parforGlobal tmp.1 (\\i o -> o := idx xs i);\n"
    "  parforGlobal tmp.1 (\\i o -> o := idx (drop 1 (padClamp 0 1 tmp.2)) i * 2.0);\n"
    "  parforGlobal output (\\i o -> o := idx tmp.2 i)\n";

typedef struct Case {
  const char *kernel, *imperative;
  SemStatus expect;
  const char *const *needles; /* substrings the message must hold */
} Case;

static DefInfo *find(CheckedProgram *cp, const char *name) {
  for (int i = 0; i < cp->ndefs; i++)
    if (strcmp(cp->defs[i]->name, name) == 0) return cp->defs[i];
  return NULL;
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_semantic");
  CheckedProgram *cp = unit_check_text(&env, "semantic.dpia", program, strlen(program));
  if (env.diag.nerrors) {
    Buf b;
    buf_init(&b, &env.arena);
    diag_render_text(&env.diag, &b);
    fprintf(stderr, "test_semantic: the test program does not check:\n%s", b.data);
    arena_free(&env.arena);
    return 1;
  }
  Diag racy_diag;
  diag_init(&racy_diag, &env.arena);
  Source racy_src;
  source_init(&racy_src, &env.arena, "racy.dpia", racy_program, strlen(racy_program));
  Program *rp = parse_program(&env.arena, &env.in, &racy_diag, &racy_src);
  CheckedProgram *rcp = check_program(&env.arena, &env.in, &racy_diag, &env.tc, rp);
  if (racy_diag.nerrors != 1 || !strstr(racy_diag.first->message, "SCIR") || !rcp->defs[0]->body) {
    fprintf(stderr, "test_semantic: the racy program should elaborate with one SCIR error\n");
    arena_free(&env.arena);
    return 1;
  }
  static const char *const right[] = {"the reference's values", "N=2", "N=4", NULL};
  static const char *const pairs_wrong[] = {"kernel 'pairs'", "at N=2", "increasing order",
                                            "first difference at element 0 of 1: got ", ", expected ", NULL};
  static const char *const racy[] = {"kernel 'shifted'", "at N=2", "decreasing order",
                                     "first difference at element 0 of 2: got ", ", expected ", NULL};
  static const char *const unwritten[] = {"kernel 'shifted'", "first difference at element 0", "got nan", NULL};
  const Case cases[] = {
      {"pairs", "pairsRight", SEM_OK, right},
      {"pairs", "pairsWrong", SEM_MISMATCH, pairs_wrong},
      {"shifted", "shiftedRight", SEM_OK, (const char *const[]){"at N=1 and at N=2", NULL}},
      {"shifted", "shiftedRacy", SEM_MISMATCH, racy},
      {"shifted", "shiftedUnwritten", SEM_MISMATCH, unwritten},
  };
  int passed = 0, failed = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const Case *c = &cases[i];
    DefInfo *k = find(cp, c->kernel), *imp = find(cp, c->imperative);
    if (!imp) imp = find(rcp, c->imperative);
    Phrase *body = k ? normalize_def(&env.arena, &env.tc, &env.diag, k) : NULL;
    if (!k || !imp || !body) {
      fprintf(stderr, "test_semantic: %s/%s: missing\n", c->kernel, c->imperative);
      failed++;
      continue;
    }
    Buf msg;
    buf_init(&msg, &env.arena);
    SemStatus st = semantic_check(&env.arena, k, body, imp, &SEMANTIC_BUDGET_QUICK, NULL, &msg);
    bool ok = st == c->expect;
    for (const char *const *n = c->needles; ok && *n; n++) ok = strstr(msg.data, *n) != NULL;
    if (ok) {
      passed++;
    } else {
      failed++;
      fprintf(stderr, "test_semantic: %s checked against %s: status %d (expected %d): %s\n", c->imperative,
              c->kernel, (int)st, (int)c->expect, msg.data);
    }
  }
  printf("semantic: %d passed, %d failed\n", passed, failed);
  arena_free(&env.arena);
  return failed ? 1 : 0;
}
