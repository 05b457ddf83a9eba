/* print_test.c: printing typed phrases back as source (phrase_print.c)
 * round-trips through the parser and the checker (spec section 9: every
 * stage's result can be printed and checked again).
 *
 *   print_test [--dump] DIR...
 *
 * For every .dpia file under the DIRs (found at test time, recursively,
 * in sorted order) and every inline program below, in two variants:
 *   checked     every declaration printed with def_print from its checked
 *               body;
 *   normalized  every kernel printed from its normalized body
 *               (normalize_def: defs inlined, beta-reduced), the other
 *               declarations as checked;
 * the printout must (a) parse and check again (including the strategy
 * rules on kernels) without errors, (b) print to the very same text once
 * re-checked (a fixed point), and (c) give every declaration the same type
 * (pt_equal of the zonked types; both are printed on a mismatch).  Inline
 * programs marked canonical must moreover print exactly as written: they
 * pin down the layout (indentation, line breaks, names, literals); some
 * give the exact normalized printout too, where inlining binds one name
 * twice (a wrong renaming would still type check).  Two more cases build
 * what no source can hold: negative literals (the translation may make
 * them), and a fragment printed by phrase_print whose free identifier has
 * the name of a binder inside it.
 *
 * Prints one FAIL block per failing case and `print: N passed, M failed`;
 * exit status 1 if anything failed.  --dump also prints every printout, to
 * look at the layout. */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct Tester {
  int passed, failed;
  bool dump;
} Tester;

/* One translation context: everything a case allocates lives in arena. */
typedef struct Ctx {
  Arena arena;
  Interner in;
  TypeCtx tc;
} Ctx;

typedef enum Variant { CHECKED, NORMALIZED } Variant;
static const char *const variant_name[] = {"checked", "normalized"};

/* Parse and check text, with the strategy rules on kernels as `dpia check`
 * applies them; NULL with the rendered diagnostics in *why on errors. */
static CheckedProgram *load(Ctx *c, const char *name, const char *text, size_t len, Buf *why) {
  Source *src = NEW(&c->arena, Source);
  source_init(src, &c->arena, name, arena_strndup(&c->arena, text, len), len);
  Diag d;
  diag_init(&d, &c->arena);
  Program *p = parse_program(&c->arena, &c->in, &d, src);
  CheckedProgram *cp = d.nerrors ? NULL : check_program(&c->arena, &c->in, &d, &c->tc, p);
  for (int i = 0; cp && !d.nerrors && i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (!def->is_kernel) continue;
    Phrase *body = normalize_def(&c->arena, &c->tc, &d, def);
    /* high-level kernels too (samples/explore): printing is the point */
    if (body) strategy_check_high_level(&c->arena, &d, def, body, true, NULL);
  }
  if (d.nerrors) {
    diag_render_text(&d, why);
    return NULL;
  }
  return cp;
}

/* The whole program printed declaration by declaration; NULL if a kernel
 * does not normalise (reported in why). */
static const char *print_program(Ctx *c, CheckedProgram *cp, Variant v, Buf *why) {
  Buf b;
  buf_init(&b, &c->arena);
  for (int i = 0; i < cp->ndefs; i++) {
    DefInfo *def = cp->defs[i];
    if (i > 0) buf_putc(&b, '\n');
    if (v == NORMALIZED && def->is_kernel) {
      Diag d;
      diag_init(&d, &c->arena);
      DefInfo normal = *def;
      normal.body = normalize_def(&c->arena, &c->tc, &d, def);
      if (!normal.body) {
        diag_render_text(&d, why);
        return NULL;
      }
      def_print(&b, &normal, NULL);
    } else {
      def_print(&b, def, NULL);
    }
  }
  return b.data;
}

static void fail(Tester *t, const char *name, Variant v, const char *what, const char *detail) {
  t->failed++;
  printf("FAIL %s (%s): %s\n", name, variant_name[v], what);
  if (detail && *detail) printf("%s%s", detail, detail[strlen(detail) - 1] == '\n' ? "" : "\n");
}

