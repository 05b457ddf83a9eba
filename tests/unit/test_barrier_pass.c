/* test_barrier_pass.c: the barrier pass (codegen/barrier_pass.c) on
 * hand-built kernel bodies with barrier sites (kir.h, KirSite): the
 * barriers it places for each rule of docs/architecture.md "Barriers",
 * their fences and comments, the barriers for PoCL 3.1 with and without a
 * backend that opts out of them, and the three E0604 cases.
 *
 * Prints `barrier-pass: P passed, F failed` and exits non-zero if
 * anything failed. */
#include <string.h>

#include "kir.h"
#include "unit_env.h"

static int passed, failed;

static void expect(bool ok, int line, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "test_barrier_pass.c:%d: FAILED: %s\n", line, what);
  }
}
#define EXPECT(cond) expect((cond), __LINE__, #cond)

static Arena *A;
static const KirBuffer LOC = {"loc", NULL, KSP_LOCAL}, GLOB = {"tmp", NULL, KSP_GLOBAL};

/* ---- building a body ---- */

/* the accesses of the last command, which its statements made: recorded
 * on the next site, as the lowering does */
static const KirBuffer *noted_read, *noted_write;

static KirSite *site(KirBlock *b, KirSiteKind kind) {
  KirSite *s = NEW(A, KirSite);
  *s = (KirSite){.kind = kind};
  KirAccess *xs = NEWARRAY(A, KirAccess, 2);
  if (noted_read) xs[s->naccesses++] = (KirAccess){noted_read, false};
  if (noted_write) xs[s->naccesses++] = (KirAccess){noted_write, true};
  s->accesses = xs;
  noted_read = noted_write = NULL;
  KirStmt *st = kir_stmt(A, KS_BARRIER);
  st->barrier.site = s;
  kir_append(b, st);
  return s;
}

static KirBufferSet set_of(const KirBuffer *b) {
  KirBufferSet s = {0};
  if (b) vec_push(A, &s, (void *)b);
  return s;
}

/* a command reading r and writing w (NULL: nothing): its site, then its
 * statement (last_site: the site) */
static KirSite *last_site;

static KirStmt *command(KirBlock *b, const KirBuffer *r, const KirBuffer *w, KirLevel level) {
  KirSite *s = site(b, KSITE_COMMAND);
  s->reads = set_of(r);
  s->writes = set_of(w);
  s->level = level;
  s->what = level == KL_GLOBAL ? "parforGlobal" : level == KL_WORKGROUP ? "parforWorkgroup" : "parforLocal";
  last_site = s;
  KirStmt *st = kir_stmt(A, KS_COMMENT);
  st->text = "the command";
  kir_append(b, st);
  noted_read = r, noted_write = w;
  return st;
}

static KirSite *parfor(KirBlock *b, KirLevel level, KirForm form) {
  KirSite *s = site(b, KSITE_PARFOR);
  s->level = level;
  s->form = form;
  return s;
}

static KirSite *end(KirBlock *b, KirSiteKind kind) { return site(b, kind); }

/* a loop statement (a parallel loop's, or a sequential one) */
static KirBlock *loop(KirBlock *b) {
  KirStmt *f = kir_stmt(A, KS_FOR);
  f->loop.var = "i";
  kir_append(b, f);
  return &f->loop.body;
}

/* a parforLocal, exactly once, whose body writes w */
static void local_stage(KirBlock *b, const KirBuffer *w) {
  command(b, NULL, w, KL_LOCAL);
  parfor(b, KL_LOCAL, KF_ONCE);
  command(b, NULL, w, KL_NONE);
  end(b, KSITE_PARFOR_END);
}

/* ---- reading the result ---- */

static int count_barriers(const KirBlock *b) {
  int n = 0;
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_BARRIER) n++;
    KirBlock *body = kir_body((KirStmt *)s);
    if (body) n += count_barriers(body);
  }
  return n;
}

