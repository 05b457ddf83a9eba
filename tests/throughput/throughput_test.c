/* throughput_test.c: the shortcuts taken for translation throughput
 * (bench/throughput.c) change no output.
 *
 *   emit      emit() formats its fast-path conversions (%s %c %d %u %ld %lu
 *             %lld %llu %zu %zd %%) exactly as snprintf does, and hands
 *             everything else to vsnprintf (widths, flags, %x, %g...),
 *             including texts longer than the buffer's room
 *   arena     arena_alloc and arena_dup (inline fast paths) return zeroed,
 *             aligned, distinct memory, big objects and limits included
 *   natural   codegen_kernel without user launch sizes returns the text of
 *             kernel_from_def's dry run: it must equal a fresh generation
 *             with zero launch sizes, for every imperative def of the given
 *             files and for the imperative programs of the given kernels
 *
 *   unroll    the steps of loops written out copied from one lowering of
 *             their body (codegen/unroll_step.c) give the text of each
 *             step lowered on its own (CodegenOptions.unroll_directly), for
 *             every imperative def of the given files (and of the .dpia
 *             files in the given directories) and the imperative programs
 *             of their kernels; some steps must have been copied, and
 *             each step after step 0 of two of bench/variants.py's
 *             chunk-16 kernels
 *
 *   sites     the reads of each barrier site's command, kept from one walk
 *             of the body with each variable once in its innermost command
 *             (codegen/barriers.c), and a loop end's writes and unindexed
 *             writes, found in one walk of its body, give the text of each
 *             site's command walked anew by a plain walk of its own, every
 *             occurrence noted, and a walk for each of the loop end's sets
 *             (CodegenOptions.scan_each_site), for every imperative def of
 *             the given files and directories and their kernels' programs
 *
 *   record    each command site's reads and writes recorded from the
 *             shared accesses its code makes (codegen/barriers.c) are
 *             those its command's scans find (a plain walk of its phrase,
 *             CodegenOptions.compare_sites), site by site, with the
 *             shortcuts and without, of each def as parsed and with its
 *             equal applications one phrase, and the text is the same
 *             with the comparison as without, for every imperative def of
 *             the given files and directories, their kernels' programs
 *             and two toLocal dot products of bench/variants.py
 *
 *   shortcuts the passes and scans skipped where a precondition shows
 *             they find or change nothing (a kernel whose readable
 *             variables reach no shared memory: no reads scanned at its
 *             barrier sites, codegen/barriers.c; no barrier possible: the
 *             sites taken out, codegen/barrier_pass.c) give the text, or
 *             the errors, of every scan and pass run in full
 *             (CodegenOptions.no_shortcuts), for every imperative def of
 *             the given files and directories and their kernels'
 *             programs; some kernels must have taken each shortcut and
 *             some not

 *   vectors   the vectors of plain buffers read and written without
 *             probing their lanes (codegen/access_vector.c) give the text
 *             of every vector probed lane by lane
 *             (CodegenOptions.probe_lanes), for every imperative def of
 *             the given files and directories and their kernels'
 *             programs; some vectors must have been plain, and each of
 *             two of bench/variants.py's kernels' three
 *
 *   halves    the halves of pairs read from the zip element the other
 *             half's walk found (codegen/access.c, gen_pair_half) give the
 *             text of each half read through its whole path
 *             (CodegenOptions.walk_each_read), for every imperative def
 *             of the given files and directories and their kernels'
 *             programs; some halves must have been shared, and one of
 *             each read of bench/variants.py's kernels' two
 *
 *   subst     phrase_subst_shared (stage II's substitution, which shares
 *             what it does not change) prints as phrase_subst's copy, for
 *             every lambda of the given files' defs, and changes nothing
 *
 * usage: throughput_test emit | arena | natural FILE.dpia... | unroll FILE.dpia|DIR... | sites FILE.dpia|DIR... |
 *        record FILE.dpia|DIR... | shortcuts FILE.dpia|DIR... | vectors FILE.dpia|DIR... | halves FILE.dpia|DIR... |
 *        subst FILE.dpia... */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_opencl.h"
#include "cgen.h"
#include "dpia.h"

#include "tests/test_check.h"

static Arena arena;

/* emit(fmt, ...) into a buffer that already holds some text, against snprintf */
#define SAME(...)                                                                      \
  do {                                                                                 \
    Buf b;                                                                             \
    buf_init(&b, &arena);                                                              \
    buf_puts(&b, "<>");                                                                \
    emit(&b, __VA_ARGS__);                                                             \
    char want[4096];                                                                   \
    want[0] = '<', want[1] = '>';                                                      \
    snprintf(want + 2, sizeof want - 2, __VA_ARGS__);                                  \
    CHECK(strcmp(b.data, want) == 0 && b.len == strlen(want), "emit(%s): got [%s], want [%s]", #__VA_ARGS__, \
          b.data, want);                                                               \
  } while (0)