/* Same declarations, same names, parameters and types? On a mismatch
 * *detail describes the first one. */
static bool same_types(Ctx *c, CheckedProgram *a, CheckedProgram *b, const char **detail) {
  if (a->ndefs != b->ndefs) {
    *detail = arena_printf(&c->arena, "%d declarations, re-checked %d", a->ndefs, b->ndefs);
    return false;
  }
  for (int i = 0; i < a->ndefs; i++) {
    DefInfo *x = a->defs[i], *y = b->defs[i];
    if (x->name != y->name || x->is_kernel != y->is_kernel || x->nsize_params != y->nsize_params ||
        x->ndata_params != y->ndata_params || x->nparams != y->nparams) {
      *detail = arena_printf(&c->arena, "declaration %d: '%s' re-checked as a different declaration '%s'", i,
                             x->name, y->name);
      return false;
    }
    if (!pt_equal(x->type, y->type)) {
      *detail = arena_printf(&c->arena, "'%s' has type\n  %s\nre-checked:\n  %s", x->name,
                             pt_str(&c->arena, x->type), pt_str(&c->arena, y->type));
      return false;
    }
  }
  return true;
}

/* One case: the original text in one variant.  expected (canonical
 * inline programs only) is the exact text the print must give. */
static void round_trip(Tester *t, DpiaMem *mem, const char *name, const char *text, size_t len, Variant v,
                       const char *expected) {
  Ctx c;
  arena_init(&c.arena, mem);
  intern_init(&c.in, &c.arena);
  type_ctx_init(&c.tc, &c.arena);
  Buf why;
  buf_init(&why, &c.arena);
  const char *detail = NULL;
  CheckedProgram *orig = load(&c, name, text, len, &why);
  const char *printed = orig ? print_program(&c, orig, v, &why) : NULL;
  if (!orig) {
    fail(t, name, v, "the original does not check", why.data);
  } else if (!printed) {
    fail(t, name, v, "a kernel does not normalise", why.data);
  } else {
    if (t->dump) printf("=== %s (%s)\n%s", name, variant_name[v], printed);
    const char *print_name = arena_printf(&c.arena, "<printed %s>", name);
    CheckedProgram *again = load(&c, print_name, printed, strlen(printed), &why);
    const char *reprinted = again ? print_program(&c, again, CHECKED, &why) : NULL;
    if (!again) {
      fail(t, name, v, "the printout does not check",
           arena_printf(&c.arena, "--- printout:\n%s--- errors:\n%s", printed, why.data));
    } else if (!reprinted || strcmp(printed, reprinted) != 0) {
      fail(t, name, v, "printing the re-checked printout gives a different text",
           arena_printf(&c.arena, "--- first:\n%s--- second:\n%s", printed, reprinted ? reprinted : why.data));
    } else if (!same_types(&c, orig, again, &detail)) {
      fail(t, name, v, "the types changed", arena_printf(&c.arena, "%s\n--- printout:\n%s", detail, printed));
    } else if (expected && strcmp(printed, expected) != 0) {
      fail(t, name, v, "the printout is not the expected one",
           arena_printf(&c.arena, "--- expected:\n%s--- printed:\n%s", expected, printed));
    } else {
      t->passed++;
    }
  }
  arena_free(&c.arena);
}