static bool no_sites(const KirBlock *b) {
  for (const KirStmt *s = b->first; s; s = s->next) {
    if (s->kind == KS_BARRIER && s->barrier.site) return false;
    KirBlock *body = kir_body((KirStmt *)s);
    if (body && !no_sites(body)) return false;
  }
  return true;
}

/* the statement before s in b (NULL: s is first or not in b) */
static const KirStmt *before(const KirBlock *b, const KirStmt *s) {
  for (const KirStmt *x = b->first; x && x->next; x = x->next)
    if (x->next == s) return x;
  return NULL;
}

static Diag *D;

static KirKernel *kernel(void) {
  KirKernel *k = NEW(A, KirKernel);
  *k = (KirKernel){.name = "k"};
  return k;
}

static bool place(KirKernel *k, bool pocl) {
  bool ok = kir_place_barriers(A, D, k, 1, pocl, false);
  EXPECT(no_sites(&k->body));
  return ok;
}

static bool reported(const char *text) {
  Buf b;
  buf_init(&b, A);
  diag_render_text(D, &b);
  return b.data && strstr(b.data, text) && strstr(b.data, "E0604");
}

int main(void) {
  UnitEnv env;
  UNIT_ENV_INIT(&env, "test_barrier_pass");
  A = &env.arena;
  D = &env.diag;

  /* read after write in a group body: one barrier fencing local memory
   * just before the reader */
  KirKernel *k = kernel();
  parfor(&k->body, KL_WORKGROUP, KF_ONCE);
  local_stage(&k->body, &LOC);
  KirStmt *reader = command(&k->body, &LOC, NULL, KL_NONE);
  end(&k->body, KSITE_PARFOR_END);
  EXPECT(place(k, true));
  const KirStmt *b = before(&k->body, reader);
  EXPECT(count_barriers(&k->body) == 1);
  EXPECT(b && b->kind == KS_BARRIER && b->barrier.local && !b->barrier.global && !b->comment);

  /* a work-item reads back its own writes in its loop's body: none */
  k = kernel();
  parfor(&k->body, KL_WORKGROUP, KF_ONCE);
  command(&k->body, NULL, &LOC, KL_LOCAL);
  parfor(&k->body, KL_LOCAL, KF_ONCE);
  command(&k->body, NULL, &LOC, KL_NONE);
  command(&k->body, &LOC, NULL, KL_NONE);
  end(&k->body, KSITE_PARFOR_END);
  end(&k->body, KSITE_PARFOR_END);
  EXPECT(place(k, true));
  EXPECT(count_barriers(&k->body) == 0);

  /* write after read: a global buffer read by all, then written by a
   * stage: a barrier fencing global memory */
  k = kernel();
  parfor(&k->body, KL_WORKGROUP, KF_ONCE);
  command(&k->body, &GLOB, NULL, KL_NONE);
  local_stage(&k->body, &GLOB);
  end(&k->body, KSITE_PARFOR_END);
  EXPECT(place(k, true));
  EXPECT(count_barriers(&k->body) == 1 && k->body.first->kind == KS_COMMENT &&
         k->body.first->next->kind == KS_BARRIER && k->body.first->next->barrier.global &&
         !k->body.first->next->barrier.local);

  /* a sequential loop whose body's stage writes local memory again in
   * the next iteration, not indexed by the loop's variable, and that has
   * no other barrier: one at the top of its body, saying why; none when
   * the loop's variable tells the iterations' writes apart */
  for (int indexed = 0; indexed < 2; indexed++) {
    k = kernel();
    parfor(&k->body, KL_WORKGROUP, KF_ONCE);
    command(&k->body, NULL, NULL, KL_NONE);
    KirBlock *body = loop(&k->body);
    local_stage(body, &LOC);
    KirSite *le = end(body, KSITE_LOOP_END);
    le->writes = set_of(&LOC);
    le->unindexed = set_of(indexed ? NULL : &LOC);
    end(&k->body, KSITE_PARFOR_END);
    EXPECT(place(k, true));
    EXPECT(count_barriers(&k->body) == !indexed);
    if (!indexed)
      EXPECT(body->first->kind == KS_BARRIER && body->first->barrier.local && body->first->comment &&
             strcmp(body->first->comment, "the previous iteration is done with 'loc'") == 0);
  }

  /* The pointwise rule through nested levels (codegen/own_elements.c): a
   * loop whose body's two-dimensional parforLocal reads and writes
   * acc[l1*8 + l0] (a work-group's accumulator updated in place), with
   * the local size fixed at (8, 4), needs no barrier between its steps;
   * one does when the index is not one-to-one on the work-items (l1 + l0:
   * (1, 0) and (0, 1) share), when the read is another element than the
   * write, when the index reads a loop's variable of unknown range (i,
   * whose loop here has no bounds), when the local size is not fixed, or
   * when the buffer's variable is not known. */
  static const KirBuffer ACC = {"acc", "acc", KSP_LOCAL}, ACC_UNNAMED = {"acc", NULL, KSP_LOCAL};
  enum { ONE_TO_ONE, SUM, OTHER_READ, LOOP_VAR, NO_LOCAL_SIZE, UNNAMED, NCASES };
  for (int c = 0; c < NCASES; c++) {
    IxCtx x;
    ix_init(&x, A);
    const KirBuffer *acc = c == UNNAMED ? &ACC_UNNAMED : &ACC;
    k = kernel();
    k->reqd_local = c != NO_LOCAL_SIZE;
    k->local_size[0] = 8, k->local_size[1] = 4, k->local_size[2] = 1;
    parfor(&k->body, KL_WORKGROUP, KF_ONCE);
    command(&k->body, NULL, NULL, KL_NONE);
    KirBlock *body = loop(&k->body);
    command(body, acc, acc, KL_LOCAL);
    parfor(body, KL_LOCAL, KF_ONCE);
    const char *ids[2] = {"l0", "l1"};
    for (int d = 1; d >= 0; d--) {
      KirStmt *decl = kir_stmt(A, KS_DECL);
      decl->decl.name = ids[d];
      decl->decl.type = kir_scalar1(SC_INT);
      decl->decl.array_len = -1;
      decl->decl.init = kir_query(A, KQ_LOCAL_ID, d);
      kir_append(body, decl);
    }
    const Ix *l0 = ix_var(&x, "l0"), *l1 = ix_var(&x, "l1");
    const Ix *at = c == SUM ? ix_add(&x, l1, l0) : ix_add(&x, ix_mul(&x, l1, ix_const(&x, 8)), l0);
    const Ix *read_at = c == OTHER_READ ? ix_add(&x, at, ix_const(&x, 32))
                        : c == LOOP_VAR ? ix_add(&x, at, ix_mul(&x, ix_var(&x, "i"), ix_const(&x, 32)))
                                        : at;
    const KirExpr *base = kir_var(A, "acc", kir_pointer_type(A, kir_scalar1(SC_FLOAT), KSP_LOCAL, false));
    KirStmt *update = kir_stmt(A, KS_ASSIGN);
    update->assign.lhs = kir_index(A, base, kir_ix(A, at));
    update->assign.rhs = kir_index(A, base, kir_ix(A, read_at));
    kir_append(body, update);
    noted_read = noted_write = acc;
    end(body, KSITE_PARFOR_END);
    KirSite *le = end(body, KSITE_LOOP_END);
    le->reads = set_of(acc);
    le->writes = set_of(acc);
    le->unindexed = set_of(acc);
    end(&k->body, KSITE_PARFOR_END);
    EXPECT(place(k, true));
    EXPECT(count_barriers(body) == (c != ONE_TO_ONE));
  }

  /* The same with a sequential loop's variable in the index, its range
   * known from its loop (own_elements.c, collect_ranges): with the local
   * size 8, work-item l0 reading acc[l0*8 + j] in `for (j = 0; j < i;
   * j++)` inside the steps `for (i = 0; i < I; i++)` (a row of its own,
   * lud_diagonal's first phase) and writing acc[l0*8] needs no barrier
   * between the steps when j stays below 8 (I = 9), one when it reaches
   * the next work-item's row (I = 10), and one when the inner bound's
   * variable is bound otherwise too (a declaration of i before the loop,
   * which a kernel would not have: a name bound otherwise has no range),
   * and one when j's range is the hull of its loops' (a loop of j from 0
   * to 1 before, after a declaration, I = 10: own_elements.c keeps a
   * name's range at the index of its id entry, and the second loop of j
   * must widen j's, not the entry before it). */
  static const KirBuffer ROW = {"acc", "acc", KSP_LOCAL};
  enum { IN_ROW, PAST_ROW, BOUND_DECLARED, PAST_ROW_REBOUND, NROWCASES };
  for (int c = 0; c < NROWCASES; c++) {
    IxCtx x;
    ix_init(&x, A);
    k = kernel();
    k->reqd_local = true;
    k->local_size[0] = 8, k->local_size[1] = 1, k->local_size[2] = 1;
    parfor(&k->body, KL_WORKGROUP, KF_ONCE);
    command(&k->body, NULL, NULL, KL_NONE);
    if (c == BOUND_DECLARED) {
      KirStmt *decl = kir_stmt(A, KS_DECL);
      decl->decl.name = "i";
      decl->decl.type = kir_scalar1(SC_INT);
      decl->decl.array_len = -1;
      decl->decl.init = kir_int(A, 3);
      kir_append(&k->body, decl);
    }
    if (c == PAST_ROW_REBOUND) {
      KirStmt *decl = kir_stmt(A, KS_DECL);
      decl->decl.name = "t";
      decl->decl.type = kir_scalar1(SC_INT);
      decl->decl.array_len = -1;
      decl->decl.init = kir_int(A, 3);
      kir_append(&k->body, decl);
      KirStmt *before = kir_stmt(A, KS_FOR);
      before->loop.var = "j";
      before->loop.init = kir_int(A, 0);
      before->loop.bound = kir_int(A, 2);
      before->loop.step = kir_int(A, 1);
      kir_append(&k->body, before);
    }
    KirBlock *steps = loop(&k->body);
    KirStmt *outer = k->body.last;
    outer->loop.init = kir_int(A, 0);
    outer->loop.bound = kir_int(A, c == PAST_ROW || c == PAST_ROW_REBOUND ? 10 : 9);
    outer->loop.step = kir_int(A, 1);
    command(steps, &ROW, &ROW, KL_LOCAL);
    parfor(steps, KL_LOCAL, KF_ONCE);
    KirStmt *decl = kir_stmt(A, KS_DECL);
    decl->decl.name = "l0";
    decl->decl.type = kir_scalar1(SC_INT);
    decl->decl.array_len = -1;
    decl->decl.init = kir_query(A, KQ_LOCAL_ID, 0);
    kir_append(steps, decl);
    KirStmt *inner = kir_stmt(A, KS_FOR);
    inner->loop.var = "j";
    inner->loop.init = kir_int(A, 0);
    inner->loop.bound = kir_ix(A, ix_var(&x, "i"));
    inner->loop.step = kir_int(A, 1);
    kir_append(steps, inner);
    const Ix *row = ix_mul(&x, ix_var(&x, "l0"), ix_const(&x, 8));
    const KirExpr *base = kir_var(A, "acc", kir_pointer_type(A, kir_scalar1(SC_FLOAT), KSP_LOCAL, false));
    KirStmt *update = kir_stmt(A, KS_ASSIGN);
    update->assign.lhs = kir_index(A, base, kir_ix(A, row));
    update->assign.rhs = kir_index(A, base, kir_ix(A, ix_add(&x, row, ix_var(&x, "j"))));
    kir_append(&inner->loop.body, update);
    noted_read = noted_write = &ROW;
    end(steps, KSITE_PARFOR_END);
    KirSite *le = end(steps, KSITE_LOOP_END);
    le->reads = set_of(&ROW);
    le->writes = set_of(&ROW);
    le->unindexed = set_of(&ROW);
    end(&k->body, KSITE_PARFOR_END);
    EXPECT(place(k, true));
    EXPECT(count_barriers(steps) == (c != IN_ROW));
  }

  /* PoCL 3.1: in a work-group loop, a parforLocal after a single writer's
   * guard gets a barrier; a backend that opts out gets none, nothing
   * else needing one */
  for (int pocl = 0; pocl < 2; pocl++) {
    k = kernel();
    command(&k->body, NULL, NULL, KL_WORKGROUP);
    parfor(&k->body, KL_WORKGROUP, KF_LOOP);
    KirBlock *g = loop(&k->body);
    command(g, NULL, &GLOB, KL_NONE);
    site(g, KSITE_SOLO)->group = true;
    command(g, NULL, &GLOB, KL_NONE);
    end(g, KSITE_SOLO_END);
    local_stage(g, &LOC);
    end(g, KSITE_PARFOR_END);
    EXPECT(place(k, pocl));
    EXPECT(count_barriers(&k->body) == pocl);
    if (pocl) {
      const KirStmt *x = g->first;
      while (x && x->kind != KS_BARRIER) x = x->next;
      EXPECT(x && x->barrier.local && x->barrier.global && x->comment && strstr(x->comment, "PoCL 3.1"));
    }
  }
  EXPECT(D->nerrors == 0);

  /* E0604, divergent: a read of a stage's writes inside a parforLocal
   * that loops (not every work-item gets there equally often) */
  k = kernel();
  parfor(&k->body, KL_WORKGROUP, KF_ONCE);
  local_stage(&k->body, &LOC);
  command(&k->body, NULL, NULL, KL_LOCAL);
  parfor(&k->body, KL_LOCAL, KF_LOOP);
  command(&k->body, &LOC, NULL, KL_NONE);
  end(&k->body, KSITE_PARFOR_END);
  end(&k->body, KSITE_PARFOR_END);
  EXPECT(!place(k, true));
  EXPECT(reported("this reads 'loc', written by other work-items of the group before it"));

  /* E0604 across work-groups: what a parforGlobal writes, read after it,
   * or before it in a loop that runs again */
  for (int again = 0; again < 2; again++) {
    diag_init(D, A);
    k = kernel();
    KirBlock *at = again ? loop(&k->body) : &k->body;
    if (again) command(at, &GLOB, NULL, KL_NONE);
    command(at, NULL, &GLOB, KL_GLOBAL);
    parfor(at, KL_GLOBAL, KF_ONCE);
    command(at, NULL, &GLOB, KL_NONE);
    end(at, KSITE_PARFOR_END);
    if (!again) command(at, &GLOB, NULL, KL_NONE);
    EXPECT(!place(k, true));
    EXPECT(reported("'tmp' written by this parforGlobal is read later in the same kernel"));
  }
  /* but not what its own body reads back */
  diag_init(D, A);
  k = kernel();
  KirBlock *body = loop(&k->body);
  command(body, &GLOB, &GLOB, KL_GLOBAL);
  parfor(body, KL_GLOBAL, KF_ONCE);
  command(body, &GLOB, &GLOB, KL_NONE);
  end(body, KSITE_PARFOR_END);
  EXPECT(place(k, true));
  EXPECT(D->nerrors == 0);

  /* E0604, one writer over the NDRange whose writes are read after it;
   * the code under its guard leaves nothing pending */
  diag_init(D, A);
  k = kernel();
  command(&k->body, NULL, &GLOB, KL_NONE);
  last_site->one_writer = true;
  site(&k->body, KSITE_SOLO);
  command(&k->body, NULL, &GLOB, KL_NONE);
  end(&k->body, KSITE_SOLO_END);
  command(&k->body, &GLOB, NULL, KL_NONE);
  EXPECT(!place(k, true));
  EXPECT(D->nerrors == 1 && reported("'tmp' is computed once, by one work-item, and read later by the others"));
  printf("barrier-pass: %d passed, %d failed\n", passed, failed);
  arena_free(A);
  return failed ? 1 : 0;
}