static void test_emit(void) {
  SAME("plain text");
  SAME("%s", "");
  SAME("%s=%d;", "x", -5);
  SAME("%d %d %d", INT_MIN, INT_MAX, 0);
  SAME("%u %lu %llu %zu", UINT_MAX, ULONG_MAX, ULLONG_MAX, (size_t)123);
  SAME("%ld %lld %zd", LONG_MIN, LLONG_MIN, (ptrdiff_t)-7);
  SAME("100%% %c%c%%", 'o', 'k');
  SAME("%%d %%s");
  SAME("%5d|%-3s|%x|%.2f|%08.3f", 42, "a", 255, 1.5, 3.14159);
  SAME("%lld/%s*%d", 9007199254740993LL, "N", 2048);
  /* longer than any first guess of the room left */
  char big[1500];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  SAME("[%s] [%s]", big, big + 700);
  SAME("[%.3s] [%10s]", big, "pad");
  /* many pieces into one buffer */
  Buf b;
  buf_init(&b, &arena);
  char want[8192] = "";
  for (int i = 0; i < 500; i++) {
    emit(&b, "%d,", i * 7919 - 1000000);
    snprintf(want + strlen(want), sizeof want - strlen(want), "%d,", i * 7919 - 1000000);
  }
  CHECK(strcmp(b.data, want) == 0, "500 pieces");
}

static void test_arena(void) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  Arena a;
  arena_init(&a, &mem);
  a.block_size = 256; /* many blocks */
  if (setjmp(oom)) {
    CHECK(a.over_limit, "only the limit may stop this test");
    arena_free(&a);
    return;
  }
  char *prev = NULL;
  for (int i = 0; i < 2000; i++) {
    size_t n = (size_t)(i % 97) + (i % 13 == 0 ? 5000 : 0); /* sizes 0..96 and some big ones */
    unsigned char *p = arena_alloc(&a, n);
    CHECK(((uintptr_t)p % _Alignof(max_align_t)) == 0, "alignment of %zu bytes", n);
    for (size_t k = 0; k < n; k++)
      if (p[k]) {
        CHECK(0, "arena_alloc(%zu) is not zeroed at %zu", n, k);
        break;
      }
    memset(p, 0xAB, n);
    char text[64];
    snprintf(text, sizeof text, "copy %d", i);
    char *q = arena_dup(&a, text, strlen(text) + 1);
    CHECK(strcmp(q, text) == 0 && q != prev, "arena_dup %d", i);
    prev = q;
  }
  size_t used = a.total;
  CHECK(used > 2000 * 16, "total counts what was handed out (%zu)", used);
  /* a limit stops allocation through the same path as running out */
  a.limit = a.total + 100;
  for (int i = 0; i < 100; i++) arena_alloc(&a, 16);
  CHECK(0, "the limit did not stop allocation");
}

/* text parsed and checked in a's arena (NULL after an error) */
typedef struct Front {
  Arena a;
  Interner in;
  Diag diag;
  TypeCtx tc;
} Front;

static CheckedProgram *front(Front *f, DpiaMem *mem, const char *name, const char *text, size_t len) {
  arena_init(&f->a, mem);
  intern_init(&f->in, &f->a);
  diag_init(&f->diag, &f->a);
  type_ctx_init(&f->tc, &f->a);
  Source src;
  source_init(&src, &f->a, name, text, len);
  Program *prog = parse_program(&f->a, &f->in, &f->diag, &src);
  return f->diag.nerrors ? NULL : check_program(&f->a, &f->in, &f->diag, &f->tc, prog);
}

/* a comparison of one imperative def's kernel (name: the file's) */
typedef void CompareKernel(Front *f, const char *name, const DefInfo *d, ImpKernel *k, void *ctx);

/* The imperative defs of text: parse, check, normalise, kernel_from_def,
 * then compare each kernel; returns how many were compared. */
static int each_imperative_kernel(const char *name, const char *text, size_t len, CompareKernel *compare, void *ctx) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  Front f;
  CheckedProgram *cp = front(&f, &mem, name, text, len);
  int compared = 0;
  for (int i = 0; cp && i < cp->ndefs; i++) {
    DefInfo *d = cp->defs[i];
    /* a def of a program check rejected may have no type */
    if (d->is_kernel || !d->ok || !d->result || d->result->kind != PT_COMM) continue;
    Phrase *body = normalize_def(&f.a, &f.tc, &f.diag, d);
    if (!body) continue;
    d->body = body;
    ImpKernel *k = kernel_from_def(&f.a, &f.tc, &f.diag, backend_of(TARGET_OPENCL), d, name);
    if (!k) continue;
    compare(&f, name, d, k, ctx);
    compared++;
  }
  arena_free(&f.a);
  return compared;
}