/* ---- files ---- */

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *data = malloc(cap);
  for (;;) {
    if (!data) break;
    if (n == cap) {
      char *bigger = realloc(data, cap *= 2);
      if (!bigger) {
        free(data);
        data = NULL;
        break;
      }
      data = bigger;
    }
    size_t got = fread(data + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  if (data) { /* NUL-terminated too, for strstr */
    char *ended = realloc(data, n + 1);
    if (!ended) free(data);
    else ended[n] = '\0';
    data = ended;
  }
  *len = n;
  return data;
}

/* Every .dpia file under path, in sorted order; returns how many. */
static int round_trip_tree(Tester *t, DpiaMem *mem, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    t->failed++;
    printf("FAIL cannot read %s\n", path);
    return 0;
  }
  if (!S_ISDIR(st.st_mode)) {
    if (!has_suffix(path, ".dpia")) return 0;
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
      t->failed++;
      printf("FAIL cannot read %s\n", path);
      return 0;
    }
    /* a program that checks only with the values of its tune parameters
     * (a vector width: `dpia test` checks it with its `-- ARGS: --set`)
     * has no symbolic form to print */
    if (strstr(text, "\n-- ARGS: --set ")) {
      free(text);
      return 0;
    }
    round_trip(t, mem, path, text, len, CHECKED, NULL);
    round_trip(t, mem, path, text, len, NORMALIZED, NULL);
    free(text);
    return 1;
  }
  struct dirent **entries;
  int n = scandir(path, &entries, NULL, alphasort);
  if (n < 0) {
    t->failed++;
    printf("FAIL cannot list %s\n", path);
    return 0;
  }
  int files = 0;
  for (int i = 0; i < n; i++) {
    const char *e = entries[i]->d_name;
    if (e[0] != '.') {
      size_t size = strlen(path) + strlen(e) + 2;
      char *child = malloc(size);
      if (child) {
        snprintf(child, size, "%s/%s", path, e);
        files += round_trip_tree(t, mem, child);
        free(child);
      }
    }
    free(entries[i]);
  }
  free(entries);
  return files;
}

/* ---- inline programs ---- */

typedef struct Inline {
  const char *name;
  bool canonical; /* the text is exactly what def_print prints */
  const char *text;
  const char *normalized; /* if not NULL: the exact normalized printout */
} Inline;

