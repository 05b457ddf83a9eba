/* prelude.c: the standard prelude (docs/language.md section 10), defs
 * written in dpia that every program may use without declaring them:
 * windows and padding over two and three dimensions, built from the
 * one-dimensional views and view maps (section 9), so they cost nothing
 * at run time.
 *
 * Each def uses primitives only, never another prelude def, so a program
 * that declares one of these names itself replaces that def and no other.
 * The prelude is parsed only when a program names one of its defs, and
 * only the named defs join the program: programs that do not use it pay
 * nothing, and `dpia check -v` lists the program's own declarations. */
#include "check.h"

#include <pthread.h>
#include <string.h>

/* slide2D s t: [n][m]d -> [..][..][s][s]d, windows indexed like the input
 * ([row][column]); slide3D likewise ([plane][row][column]).  The padding
 * defs pad every dimension, l before and r after.  padCst pads the rows
 * with c, then the outer dimension with rows of c (indices of the padded
 * row mapped to c: a view, so the corners are c too); being views with
 * acceptor forms over a view map, they write through after a grid map
 * (strategy.c, strategy_write_through; docs/language.md section 16).
 * splitPad k c: [n]d -> [ceil(n/k)][k]d splits into rows of k, the last
 * one filled up with c (docs/reference.md, "Sizes that do not divide").
 * mapPad k c f: [n]a -> [n]b runs f, a map over rows of k that carries
 * the strategy (mapWorkgroup (mapLocal g), mapGlobal (mapSeq g) ...), over
 * the rows of splitPad k c, and keeps the first n results: the tail's
 * work-items run on c and their writes are dropped by take's guard (and
 * what only the write reads goes into the guard: codegen/guard_sink.c).
 * mapPadClamp k f is mapPad with the last row filled up by repeating the
 * array's last element: no value of the element type is needed, which is
 * what lets a rewrite rule (padSplitJoin, rules.h) make any map one over
 * tiles without knowing its element type.  tileIndices k xs: [n]d ->
 * [ceil(n/k)]idx[ceil(n/k)] are the indices of xs's tiles of k, the last
 * one partial; only xs's length is used, which is what lets a rewrite
 * rule (partialReduceAny) count the tiles of an array whose length the
 * source tree does not know. */
static const char prelude_text[] =
    "def slide2D (S T: nat) (N M: nat) (d: data) (xs: [T*N+S][T*M+S]d) =\n"
    "  xs |> map (slide S T) |> slide S T |> map transpose\n"
    "def slide3D (S T: nat) (P N M: nat) (d: data) (xs: [T*P+S][T*N+S][T*M+S]d) =\n"
    "  xs |> map (\\plane -> plane |> map (slide S T) |> slide S T |> map transpose)\n"
    "     |> slide S T |> map transpose |> map (map transpose)\n"
    "def padClamp2D (L R: nat) (N M: nat) (d: data) (xs: [N][M]d) =\n"
    "  xs |> map (padClamp L R) |> padClamp L R\n"
    "def padClamp3D (L R: nat) (P N M: nat) (d: data) (xs: [P][N][M]d) =\n"
    "  xs |> map (\\plane -> plane |> map (padClamp L R) |> padClamp L R) |> padClamp L R\n"
    "def padCst2D (L R: nat) (N M: nat) (d: data) (c: d) (xs: [N][M]d) =\n"
    "  xs |> map (padCst L R c) |> padCst L R (indices (L+M+R) |> map (\\j -> c))\n"
    "def padCst3D (L R: nat) (P N M: nat) (d: data) (c: d) (xs: [P][N][M]d) =\n"
    "  xs |> map (\\plane -> plane |> map (padCst L R c) |> padCst L R (indices (L+M+R) |> map (\\j -> c)))\n"
    "     |> padCst L R (indices (L+N+R) |> map (\\i -> indices (L+M+R) |> map (\\j -> c)))\n"
    "def zip2D (N M: nat) (a b: data) (xs: [N][M]a) (ys: [N][M]b) =\n"
    "  zip xs ys |> map (\\rows -> zip (fst rows) (snd rows))\n"
    "def splitPad (K: nat) (N: nat) (d: data) (c: d) (xs: [N]d) =\n"
    "  xs |> padCst 0 (ceil(N/K)*K - N) c |> split K\n"
    "def mapPad (K: nat) (N: nat) (a b: data) (c: a)\n"
    "    (f: exp[[ceil(N/K)][K]a] -> exp[[ceil(N/K)][K]b]) (xs: [N]a) =\n"
    "  xs |> padCst 0 (ceil(N/K)*K - N) c |> split K |> f |> join |> take N\n"
    "def mapPadClamp (K: nat) (N: nat) (a b: data)\n"
    "    (f: exp[[ceil(N/K)][K]a] -> exp[[ceil(N/K)][K]b]) (xs: [N]a) =\n"
    "  xs |> padClamp 0 (ceil(N/K)*K - N) |> split K |> f |> join |> take N\n"
    "def tileIndices (K: nat) (N: nat) (d: data) (xs: [N]d) = indices (ceil(N/K))\n";