/* a fresh generation with zero launch sizes against the dry run's */
static void natural_kernel(Front *f, const char *name, const DefInfo *d, ImpKernel *k, void *ctx) {
  (void)ctx;
  CHECK(k->natural_source != NULL, "%s: %s has no dry-run text", name, d->name);
  CodegenOptions zero = {0};
  Buf fresh, shortcut;
  buf_init(&fresh, &f->a);
  buf_init(&shortcut, &f->a);
  bool ok = cg_generate(&f->a, &f->tc, k, &zero, &fresh, NULL) && codegen_kernel(&f->a, &f->tc, k, &zero, &shortcut, NULL);
  CHECK(ok && strcmp(fresh.data, k->natural_source) == 0 && strcmp(shortcut.data, fresh.data) == 0,
        "%s: %s: the dry run's text differs from a fresh generation", name, d->name);
  /* user launch sizes are generated afresh */
  CodegenOptions user = {.local_size = {32, 0, 0}};
  Buf sized;
  buf_init(&sized, &f->a);
  if (codegen_kernel(&f->a, &f->tc, k, &user, &sized, NULL))
    CHECK(strstr(sized.data, "given by the user") != NULL, "%s: %s: --local-size=32 ignored", name, d->name);
}

static int compare_natural(const char *name, const char *text, size_t len) {
  return each_imperative_kernel(name, text, len, natural_kernel, NULL);
}

/* k generated with options one and two: the same text, or the same
 * error (what two ways of the same generation must give); the text made
 * the first way in *text where both succeed, else NULL; facts of the first */
static const char *same_both_ways(Front *f, const char *name, const DefInfo *d, ImpKernel *k,
                                  const CodegenOptions *one, const CodegenOptions *two, KernelFacts *facts,
                                  const char *way_one, const char *way_two) {
  Buf a, b;
  buf_init(&a, &f->a);
  buf_init(&b, &f->a);
  int errors = f->diag.nerrors;
  bool ok_one = cg_generate(&f->a, &f->tc, k, one, &a, facts);
  int errors_one = f->diag.nerrors - errors;
  bool ok_two = cg_generate(&f->a, &f->tc, k, two, &b, NULL);
  int errors_two = f->diag.nerrors - errors - errors_one;
  CHECK(ok_one == ok_two && errors_one == errors_two, "%s: %s: generated %d/%d (errors %d/%d)", name, d->name,
        ok_one, ok_two, errors_one, errors_two);
  if (!ok_one || !ok_two) return NULL;
  CHECK(strcmp(a.data, b.data) == 0, "%s: %s: %s differ from %s:\n%s\n--- %s:\n%s", name, d->name, way_one, way_two,
        a.data, way_two, b.data);
  return a.data;
}

/* the steps copied, the runs of steps made (KS_RUN), and those the
 * printer printed from their template */
typedef struct Unrolled {
  long copied, runs, templated;
} Unrolled;

/* generated with the steps of unrolled loops copied, kept as runs that
 * the passes take once (KS_RUN), against the same steps written out
 * where they are made, every pass seeing each step, and against each
 * step lowered on its own; ctx: an Unrolled */
static void unrolled_kernel(Front *f, const char *name, const DefInfo *d, ImpKernel *k, void *ctx) {
  Unrolled *u = ctx;
  CodegenOptions copy = {0}, written = {0}, direct = {0};
  written.runs_written_out = true;
  direct.unroll_directly = true;
  KernelFacts facts = {0};
  const char *text = same_both_ways(f, name, d, k, &copy, &written, &facts, "the steps kept as runs",
                                    "the steps written out where made");
  if (text && facts.printed_kir) {
    const KirKernel *kept = facts.printed_kir;
    u->copied += kept->steps_copied;
    u->runs += kept->runs_made;
    /* the runs the printer saw (Backend.prints_runs), and the same kernel
     * with them written out as its readers get it (kernel_facts_kir),
     * printed again: the text printed from each run's template */
    if (k->backend->prints_runs && !kept->runs_out) {
      u->templated += opencl_runs_by_template(&f->a, kept);
      /* a printer that records where each statement lands writes each
       * run out instead (backend_c.c, print_run): the same text */
      const KirStmt *const *stmts;
      const int *lines;
      const char *recorded;
      k->backend->statement_lines(&f->a, kept, &stmts, &lines, &recorded);
      CHECK(strcmp(recorded, text) == 0, "%s: %s: the runs written out by the printer differ:\n%s\n--- from:\n%s",
            name, d->name, recorded, text);
    }
    Buf again;
    buf_init(&again, &f->a);
    k->backend->print_kernel(kernel_facts_kir(&facts), NULL, &again);
    CHECK((!kept->runs_made || kept->runs_out) && strcmp(again.data, text) == 0,
          "%s: %s: the runs printed from their template differ from the steps written out:\n%s\n--- written out:\n%s",
          name, d->name, text, again.data);
  }
  same_both_ways(f, name, d, k, &written, &direct, NULL, "the copied steps", "the steps lowered on their own");
}

static int compare_unrolled(const char *name, const char *text, size_t len, void *ctx) {
  return each_imperative_kernel(name, text, len, unrolled_kernel, ctx);
}