static const Inline inline_programs[] = {
    /* stage II's reduce: newPrivate, ;, for, acc.1 / acc.2 */
    {"reduce loop", true,
     "def sumSeq (xs: exp[[2048]float]) (output: acc[float]) =\n"
     "  newPrivate float (\\acc ->\n"
     "    acc.1 := 0.0;\n"
     "    for 2048 (\\i ->\n"
     "      acc.1 := idx xs i + acc.2);\n"
     "    output := acc.2)\n",
     NULL},
    /* stage I of the dot product: mapI at two levels, reduceI, joinAcc */
    {"intermediate dot", true,
     "def dotPartial (N: nat) (output: acc[[N/2048]float]) (xs ys: exp[[N]float]) =\n"
     "  mapIWorkgroup\n"
     "    (\\zs1 o ->\n"
     "      mapILocal\n"
     "        (\\zs2 o_2 ->\n"
     "          reduceI\n"
     "            (\\x a o_3 ->\n"
     "              o_3 := fst x * snd x + a)\n"
     "            0.0\n"
     "            zs2\n"
     "            (\\r ->\n"
     "              o_2 := r))\n"
     "        (split 2048 zs1)\n"
     "        o)\n"
     "    (split 262144 (zip xs ys))\n"
     "    (joinAcc output)\n",
     NULL},
    /* a global temporary between two stages */
    {"newGlobal stages", true,
     "def twoStages (N: nat) (xs: exp[[N]float]) (output: acc[[N]float]) =\n"
     "  newGlobal [N]float (\\tmp ->\n"
     "    mapIGlobal\n"
     "      (\\x o ->\n"
     "        o := x * 2.0)\n"
     "      xs\n"
     "      tmp.1;\n"
     "    mapISeq\n"
     "      (\\y o ->\n"
     "        o := y + 1.0)\n"
     "      tmp.2\n"
     "      output)\n",
     NULL},
    /* vector views of acceptors, a vector-typed literal as its scalar */
    {"vector acceptors", true,
     "def vec4 (N: nat) (xs: exp[[4*N]float]) (output: acc[[4*N]float]) =\n"
     "  mapIGlobal\n"
     "    (\\v o ->\n"
     "      o := v * 2.0)\n"
     "    (asVector 4 xs)\n"
     "    (asScalarAcc 4 output)\n"
     "\n"
     "def scalarsIntoVectors (N: nat) (xs: exp[[4*N]int]) (output: acc[[N]int4]) =\n"
     "  parforGlobal (asVectorAcc output) (\\i o ->\n"
     "    o := idx xs i + 1)\n"
     "\n"
     "def vectorsPlusOne (N: nat) (vs: exp[[N]float4]) (output: acc[[N]float4]) =\n"
     "  parforGlobal1 output (\\i o ->\n"
     "    o := idx vs i + 1.0)\n",
     NULL},
    /* pair and zip acceptors, data pairs, nested new */
    {"pair acceptors", true,
     "def unzipInto (N: nat) (xs: exp[[N](float, int)]) (out: acc[[N](float, int)]) =\n"
     "  parfor (zipAcc1 out) (\\i o ->\n"
     "    o := fst (idx xs i));\n"
     "  parfor (zipAcc2 out) (\\i o ->\n"
     "    o := snd (idx xs i))\n"
     "\n"
     "def pairVar (out: acc[(float, int)]) =\n"
     "  new (float, int) (\\p ->\n"
     "    pairAcc1 p.1 := 1.5;\n"
     "    pairAcc2 p.1 := 2;\n"
     "    new float (\\q ->\n"
     "      q.1 := fst p.2 * 2.0;\n"
     "      out := (q.2, snd p.2)))\n",
     NULL},
    /* mirrorAcc (docs/language.md section 29.1): the upper triangle to
     * both halves of the output */
    {"mirror acceptor", true,
     "def symmetric (M: nat) (xs: exp[[M][M]float]) (out: acc[[M][M]float]) =\n"
     "  parforGlobal (mirrorAcc out) (\\i row ->\n"
     "    for M (\\j ->\n"
     "      idxAcc row j := idx (idx xs i) j * 2.0))\n",
     NULL},
    /* transposeAcc, splitAcc, joinAcc, idxAcc, parfor dimensions */
    {"layout acceptors", true,
     "def transposeInto (N M: nat) (xs: exp[[N][M]float]) (out: acc[[M][N]float]) =\n"
     "  parforGlobal (transposeAcc out) (\\i row ->\n"
     "    parforGlobal1 row (\\j o ->\n"
     "      o := idx (idx xs i) j))\n"
     "\n"
     "def chunks (N: nat) (xs: exp[[N]float]) (out: acc[[N/64][64]float]) =\n"
     "  parforGlobal (splitAcc 64 out) (\\i o ->\n"
     "    o := idx xs i)\n"
     "\n"
     "def rows (N: nat) (xs: exp[[64*N]float]) (out: acc[[64*N]float]) =\n"
     "  parforWorkgroup2 (joinAcc out) (\\i row ->\n"
     "    parforLocal2 row (\\j o ->\n"
     "      o := idx (idx (split 64 xs) i) j))\n"
     "\n"
     "def fillRows (N: nat) (out: acc[[N][N + 1]float]) =\n"
     "  for N (\\i ->\n"
     "    for (N + 1) (\\j ->\n"
     "      idxAcc (idxAcc out i) j := 0.0))\n",
     NULL},
    /* stage II's shape after a workgroup reduction, in double precision:
     * the literals keep their type by an ascription */
    {"double workgroup", true,
     "def dsum (N: nat) (xs: exp[[N][64]double]) (output: acc[[N]double]) =\n"
     "  parforWorkgroup output (\\g o ->\n"
     "    newLocal [64]double (\\loc ->\n"
     "      parforLocal loc.1 (\\l o_2 ->\n"
     "        o_2 := idx (idx xs g) l * (2.0 : double));\n"
     "      newPrivate double (\\acc ->\n"
     "        acc.1 := (0.0 : double);\n"
     "        for 64 (\\k ->\n"
     "          acc.1 := acc.2 + idx loc.2 k - -(0.5 : double));\n"
     "        o := acc.2)))\n"
     "\n"
     "def dvec (N: nat) (vs: exp[[N]double2]) (out: acc[[N]double2]) =\n"
     "  parfor out (\\i o ->\n"
     "    o := idx vs i * (3.0 : double2))\n",
     NULL},
    /* binders with the same name nested: the inner ones are renamed */
    {"shadowing", false,
     "def shadow (N: nat) (xs: [N][N]float) (out: acc[[N][N]float]) =\n"
     "  parfor out (\\i o -> parfor o (\\i o -> o := idx (idx xs i) i))\n"
     "def nested (out: acc[float]) =\n"
     "  new float (\\v -> new float (\\v -> v.1 := 1.0; out := v.2); v.1 := 2.0)\n"
     "def N_2 (x: float) = x\n"
     "def clash (N: nat) (xs: [N]float) (out: acc[[N]float]) =\n"
     "  parfor out (\\N o -> o := N_2 (idx xs N))\n",
     NULL},
    /* a data parameter, a def used with its implicit arguments */
    {"data parameters", true,
     "def copyAll (N: nat) (d: data) (xs: exp[[N]d]) (out: acc[[N]d]) =\n"
     "  for N (\\i ->\n"
     "    idxAcc out i := idx xs i)\n"
     "\n"
     "def useCopy (xs: exp[[8](float, int)]) (out: acc[[8](float, int)]) =\n"
     "  copyAll xs out\n",
     NULL},
    /* let-bound phrase pairs and lambdas (ascribed where inferred), >> */
    {"let and phrase pairs", false,
     "def pairs (a: acc[float]) (x: exp[float]) =\n"
     "  let p = {a, x} in\n"
     "  let f = (\\v -> v.1 := v.2 + 1.0 : var[float] -> comm) in\n"
     "  f p\n"
     "def inc2 : exp[float] -> exp[float] = (\\x -> x + 1.0) >> (\\y -> y * 2.0)\n"
     "def fns : (exp[float] -> exp[float]) & exp[int] = {\\x -> x, 3}\n"
     "def useFns (out: acc[float]) = out := fns.1 4.0\n"
     "kernel k (N: nat) (xs: [N]float) = xs |> mapGlobal (inc2 >> inc2)\n",
     NULL},
    /* comm and passive function parameters, a block as an argument */
    {"procedures", true,
     "def twice (c: comm) =\n"
     "  c;\n"
     "  c\n"
     "\n"
     "def both (a b: acc[float]) (x: exp[float]) =\n"
     "  twice (\n"
     "    a := x;\n"
     "    b := x)\n"
     "\n"
     "def applyP (f: exp[float] ->p exp[float]) (x: exp[float]) =\n"
     "  f (f x)\n"
     "\n"
     "def body (N: nat) (xs: exp[[N]float]) : exp[idx[N]] -> acc[float] ->p comm =\n"
     "  \\i o ->\n"
     "    o := idx xs i\n"
     "\n"
     "def useBody (N: nat) (xs: exp[[N]float]) (out: acc[[N]float]) =\n"
     "  parfor out (body xs)\n",
     NULL},
    /* operators: precedence, unary minus and not, comparisons */
    {"operators", true,
     "def ops (x y: exp[float]) (b: exp[bool]) (out: acc[float]) (flag: acc[bool]) =\n"
     "  out := -x - -y * (x - (y - 1.0)) / 2.0;\n"
     "  flag := !b && x < y || !(x != y) && (x == y || y > 0.0);\n"
     "  out := select (x <= 0.0) (-x) (x * (1.0 + y))\n"
     "\n"
     "def ints (i j: exp[int]) (out: acc[int]) =\n"
     "  out := i % j * 3 + j / 2 - (i - j)\n",
     NULL},
    /* views with two static sizes, reduceI over zip, sizes in types */
    {"views and sizes", true,
     "def stencil (N: nat) (xs: exp[[N]float]) (out: acc[[N]float]) =\n"
     "  parforGlobal out (\\i o ->\n"
     "    newPrivate float (\\s ->\n"
     "      s.1 := 0.0;\n"
     "      for 3 (\\k ->\n"
     "        s.1 := s.2 + idx (idx (slide 3 1 (padClamp 1 1 xs)) i) k);\n"
     "      o := s.2 / 3.0))\n"
     "\n"
     "def dot (N: nat) (xs ys: exp[[N]float]) (out: acc[float]) =\n"
     "  reduceI\n"
     "    (\\x a o ->\n"
     "      o := fst x * snd x + a)\n"
     "    0.0\n"
     "    (zip (take (N/2) xs) (drop (N/2) ys))\n"
     "    (\\r ->\n"
     "      out := r)\n"
     "\n"
     "def strided (N: nat) (xs: exp[[8*N]float]) (out: acc[[8*N]float]) =\n"
     "  parforGlobal out (\\i o ->\n"
     "    o := idx (reorderStride 8 (padCst 0 0 1.0 xs)) i)\n",
     NULL},
    /* a functional kernel with toLocal, in the layout of printed kernels */
    {"functional kernel", true,
     "kernel partial (N: nat) (xs: exp[[N]float]) =\n"
     "  join (mapWorkgroup\n"
     "    (\\chunk ->\n"
     "      mapLocal (\\part -> reduceSeq (\\x a -> fabs x + a) 0.0 part) (toLocal (mapLocal (\\y -> y)) (split 4 chunk)))\n"
     "    (split 256 xs))\n",
     NULL},
    /* literals that need care: exponents, an integer beyond 2^53 and one
     * of int type in a float context, the f suffix (float anyway) */
    {"literal forms", true,
     "def lits (x: exp[float]) (out: acc[float]) (d: acc[double]) (i: acc[int]) =\n"
     "  out := x * 1e-7 + 1.5e20 + 9007199254740992.0 + 0.1 + 1.5 + 2.0;\n"
     "  d := (1e-300 : double) * (123456789.123 : double);\n"
     "  i := 2147483647\n",
     NULL},
    {"literal defaults", false,
     "def lits2 (out: acc[float]) = out := 1.5f + 9007199254740993 + 16777217\n"
     "def lits3 = (0.5 : double) + 1\n"
     "def lits4 = 7\n"
     "def lits5 = 0.25\n",
     NULL},
    /* inlining binds x inside the scope of another x that it uses: the
     * inner one must be renamed, or the printout would mean x + x */
    {"inlining shadows", false,
     "def shift (n: nat) (y: float) (v: [n]float) = mapSeq (\\x -> x + y) v\n"
     "kernel k (N: nat) (xs: [N]float) =\n"
     "  xs |> split 4 |> mapGlobal (\\v -> v |> mapSeq (\\x -> reduceSeq (\\y a -> y + a) 0.0 (shift x v)))\n",
     "def shift (n: nat) (y: exp[float]) (v: exp[[n]float]) =\n"
     "  mapSeq (\\x -> x + y) v\n"
     "\n"
     "kernel k (N: nat) (xs: exp[[N]float]) =\n"
     "  mapGlobal (\\v -> mapSeq (\\x -> reduceSeq (\\y a -> y + a) 0.0 (mapSeq (\\x_2 -> x_2 + x) v)) v) (split 4 xs)\n"},
};

