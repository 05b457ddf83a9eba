/* test_race.c: the race check (verify/race.h) on a kernel translated as
 * the driver translates it, then on wrong versions of its kernel IR: with
 * its barriers left out it must find a race (E0008's finding), with its
 * output written from a wrong value or not at all it must find other
 * values than the reference's (the second semantic check, of the code
 * emitted), and as generated it must pass, at every launch of `dpia
 * verify` and at the one launch of a quick check.
 *
 * Prints `race: P passed, F failed` and exits non-zero if anything
 * failed. */
#include <string.h>

#include "dpia_codegen.h"
#include "race.h"
#include "translate.h"
#include "unit_env.h"

/* a toLocal stage read back by other work-items: a barrier between */
static const char program[] =
    "kernel pairSums (N: nat) (xs: [N]float) =\n"
    "  xs |> split 8 |> mapWorkgroup (\\c -> c |> toLocal (mapLocal (\\x -> x * 2.0)) |> split 2\n"
    "     |> mapLocal (\\p -> p |> reduceSeq (\\x a -> x + a) 0.0)) |> join\n";

static int passed, failed;

static void expect(bool ok, int line, const char *what, const char *msg) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "test_race.c:%d: FAILED: %s\n  message: %s\n", line, what, msg);
  }
}
#define EXPECT(cond, msg) expect((cond), __LINE__, #cond, (msg))

/* the last assignment of the body, wherever it is nested */
static KirStmt *last_assign(KirBlock *b) {
  KirStmt *found = NULL;
  for (KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_ASSIGN) found = s;
    KirBlock *body = kir_body(s);
    KirStmt *inner = body ? last_assign(body) : NULL;
    if (inner) found = inner;
  }
  return found;
}

/* a copy of the body's statements (expressions shared), so that one can
 * be changed */
static void copy_block(Arena *a, const KirBlock *from, KirBlock *to) {
  *to = (KirBlock){0};
  for (const KirStmt *s = from->first; s; s = s->next) {
    KirStmt *c = NEW(a, KirStmt);
    *c = *s;
    c->next = NULL;
    KirBlock *body = kir_body(c);
    if (body) copy_block(a, kir_body((KirStmt *)s), body);
    kir_append(to, c);
  }
}

static KirKernel *copy_kernel(Arena *a, const KirKernel *k) {
  KirKernel *c = NEW(a, KirKernel);
  *c = *k;
  copy_block(a, &k->body, &c->body);
  return c;
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_race");
  Arena *a = &env.arena;
  Source src;
  source_init(&src, a, "race.dpia", program, strlen(program));
  Program *p = parse_program(a, &env.in, &env.diag, &src);
  CheckedProgram *cp = env.diag.nerrors ? NULL : check_program(a, &env.in, &env.diag, &env.tc, p);
  DefInfo *def = cp && !env.diag.nerrors ? cp->defs[0] : NULL;
  Phrase *body = def ? normalize_def(a, &env.tc, &env.diag, def) : NULL;
  DefInfo *imp = NULL;
  ImpKernel *k = NULL;
  KernelFacts facts = {0};
  if (body) {
    DefInfo *inter = translate_stage1(a, &env.tc, &env.in, def, body);
    DefInfo *impv = translate_stage2(a, &env.tc, &env.in, &env.diag, inter);
    imp = impv ? translate_hoist(a, &env.tc, &env.in, &env.diag, impv) : NULL;
    k = imp ? kernel_from_def(a, &env.tc, &env.diag, backend_of(TARGET_OPENCL), imp, "race.dpia") : NULL;
    Buf text;
    buf_init(&text, a);
    if (k && !codegen_kernel(a, &env.tc, k, NULL, &text, &facts)) k = NULL;
  }
  if (!k || !facts.printed_kir || env.diag.nerrors) {
    Buf b;
    buf_init(&b, a);
    diag_render_text(&env.diag, &b);
    fprintf(stderr, "test_race: the test program does not translate:\n%s", b.data ? b.data : "");
    return 1;
  }
  SemanticSample sample;
  Buf msg;
  buf_init(&msg, a);
  SemStatus ss = semantic_check(a, def, body, imp, &SEMANTIC_BUDGET_THOROUGH, &sample, &msg);
  EXPECT(ss == SEM_OK, msg.data);
  CodegenOptions none = {0};
  RaceKernel rk = {.tc = &env.tc,
                   .k = k,
                   .user = &none,
                   .kir = kernel_facts_kir(&facts),
                   .def = def,
                   .body = body,
                   .imp = imp,
                   .semantic = &SEMANTIC_BUDGET_THOROUGH};
  /* as generated: every launch passes */
  buf_clear(&msg);
  RaceStatus st = race_check(a, &rk, &sample, &RACE_BUDGET_THOROUGH, &msg);
  EXPECT(st == RACE_OK, msg.data);
  EXPECT(strstr(msg.data, "no race") && strstr(msg.data, "at N=8 in launches global 8 local 8; global 4 local 4"),
         msg.data);
  buf_clear(&msg);
  st = race_check(a, &rk, &sample, &RACE_BUDGET_QUICK, &msg);
  EXPECT(st == RACE_OK, msg.data);
  /* its barrier left out: the pairs read what other work-items write */
  rk.drop_barriers = true;
  buf_clear(&msg);
  st = race_check(a, &rk, &sample, &RACE_BUDGET_QUICK, &msg);
  EXPECT(st == RACE_FOUND, msg.data);
  EXPECT(strstr(msg.data, "kernel 'pairSums' at N=8, launch global 8 local 8 (the code emitted): race on 'loc'"),
         msg.data);
  rk.drop_barriers = false;
  /* the result written from a wrong value */
  KirKernel *wrong = copy_kernel(a, kernel_facts_kir(&facts));
  KirStmt *out = last_assign(&wrong->body);
  EXPECT(out != NULL, "no assignment");
  if (out) out->assign.rhs = kir_lit(a, (KirLit){SC_FLOAT, 0, 0.5});
  rk.kir = wrong;
  buf_clear(&msg);
  st = race_check(a, &rk, &sample, &RACE_BUDGET_QUICK, &msg);
  EXPECT(st == RACE_MISMATCH, msg.data);
  EXPECT(strstr(msg.data, "computes other values than the reference interpreter") && strstr(msg.data, "got 0.5"),
         msg.data);
  /* not written at all: the output's poison shows */
  wrong = copy_kernel(a, kernel_facts_kir(&facts));
  out = last_assign(&wrong->body);
  if (out) out->kind = KS_COMMENT, out->text = "left out";
  rk.kir = wrong;
  buf_clear(&msg);
  st = race_check(a, &rk, &sample, &RACE_BUDGET_QUICK, &msg);
  EXPECT(st == RACE_MISMATCH && strstr(msg.data, "got nan"), msg.data);
  printf("race: %d passed, %d failed\n", passed, failed);
  arena_free(a);
  return failed ? 1 : 0;
}