/* p with its equal applications of type exp made one phrase (the first
 * met, children first): parsed, each use of an element has its own copy
 * (fst (idx E i) * snd (idx E i)), where the translation substitutes one
 * phrase for each use of a variable (stage II: the x of fst x * snd x) */
static Phrase *equal_applications_shared(Vec *seen, Phrase *p) {
  switch (p->kind) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return p;
  case PH_LAM: p->body = equal_applications_shared(seen, p->body); return p;
  case PH_PROJ:
  case PH_UNOP: p->fst = equal_applications_shared(seen, p->fst); return p;
  default:
    p->fst = equal_applications_shared(seen, p->fst);
    p->snd = equal_applications_shared(seen, p->snd);
    break;
  }
  if (p->kind != PH_APP || !p->type || p->type->kind != PT_EXP) return p;
  for (int i = 0; i < seen->len; i++)
    if (phrase_alpha_equal(seen->items[i], p)) return seen->items[i];
  vec_push(&arena, seen, p);
  return p;
}

/* generated with the sites' reads kept from one walk and with each site's
 * command walked anew, of the def as parsed and with its equal
 * applications one phrase as the translation makes them (a pair's two
 * halves walked once, barriers.c); ctx: the kernels with a barrier */
static void sites_kernel(Front *f, const char *name, const DefInfo *d, ImpKernel *k, void *with_barrier) {
  CodegenOptions kept = {0}, anew = {0};
  anew.scan_each_site = true;
  const char *text = same_both_ways(f, name, d, k, &kept, &anew, NULL, "the reads kept from one walk",
                                    "each site's walked anew");
  if (!text) return;
  if (strstr(text, "barrier(")) ++*(long *)with_barrier;
  Vec seen = {0};
  k->def->body = equal_applications_shared(&seen, k->def->body);
  const char *one = same_both_ways(f, name, d, k, &kept, &anew, NULL, "the reads of one phrase kept from one walk",
                                   "each site's of one phrase walked anew");
  CHECK(one && strcmp(one, text) == 0, "%s: %s: the equal applications made one phrase change the text", name,
        d->name);
}

static int compare_sites(const char *name, const char *text, size_t len, void *with_barrier) {
  return each_imperative_kernel(name, text, len, sites_kernel, with_barrier);
}

/* the command sites compared, and the kernels whose sites' scans
 * differed from their record */
typedef struct Recorded {
  long sites, kernels_differing;
} Recorded;

/* each command site's reads and writes recorded from its code against
 * its command's scans, a plain walk of its phrase
 * (CodegenOptions.compare_sites, codegen/barriers.c): with the shortcuts
 * and with every scan made (no_shortcuts), of the def as parsed and with
 * its equal applications one phrase; the text as generated without the
 * comparison; ctx: a Recorded */
static void record_kernel(Front *f, const char *name, const DefInfo *d, ImpKernel *k, void *ctx) {
  Recorded *r = ctx;
  for (int way = 0; way < 4; way++) {
    if (way == 2) {
      Vec seen = {0};
      k->def->body = equal_applications_shared(&seen, k->def->body);
    }
    CodegenOptions plain = {0}, compared = {0};
    plain.no_shortcuts = compared.no_shortcuts = way & 1;
    compared.compare_sites = true;
    KernelFacts facts = {0};
    if (!same_both_ways(f, name, d, k, &compared, &plain, &facts, "the sites compared", "the sites recorded") ||
        !facts.printed_kir)
      continue;
    const KirKernel *kk = facts.printed_kir;
    r->sites += kk->sites_compared;
    if (kk->sites_differing) {
      r->kernels_differing++;
      CHECK(0, "%s: %s (way %d): %d of %d command sites' scans differ from their record:%s", name, d->name, way,
            kk->sites_differing, kk->sites_compared, kk->site_difference);
    }
  }
}

static int compare_record(const char *name, const char *text, size_t len, void *ctx) {
  return each_imperative_kernel(name, text, len, record_kernel, ctx);
}

/* generated with the shortcuts and with every scan and pass in full;
 * ctx: counts[0] the kernels with a barrier, counts[1 + i] those that
 * took shortcut i (KirShortcut) */
static void shortcuts_kernel(Front *f, const char *name, const DefInfo *d, ImpKernel *k, void *counts) {
  CodegenOptions fast = {0}, full = {0};
  full.no_shortcuts = true;
  KernelFacts facts = {0};
  const char *text =
      same_both_ways(f, name, d, k, &fast, &full, &facts, "the shortcuts", "every scan and pass in full");
  long *n = counts;
  if (text && strstr(text, "barrier(")) n[0]++;
  for (int i = 0; text && facts.printed_kir && i < KIR_SHORTCUTS; i++)
    n[1 + i] += (facts.printed_kir->shortcuts >> i) & 1;
  /* and launched with the user's local size 8 in every dimension: the
   * launch's constant sizes (codegen/lower.c, launch_ix) bound the ids
   * where no loop of that trip count made their index */
  CodegenOptions fast8 = {0}, full8 = {0};
  full8.no_shortcuts = true;
  for (int dim = 0; dim < 3; dim++) fast8.local_size[dim] = full8.local_size[dim] = 8;
  same_both_ways(f, name, d, k, &fast8, &full8, NULL, "the shortcuts at local size 8",
                 "every scan and pass in full at local size 8");
}