/* ---- constructed phrases ---- */

static PhraseTermKind kind_of(const Phrase *p) { return p->kind; }

/* The literals of a phrase, in print order (the right spine of ; is a loop
 * in the printer, and a recursion here: the test bodies are short). */
static void find_literals(Phrase *p, Phrase **found, int *n, int max) {
  switch (kind_of(p)) {
  case PH_LIT:
    if (*n < max) found[(*n)++] = p;
    return;
  case PH_VAR:
  case PH_PRIM:
  case PH_DEF: return;
  case PH_LAM: find_literals(p->body, found, n, max); return;
  case PH_PROJ:
  case PH_UNOP: find_literals(p->fst, found, n, max); return;
  default:
    find_literals(p->fst, found, n, max);
    find_literals(p->snd, found, n, max);
    return;
  }
}

/* Only the translation makes negative literals; they print as negations
 * of their magnitude, which is what they re-parse to, so the second print
 * equals the first. */
static void test_negative_literals(Tester *t, DpiaMem *mem) {
  static const char *const source =
      "def neg (a: acc[float]) (b: acc[double]) (c: acc[int]) (x: exp[float]) =\n"
      "  a := 1.5;\n"
      "  b := (2.0 : double);\n"
      "  c := 3;\n"
      "  a := x * 4.0 - 5.0;\n"
      "  a := 6.0\n";
  static const char *const expected =
      "def neg (a: acc[float]) (b: acc[double]) (c: acc[int]) (x: exp[float]) =\n"
      "  a := -1.5;\n"
      "  b := -(2.0 : double);\n"
      "  c := -3;\n"
      "  a := x * -4.0 - -5.0;\n"
      "  a := - -6.0\n";
  const char *name = "negative literals";
  Ctx c;
  arena_init(&c.arena, mem);
  intern_init(&c.in, &c.arena);
  type_ctx_init(&c.tc, &c.arena);
  Buf why;
  buf_init(&why, &c.arena);
  CheckedProgram *cp = load(&c, name, source, strlen(source), &why);
  Phrase *lits[7];
  int n = 0;
  if (cp) find_literals(cp->defs[0]->body, lits, &n, 7);
  if (!cp || n != 6) {
    fail(t, name, CHECKED, "the program to build from does not check", why.data);
    arena_free(&c.arena);
    return;
  }
  lits[0]->lit_float = -1.5;
  lits[1]->lit_float = -2.0;
  lits[2]->lit_int = -3;
  lits[3]->lit_float = -4.0;
  lits[4]->lit_float = -5.0;
  /* - -6.0: a negation of a negative literal */
  Phrase *last = cp->defs[0]->body;
  while (last->kind == PH_SEQ) last = last->snd;
  Phrase *six = last->snd;
  six->lit_float = -6.0;
  Phrase *neg = NEW(&c.arena, Phrase);
  *neg = (Phrase){.kind = PH_UNOP, .span = six->span, .type = six->type, .fst = six, .unop = '-'};
  last->snd = neg;
  const char *printed = print_program(&c, cp, CHECKED, &why);
  CheckedProgram *again = load(&c, "<printed negative literals>", printed, strlen(printed), &why);
  const char *reprinted = again ? print_program(&c, again, CHECKED, &why) : NULL;
  const char *detail = NULL;
  if (strcmp(printed, expected) != 0)
    fail(t, name, CHECKED, "the printout is not the expected one",
         arena_printf(&c.arena, "--- expected:\n%s--- printed:\n%s", expected, printed));
  else if (!again)
    fail(t, name, CHECKED, "the printout does not check", why.data);
  else if (strcmp(printed, reprinted) != 0)
    fail(t, name, CHECKED, "printing the re-checked printout gives a different text",
         arena_printf(&c.arena, "--- first:\n%s--- second:\n%s", printed, reprinted));
  else if (!same_types(&c, cp, again, &detail))
    fail(t, name, CHECKED, "the types changed", detail);
  else
    t->passed++;
  arena_free(&c.arena);
}