static const char *const prelude_names[] = {"slide2D",  "slide3D",     "padClamp2D", "padClamp3D",
                                            "padCst2D", "padCst3D",    "zip2D",      "splitPad",
                                            "mapPad",   "mapPadClamp", "tileIndices"};
enum { NPRELUDE = sizeof prelude_names / sizeof prelude_names[0] };
_Static_assert(NPRELUDE <= 32, "a prelude def is one bit of a mask (Lexer's prelude_named)");
/* the lengths of the shortest and longest names (check_names checks them: prelude_lengths holds them) */
enum { PRELUDE_SHORTEST = sizeof "zip2D" - 1, PRELUDE_LONGEST = sizeof "mapPadClamp" - 1 };

static bool ident_char(char ch) {
  /* bit c of these: the digits (48-57); A-Z (65-90), _ (95), a-z (97-122) */
  const uint64_t low = 0x03FF000000000000u, high = 0x07FFFFFE87FFFFFEu;
  unsigned c = (unsigned char)ch;
  return c < 64 ? (low >> c) & 1 : c < 128 && ((high >> (c - 64)) & 1);
}

/* Each name's length, found once per process with the names' check
 * (check_names, below), read-only after. */
static unsigned char prelude_lengths[NPRELUDE];

/* Whether the word of n letters at word is a prelude name (its bit set in
 * named). */
static void mark_name(const char *word, size_t n, uint32_t *named) {
  for (int i = 0; i < NPRELUDE; i++)
    if (prelude_lengths[i] == n && prelude_names[i][0] == word[0] && memcmp(prelude_names[i], word, n) == 0)
      *named |= 1u << i;
}

/* Whether any of the 8 bytes of w is an upper-case ASCII letter: for a byte
 * b, (b | 0x80) - 'A' keeps bit 7 exactly when b >= 'A' (no borrow crosses
 * into the next byte, whose bit 7 is set), likewise for 'Z' + 1; a byte
 * with bit 7 set (UTF-8) counts as no letter. */
static bool has_upper(uint64_t w) {
  const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  uint64_t at_least_a = (w | high) - 'A' * ones, past_z = (w | high) - ('Z' + 1) * ones;
  return (at_least_a & ~past_z & ~w & high) != 0;
}

/* Which prelude names the text has as whole words (maximal runs of
 * ident_char): a mention in a comment counts too (the def is then checked
 * but changes nothing).  Every prelude name has an upper-case letter
 * (check_names checks it), so only the words around the text's upper-case
 * letters are looked at, found 8 bytes at a time: a program has few of
 * them, and the per-byte scan of every word was the parser's largest
 * cost after the lexer's (translation throughput, BENCHMARKS.md).  And
 * only the words around the letters of triggers, the first upper-case
 * letter of each name (C D I P): a word that is a name has that name's,
 * and most of a program's upper-case letters (mapWorkgroup, reduceSeq,
 * asVector) are none of them, so their words are not compared at all. */