static int compare_shortcuts(const char *name, const char *text, size_t len, void *counts) {
  return each_imperative_kernel(name, text, len, shortcuts_kernel, counts);
}

/* generated with the vectors of plain buffers told at once and with
 * every vector's lanes probed; ctx: the plain vectors */
static void vectors_kernel(Front *f, const char *name, const DefInfo *d, ImpKernel *k, void *plain) {
  CodegenOptions told = {0}, probed = {0};
  probed.probe_lanes = true;
  KernelFacts facts = {0};
  if (same_both_ways(f, name, d, k, &told, &probed, &facts, "the plain vectors told at once",
                     "every vector's lanes probed") &&
      facts.printed_kir)
    *(long *)plain += facts.printed_kir->plain_vectors;
}

static int compare_vectors(const char *name, const char *text, size_t len, void *plain) {
  return each_imperative_kernel(name, text, len, vectors_kernel, plain);
}

/* generated with the halves of zip elements shared and with every half
 * walked through its path, of the def as parsed and with its equal
 * applications one phrase as the translation makes them; ctx: the halves
 * shared */
static void halves_kernel(Front *f, const char *name, const DefInfo *d, ImpKernel *k, void *shared) {
  CodegenOptions found = {0}, walked = {0};
  walked.walk_each_read = true;
  KernelFacts facts = {0};
  const char *parsed = same_both_ways(f, name, d, k, &found, &walked, &facts, "the halves found once",
                                      "every half walked through its path");
  if (!parsed) return;
  *(long *)shared += facts.printed_kir->halves_shared;
  Vec seen = {0};
  k->def->body = equal_applications_shared(&seen, k->def->body);
  const char *one = same_both_ways(f, name, d, k, &found, &walked, &facts, "the halves of one phrase found once",
                                   "every half of one phrase walked through its path");
  CHECK(one && strcmp(one, parsed) == 0, "%s: %s: the equal applications made one phrase change the text", name,
        d->name);
  if (one) *(long *)shared += facts.printed_kir->halves_shared;
}

static int compare_halves(const char *name, const char *text, size_t len, void *shared) {
  return each_imperative_kernel(name, text, len, halves_kernel, shared);
}

typedef int CompareFile(const char *name, const char *text, size_t len, void *ctx);

static char *slurp(const char *path, size_t *len);

/* Every lambda of p (a def's normal body): its body with its parameter
 * replaced by phrase_subst and by phrase_subst_shared (stage II), by a
 * variable and by a phrase with a binder of its own (copied at each use),
 * print alike, and the shared one leaves the body as it was. */
static int compare_subst(Front *f, Phrase *p) {
  if (!p) return 0;
  int compared = 0;
  if (p->kind == PH_LAM) {
    Binder *fresh = NEW(&f->a, Binder);
    *fresh = *p->lam_binder;
    fresh->name = "fresh";
    Phrase *var = NEW(&f->a, Phrase);
    *var = (Phrase){.kind = PH_VAR, .span = p->span, .type = fresh->type, .binder = fresh};
    Phrase *values[] = {var, p};
    for (int v = 0; v < 2; v++) {
      Buf before, copied, shared, after;
      buf_init(&before, &f->a), buf_init(&copied, &f->a), buf_init(&shared, &f->a), buf_init(&after, &f->a);
      phrase_print(&before, p->body, 0);
      phrase_print(&copied, phrase_subst(&f->a, &f->tc, p->body, p->lam_binder, values[v]), 0);
      phrase_print(&shared, phrase_subst_shared(&f->a, &f->tc, p->body, p->lam_binder, values[v]), 0);
      phrase_print(&after, p->body, 0);
      CHECK(strcmp(copied.data, shared.data) == 0, "substitution for %s: copied\n%s\nshared\n%s", p->lam_binder->name,
            copied.data, shared.data);
      CHECK(strcmp(before.data, after.data) == 0, "phrase_subst_shared changed the body of \\%s", p->lam_binder->name);
      compared++;
    }
    return compared + compare_subst(f, p->body);
  }
  if (p->kind == PH_VAR || p->kind == PH_LIT || p->kind == PH_PRIM || p->kind == PH_DEF) return 0;
  compared += compare_subst(f, p->fst);
  if (p->kind != PH_PROJ && p->kind != PH_UNOP) compared += compare_subst(f, p->snd);
  return compared;
}