/* Binders bound between a lambda and a use inside its body. */
typedef struct Bound {
  const Binder *binder;
  const struct Bound *next;
} Bound;

/* Does p use, free, an identifier named like b (but not b itself)? */
static bool uses_free_named(const Phrase *p, const Binder *b, const Bound *bound) {
  switch (kind_of(p)) {
  case PH_VAR:
    for (const Bound *e = bound; e; e = e->next)
      if (e->binder == p->binder) return false;
    return p->binder != b && strcmp(p->binder->name, b->name) == 0;
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return false;
  case PH_LAM: {
    Bound inner = {p->lam_binder, bound};
    return uses_free_named(p->body, b, &inner);
  }
  case PH_PROJ:
  case PH_UNOP: return uses_free_named(p->fst, b, bound);
  default: return uses_free_named(p->fst, b, bound) || uses_free_named(p->snd, b, bound);
  }
}

/* A lambda whose body uses an identifier of the same name as its own
 * parameter, bound outside it: printed alone, its parameter must be
 * renamed. */
static const Phrase *find_capturing_lambda(const Phrase *p) {
  switch (kind_of(p)) {
  case PH_VAR:
  case PH_LIT:
  case PH_PRIM:
  case PH_DEF: return NULL;
  case PH_LAM:
    if (uses_free_named(p->body, p->lam_binder, NULL)) return p;
    return find_capturing_lambda(p->body);
  case PH_PROJ:
  case PH_UNOP: return find_capturing_lambda(p->fst);
  default: {
    const Phrase *q = find_capturing_lambda(p->fst);
    return q ? q : find_capturing_lambda(p->snd);
  }
  }
}