static void mentions(const char *text, const char *end, uint32_t triggers, uint32_t *named) {
  for (const char *p = text; p < end;) {
    if (end - p >= 8) {
      uint64_t w;
      memcpy(&w, p, sizeof w);
      if (!has_upper(w)) {
        p += 8;
        continue;
      }
      while (*p < 'A' || *p > 'Z') p++; /* one of these 8 is */
    } else if (*p < 'A' || *p > 'Z') {
      p++;
      continue;
    }
    if (!((triggers >> (*p - 'A')) & 1)) {
      p++; /* the word's other letters are looked at on the way */
      continue;
    }
    /* p at a trigger letter after the words looked at: its word */
    const char *word = p;
    while (word > text && ident_char(word[-1])) word--;
    const char *after = p + 1;
    while (after < end && ident_char(*after)) after++;
    mark_name(word, (size_t)(after - word), named);
    p = after;
  }
}

/* The first upper-case letter of name, or 0. */
static char first_upper_letter(const char *name) {
  for (; *name; name++)
    if (*name >= 'A' && *name <= 'Z') return *name;
  return 0;
}

/* Whether the names have the lengths and letters mentions relies on, and
 * the set of their first upper-case letters (bit c - 'A' for a letter c:
 * mentions' triggers), found once per process (the names are constants;
 * as prims.c builds its name index), read-only after; prelude_add reports
 * it otherwise. */
static bool names_fit;
static uint32_t name_triggers;
static pthread_once_t names_checked = PTHREAD_ONCE_INIT;

static void check_names(void) {
  bool fit = true;
  uint32_t triggers = 0;
  for (int i = 0; i < NPRELUDE; i++) {
    size_t n = strlen(prelude_names[i]);
    char upper = first_upper_letter(prelude_names[i]);
    fit = fit && n >= PRELUDE_SHORTEST && n <= PRELUDE_LONGEST && upper;
    if (upper) triggers |= 1u << (upper - 'A');
    prelude_lengths[i] = (unsigned char)n;
  }
  names_fit = fit;
  name_triggers = triggers;
}

static void check_names_once(void) {
  pthread_once(&names_checked, check_names);
  if (!names_fit)
    INTERNAL("a prelude name is not of %d to %d letters or has no upper-case letter (mentions)", PRELUDE_SHORTEST,
             PRELUDE_LONGEST);
}

int prelude_def_count(void) { return NPRELUDE; }
const char *prelude_def_name(int i) { return prelude_names[i]; }

void prelude_words_in(const char *begin, const char *end, uint32_t *named) {
  check_names_once();
  mentions(begin, end, name_triggers, named);
}

static bool declares(const Program *prog, const char *name) {
  for (int i = 0; i < prog->ndecls; i++)
    if (strcmp(prog->decls[i]->name, name) == 0) return true;
  return false;
}

void prelude_add(Arena *a, Interner *in, Diag *diag, Program *prog, const uint32_t *named) {
  bool wanted[NPRELUDE];
  int nwanted = 0;
  uint32_t scanned = 0;
  if (!named) {
    check_names_once();
    mentions(prog->src->text, prog->src->text + prog->src->len, name_triggers, &scanned);
    named = &scanned;
  }
  if (!*named) return; /* most programs: no def declared or made */
  for (int i = 0; i < NPRELUDE; i++) {
    wanted[i] = ((*named >> i) & 1) && !declares(prog, prelude_names[i]);
    nwanted += wanted[i];
  }
  if (!nwanted) return;
  Source *src = NEW(a, Source);
  source_init_lazy(src, a, "<prelude>", prelude_text, sizeof prelude_text - 1);
  Program *prelude = parse_program_deep(a, in, diag, src, DPIA_MAX_NESTING);
  if (prelude->ndecls != NPRELUDE) INTERNAL("the prelude does not parse");
  Decl **decls = NEWARRAY(a, Decl *, prog->ndecls + nwanted);
  int n = 0;
  for (int i = 0; i < NPRELUDE; i++) {
    Decl *d = prelude->decls[i];
    if (strcmp(d->name, prelude_names[i]) != 0) INTERNAL("prelude def %d is not %s", i, prelude_names[i]);
    if (!wanted[i]) continue;
    d->from_prelude = true;
    decls[n++] = d;
  }
  for (int i = 0; i < prog->ndecls; i++) decls[n++] = prog->decls[i];
  prog->decls = decls;
  prog->ndecls = n;
}