static void test_subst(int nfiles, char **files) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  int total = 0;
  for (int i = 0; i < nfiles; i++) {
    size_t len;
    char *text = slurp(files[i], &len);
    CHECK(text != NULL, "cannot read %s", files[i]);
    Front f;
    CheckedProgram *cp = text ? front(&f, &mem, files[i], text, len) : NULL;
    for (int k = 0; cp && k < cp->ndefs; k++)
      if (cp->defs[k]->ok) total += compare_subst(&f, normalize_def(&f.a, &f.tc, &f.diag, cp->defs[k]));
    if (text) arena_free(&f.a);
  }
  CHECK(total > 10 * nfiles, "only %d substitutions compared for %d files", total, nfiles);
  printf("%d substitutions compared\n", total);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  Buf b;
  buf_init(&b, &arena);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_put(&b, chunk, n);
  fclose(f);
  *len = b.len;
  return b.data;
}

static void test_natural(int nfiles, char **files) {
  int total = 0;
  for (int i = 0; i < nfiles; i++) {
    size_t len;
    char *text = slurp(files[i], &len);
    if (!text) {
      CHECK(0, "cannot read %s", files[i]);
      continue;
    }
    /* a file of kernels: its imperative programs (after hoisting) */
    DpiaOptions opt;
    dpia_options_init(&opt);
    opt.action = DPIA_TRANSLATE;
    opt.emit = DPIA_EMIT_IMPERATIVE;
    DpiaResult *r;
    if (strstr(text, "kernel ") && dpia_process(files[i], text, len, &opt, &r) == DPIA_OK) {
      size_t n;
      const char *imp = dpia_result_output(r, &n);
      total += compare_natural(files[i], imp, n);
      dpia_result_free(r);
    } else {
      if (strstr(text, "kernel ")) dpia_result_free(r);
      total += compare_natural(files[i], text, len);
    }
  }
  CHECK(total >= nfiles, "only %d kernels compared for %d files", total, nfiles);
  printf("%d kernels compared\n", total);
}

/* compare on a text of kernels or imperative defs */
static int compared_text(const char *path, const char *text, size_t len, CompareFile *compare, void *count) {
  DpiaOptions opt;
  dpia_options_init(&opt);
  opt.action = DPIA_TRANSLATE;
  opt.emit = DPIA_EMIT_IMPERATIVE;
  DpiaResult *r;
  int total = 0;
  if (strstr(text, "kernel ") && dpia_process(path, text, len, &opt, &r) == DPIA_OK) {
    size_t n;
    const char *imp = dpia_result_output(r, &n);
    total += compare(path, imp, n, count);
    dpia_result_free(r);
  } else {
    if (strstr(text, "kernel ")) dpia_result_free(r);
    total += compare(path, text, len, count);
  }
  return total;
}

/* compare on path, a file of kernels or imperative defs */
static int compared_file(const char *path, CompareFile *compare, void *count) {
  size_t len;
  char *text = slurp(path, &len);
  if (!text) {
    CHECK(0, "cannot read %s", path);
    return 0;
  }
  return compared_text(path, text, len, compare, count);
}

/* compare on every file of args (a directory's .dpia files); the kernels
 * compared, and how many files */
static int compared_files(int nargs, char **args, CompareFile *compare, void *count, int *nfiles) {
  int total = 0, files = 0;
  for (int i = 0; i < nargs; i++) {
    DIR *dir = opendir(args[i]);
    if (!dir) {
      total += compared_file(args[i], compare, count);
      files++;
      continue;
    }
    for (struct dirent *e; (e = readdir(dir));) {
      size_t n = strlen(e->d_name);
      if (n < 6 || strcmp(e->d_name + n - 5, ".dpia") != 0) continue;
      Buf path;
      buf_init(&path, &arena);
      emit(&path, "%s/%s", args[i], e->d_name);
      total += compared_file(path.data, compare, count);
      files++;
    }
    closedir(dir);
  }
  *nfiles = files;
  return total;
}

/* bench/variants.py's v4_wg64_c64, which the vectors' and the halves'
 * tests both translate */
#define V4_WG64_C64                                                                                                    \
  "kernel dotVar (N: nat) (xs ys: [N]float) =\n"                                                                       \
  "  zip (asVector 4 xs) (asVector 4 ys)\n"                                                                            \
  "  |> split (64 * 64)\n"                                                                                             \
  "  |> mapWorkgroup (\\zs1 ->\n"                                                                                      \
  "       zs1 |> split 64\n"                                                                                           \
  "           |> mapLocal (\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs2))\n"                                \
  "  |> join\n"                                                                                                        \
  "  |> asScalar\n"

/* bench/variants.py's v2_wg32_c16_local, which the unrolled runs' and the
 * barrier record's tests both translate */
#define V2_WG32_C16_LOCAL                                                                                              \
  "kernel dotVar (N: nat) (xs ys: [N]float) =\n"                                                                       \
  "  zip (asVector 2 xs) (asVector 2 ys)\n"                                                                            \
  "  |> split (16 * 32)\n"                                                                                             \
  "  |> mapWorkgroup (\\zs1 ->\n"                                                                                      \
  "       zs1 |> split 16\n"                                                                                           \
  "           |> toLocal (mapLocal (\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs2))\n"                       \
  "           |> mapLocal (\\s -> s))\n"                                                                               \
  "  |> join\n"                                                                                                        \
  "  |> asScalar\n"