/* phrase_print of a fragment: its free identifiers keep their names, and
 * a binder inside with one of those names is renamed; the text continues
 * the caller's line at the caller's indentation. */
static void test_fragment(Tester *t, DpiaMem *mem) {
  static const char *const source =
      "def shift (n: nat) (y: float) (v: [n]float) = mapSeq (\\x -> x + y) v\n"
      "def inner (n: nat) (v: [n]float) (out: acc[[n]float]) =\n"
      "  for n (\\i -> new float (\\x -> x.1 := idx v i; idxAcc out i := idx (shift x.2 v) i))\n";
  static const char *const expected =
      "    body: \\x_2 -> x_2 + x.2";
  const char *name = "fragment";
  Ctx c;
  arena_init(&c.arena, mem);
  intern_init(&c.in, &c.arena);
  type_ctx_init(&c.tc, &c.arena);
  Buf why;
  buf_init(&why, &c.arena);
  CheckedProgram *cp = load(&c, name, source, strlen(source), &why);
  Diag d;
  diag_init(&d, &c.arena);
  Phrase *normal = cp ? normalize_def(&c.arena, &c.tc, &d, cp->defs[1]) : NULL;
  const Phrase *lam = normal ? find_capturing_lambda(normal) : NULL;
  if (!lam) {
    fail(t, name, NORMALIZED, "no lambda binding a name it also uses from outside", why.data);
    arena_free(&c.arena);
    return;
  }
  Buf out;
  buf_init(&out, &c.arena);
  buf_puts(&out, "    body: ");
  phrase_print(&out, lam, 2);
  if (strcmp(out.data, expected) != 0)
    fail(t, name, NORMALIZED, "the printout is not the expected one",
         arena_printf(&c.arena, "--- expected:\n%s\n--- printed:\n%s\n", expected, out.data));
  else
    t->passed++;
  arena_free(&c.arena);
}

int main(int argc, char **argv) {
  DpiaMem mem;
  dpia_mem_default(&mem);
  jmp_buf oom;
  mem.on_oom = &oom;
  if (setjmp(oom)) {
    printf("FAIL out of memory\n");
    return 1;
  }
  Tester t = {0, 0, false};
  int first = 1;
  if (argc > 1 && strcmp(argv[1], "--dump") == 0) {
    t.dump = true;
    first = 2;
  }
  for (size_t i = 0; i < DPIA_COUNTOF(inline_programs); i++) {
    const Inline *p = &inline_programs[i];
    round_trip(&t, &mem, p->name, p->text, strlen(p->text), CHECKED, p->canonical ? p->text : NULL);
    round_trip(&t, &mem, p->name, p->text, strlen(p->text), NORMALIZED, p->normalized);
  }
  test_negative_literals(&t, &mem);
  test_fragment(&t, &mem);
  int files = 0;
  for (int i = first; i < argc; i++) files += round_trip_tree(&t, &mem, argv[i]);
  if (argc > first && files < 3) {
    t.failed++;
    printf("FAIL found only %d .dpia files under the directories given\n", files);
  }
  printf("print: %d passed, %d failed\n", t.passed, t.failed);
  return t.failed ? 1 : 0;
}