static void test_unroll(int nargs, char **args) {
  int files;
  Unrolled all = {0};
  int total = compared_files(nargs, args, compare_unrolled, &all, &files);
  CHECK(total >= files / 2, "only %d kernels compared for %d files", total, files);
  CHECK(all.copied > 0 && all.runs > 0,
        "no step of an unrolled loop was copied (%ld), or no run made (%ld), in %d kernels", all.copied, all.runs,
        total);
  /* the benchmark's unrolled loops (bench/variants.py): every step after
   * step 0 copied, none lowered on its own again (a copy that stops
   * matching step 0's lowering falls back to that, slower but the same
   * text, which the comparison above cannot tell) */
  static const struct {
    const char *name, *text;
  } benchmark[] = {
      {"v2_wg32_c16_local", V2_WG32_C16_LOCAL},
      {"v1_wg64_c16", "kernel dotVar (N: nat) (xs ys: [N]float) =\n"
                      "  zip xs ys\n"
                      "  |> split (16 * 64)\n"
                      "  |> mapWorkgroup (\\zs1 ->\n"
                      "       zs1 |> split 16\n"
                      "           |> mapLocal (\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs2))\n"
                      "  |> join\n"},
  };
  for (int i = 0; i < (int)(sizeof benchmark / sizeof benchmark[0]); i++) {
    Unrolled one = {0};
    int kernels =
        compared_text(benchmark[i].name, benchmark[i].text, strlen(benchmark[i].text), compare_unrolled, &one);
    CHECK(kernels == 1 && one.copied == 15 && one.runs == 1 && one.templated == 1,
          "%s: %d kernels, %ld of its 15 steps after step 0 copied, %ld runs, %ld printed from their template",
          benchmark[i].name, kernels, one.copied, one.runs, one.templated);
  }
  CHECK(all.templated > 0, "no run printed from its template, of %ld", all.runs);
  printf("%d kernels compared, %ld unrolled steps copied, %ld runs made, %ld printed from their template\n", total,
         all.copied, all.runs, all.templated);
}

static void test_sites(int nargs, char **args) {
  int files;
  long with_barrier = 0;
  int total = compared_files(nargs, args, compare_sites, &with_barrier, &files);
  CHECK(total >= files / 2, "only %d kernels compared for %d files", total, files);
  CHECK(with_barrier > 0, "no kernel with a barrier in %d kernels", total);
  printf("%d kernels compared, %ld with a barrier\n", total, with_barrier);
}

static void test_record(int nargs, char **args) {
  int files;
  Recorded r = {0};
  int total = compared_files(nargs, args, compare_record, &r, &files);
  CHECK(total >= files / 2, "only %d kernels compared for %d files", total, files);
  CHECK(r.sites > total, "only %ld command sites compared in %d kernels", r.sites, total);
  /* the shared reads and writes of the toLocal dot products of
   * bench/variants.py, each site's record against its scans */
  static const char *local_variants[] = {
      "kernel dotVar (N: nat) (xs ys: [N]float) =\n"
      "  zip (asVector 2 xs) (asVector 2 ys)\n"
      "  |> split (32 * 32)\n"
      "  |> mapWorkgroup (\\zs1 ->\n"
      "       zs1 |> split 32\n"
      "           |> toLocal (mapLocal (\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs2))\n"
      "           |> mapLocal (\\s -> s))\n"
      "  |> join\n"
      "  |> asScalar\n",
      V2_WG32_C16_LOCAL,
  };
  for (int i = 0; i < (int)(sizeof local_variants / sizeof local_variants[0]); i++) {
    Recorded one = {0};
    int kernels = compared_text("variant", local_variants[i], strlen(local_variants[i]), compare_record, &one);
    CHECK(kernels == 1 && one.sites > 0 && !one.kernels_differing, "variant %d: %d kernels, %ld sites compared", i,
          kernels, one.sites);
  }
  printf("%d kernels compared, %ld command sites, %ld kernels whose scans differ from the record\n", total, r.sites,
         r.kernels_differing);
}

static void test_shortcuts(int nargs, char **args) {
  int files;
  long counts[1 + KIR_SHORTCUTS] = {0};
  int total = compared_files(nargs, args, compare_shortcuts, counts, &files);
  CHECK(total >= files / 2, "only %d kernels compared for %d files", total, files);
  CHECK(counts[0] > 0 && counts[0] < total, "%ld kernels with a barrier of %d", counts[0], total);
  printf("%d kernels compared, %ld with a barrier; shortcuts taken:", total, counts[0]);
  for (int i = 0; i < KIR_SHORTCUTS; i++) {
    CHECK(counts[1 + i] > 0 && counts[1 + i] < total, "shortcut %d taken by %ld kernels of %d", i, counts[1 + i],
          total);
    printf(" %ld", counts[1 + i]);
  }
  printf("\n");
}

static void test_vectors(int nargs, char **args) {
  int files;
  long plain = 0;
  int total = compared_files(nargs, args, compare_vectors, &plain, &files);
  CHECK(total >= files / 2, "only %d kernels compared for %d files", total, files);
  CHECK(plain > 0, "no vector of a plain buffer in %d kernels", total);
  /* bench/variants.py's vector kernels: both reads and the write plain */
  static const struct {
    const char *name, *text;
  } benchmark[] = {
      {"v4_wg64_c64", V4_WG64_C64},
      {"v16_wg128_c256_local",
       "kernel dotVar (N: nat) (xs ys: [N]float) =\n"
       "  zip (asVector 16 xs) (asVector 16 ys)\n"
       "  |> split (256 * 128)\n"
       "  |> mapWorkgroup (\\zs1 ->\n"
       "       zs1 |> split 256\n"
       "           |> toLocal (mapLocal (\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs2))\n"
       "           |> mapLocal (\\s -> s))\n"
       "  |> join\n"
       "  |> asScalar\n"},
  };
  for (int i = 0; i < (int)(sizeof benchmark / sizeof benchmark[0]); i++) {
    long told = 0;
    int kernels =
        compared_text(benchmark[i].name, benchmark[i].text, strlen(benchmark[i].text), compare_vectors, &told);
    CHECK(kernels == 1 && told == 3, "%s: %d kernels, %ld of its 3 vectors told at once", benchmark[i].name, kernels,
          told);
  }
  printf("%d kernels compared, %ld plain vectors\n", total, plain);
}

static void test_halves(int nargs, char **args) {
  int files;
  long shared = 0;
  int total = compared_files(nargs, args, compare_halves, &shared, &files);
  CHECK(total >= files / 2, "only %d kernels compared for %d files", total, files);
  CHECK(shared > 0, "no half of a pair shared in %d kernels", total);
  /* bench/variants.py's kernels: snd x of fst x * snd x from fst x's walk */
  static const struct {
    const char *name, *text;
  } benchmark[] = {
      {"v4_wg64_c64", V4_WG64_C64},
      {"v1_wg32_c256_local",
       "kernel dotVar (N: nat) (xs ys: [N]float) =\n"
       "  zip xs ys\n"
       "  |> split (256 * 32)\n"
       "  |> mapWorkgroup (\\zs1 ->\n"
       "       zs1 |> split 256\n"
       "           |> toLocal (mapLocal (\\zs2 -> reduceSeq (\\x a -> fst x * snd x + a) 0.0 zs2))\n"
       "           |> mapLocal (\\s -> s))\n"
       "  |> join\n"},
  };
  for (int i = 0; i < (int)(sizeof benchmark / sizeof benchmark[0]); i++) {
    long found = 0;
    int kernels =
        compared_text(benchmark[i].name, benchmark[i].text, strlen(benchmark[i].text), compare_halves, &found);
    CHECK(kernels == 1 && found == 1, "%s: %d kernels, %ld of its halves shared (1 wanted)", benchmark[i].name,
          kernels, found);
  }
  printf("%d kernels compared, %ld halves shared\n", total, shared);
}

int main(int argc, char **argv) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  arena_init(&arena, &mem);
  if (argc >= 2 && strcmp(argv[1], "emit") == 0) test_emit();
  else if (argc >= 2 && strcmp(argv[1], "arena") == 0) test_arena();
  else if (argc >= 3 && strcmp(argv[1], "natural") == 0) test_natural(argc - 2, argv + 2);
  else if (argc >= 3 && strcmp(argv[1], "subst") == 0) test_subst(argc - 2, argv + 2);
  else if (argc >= 3 && strcmp(argv[1], "unroll") == 0)
    test_unroll(argc - 2, argv + 2);
  else if (argc >= 3 && strcmp(argv[1], "sites") == 0)
    test_sites(argc - 2, argv + 2);
  else if (argc >= 3 && strcmp(argv[1], "record") == 0)
    test_record(argc - 2, argv + 2);
  else if (argc >= 3 && strcmp(argv[1], "shortcuts") == 0)
    test_shortcuts(argc - 2, argv + 2);
  else if (argc >= 3 && strcmp(argv[1], "vectors") == 0)
    test_vectors(argc - 2, argv + 2);
  else if (argc >= 3 && strcmp(argv[1], "halves") == 0)
    test_halves(argc - 2, argv + 2);
  else {
    fprintf(
        stderr,
        "usage: throughput_test emit | arena | natural FILE.dpia... | unroll FILE.dpia|DIR... | sites "
        "FILE.dpia|DIR... | record FILE.dpia|DIR... | shortcuts FILE.dpia|DIR... | vectors FILE.dpia|DIR... | halves "
        "FILE.dpia|DIR... | subst FILE.dpia...\n");
    return 2;
  }
  arena_free(&arena);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("ok\n");
  return failures != 0;
}
