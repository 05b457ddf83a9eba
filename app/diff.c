/* diff.c: a unified line diff (what `dpia test` prints when an output
 * differs from its expected file).
 *
 * The common first and last lines are set aside, then the longest common
 * subsequence of the lines between is found with the quadratic table of
 * lengths, when it has at most MAX_CELLS cells; past that (two outputs with
 * nothing in common over thousands of lines) the diff is every middle line
 * removed then every new one added, still correct, only longer.  Expected
 * files are a few hundred lines, so the table is small.  At most MAX_SHOWN
 * lines are shown. */
#include "diff.h"

#include <stdint.h>

enum { CONTEXT = 3 };
enum { MAX_CELLS = 4 * 1024 * 1024 };
/* Diff lines shown at the most: past them a failure is no more readable,
 * and the rest is one `dpia test --update` and `git diff` away. */
enum { MAX_SHOWN = 300 };

typedef struct Line {
  const char *text;
  size_t len;    /* without the newline */
  bool newline; /* ends with one (only the last line may not) */
} Line;

typedef struct Lines {
  Line *at;
  size_t n;
} Lines;

static Lines split_lines(Arena *arena, const char *s, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) n += s[i] == '\n';
  if (len && s[len - 1] != '\n') n++;
  Lines l = {NEWARRAY(arena, Line, n + 1), 0};
  for (size_t begin = 0; begin < len;) {
    size_t end = begin;
    while (end < len && s[end] != '\n') end++;
    l.at[l.n++] = (Line){s + begin, end - begin, end < len};
    begin = end + 1;
  }
  return l;
}

static bool same_line(const Line *x, const Line *y) {
  return x->len == y->len && x->newline == y->newline && memcmp(x->text, y->text, x->len) == 0;
}

/* An edit: keep a line of both, delete one of a, insert one of b. */
typedef enum Op { KEEP, DEL, INS } Op;

typedef struct Edit {
  Op op;
  size_t ia, ib; /* the line of a (KEEP, DEL) and of b (KEEP, INS) */
} Edit;

/* The edits turning a into b, in order, into *edits (room for a.n + b.n). */
static size_t edit_script(Arena *arena, Lines a, Lines b, Edit *edits) {
  size_t pre = 0, suf = 0;
  while (pre < a.n && pre < b.n && same_line(&a.at[pre], &b.at[pre])) pre++;
  while (suf < a.n - pre && suf < b.n - pre && same_line(&a.at[a.n - 1 - suf], &b.at[b.n - 1 - suf])) suf++;
  size_t n = a.n - pre - suf, m = b.n - pre - suf, ne = 0;
  for (size_t i = 0; i < pre; i++) edits[ne++] = (Edit){KEEP, i, i};
  if (n && m && (n + 1) * (m + 1) <= MAX_CELLS) {
    /* len[i][j]: the LCS of a's middle from i and b's middle from j */
    uint32_t *len = NEWARRAY(arena, uint32_t, (n + 1) * (m + 1));
#define LEN(i, j) len[(i) * (m + 1) + (j)]
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        LEN(i, j) = same_line(&a.at[pre + i], &b.at[pre + j]) ? LEN(i + 1, j + 1) + 1
                    : LEN(i + 1, j) >= LEN(i, j + 1)                  ? LEN(i + 1, j)
                                                                       : LEN(i, j + 1);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && same_line(&a.at[pre + i], &b.at[pre + j])) {
        edits[ne++] = (Edit){KEEP, pre + i++, pre + j++};
      } else if (j == m || (i < n && LEN(i + 1, j) >= LEN(i, j + 1))) {
        edits[ne++] = (Edit){DEL, pre + i++, 0};
      } else {
        edits[ne++] = (Edit){INS, 0, pre + j++};
      }
    }
#undef LEN
  } else {
    for (size_t i = 0; i < n; i++) edits[ne++] = (Edit){DEL, pre + i, 0};
    for (size_t j = 0; j < m; j++) edits[ne++] = (Edit){INS, 0, pre + j};
  }
  for (size_t k = 0; k < suf; k++) edits[ne++] = (Edit){KEEP, a.n - suf + k, b.n - suf + k};
  return ne;
}

static void put_line(Buf *out, char mark, const Line *l) {
  buf_putc(out, mark);
  buf_put(out, l->text, l->len);
  buf_putc(out, '\n');
  if (!l->newline) buf_puts(out, "\\ No newline at end of file\n");
}

/* "@@ -start,count +start,count @@" as diff writes it: a count of 1 is
 * left out, an empty range starts at the line before it */
static void hunk_range(Buf *out, char sign, size_t first, size_t count) {
  if (count == 1) emit(out, " %c%zu", sign, first + 1);
  else emit(out, " %c%zu,%zu", sign, count ? first + 1 : first, count);
}

void diff_unified(Arena *arena, const char *name_a, const char *a, size_t alen, const char *name_b, const char *b,
                  size_t blen, Buf *out) {
  Lines la = split_lines(arena, a, alen), lb = split_lines(arena, b, blen);
  Edit *edits = NEWARRAY(arena, Edit, la.n + lb.n + 1);
  size_t ne = edit_script(arena, la, lb, edits);
  bool header = false;
  size_t shown = 0;
  for (size_t k = 0; k < ne;) {
    if (edits[k].op == KEEP) {
      k++;
      continue;
    }
    /* a hunk: CONTEXT kept lines before this change, every change after
     * it separated from the previous by at most 2 * CONTEXT kept lines,
     * and CONTEXT kept lines after the last */
    size_t start = k > CONTEXT ? k - CONTEXT : 0, last = k;
    for (size_t t = k + 1; t < ne && t - last - 1 <= 2 * CONTEXT; t++)
      if (edits[t].op != KEEP) last = t;
    size_t end = last + 1 + CONTEXT < ne ? last + 1 + CONTEXT : ne;
    if (!header) {
      emit(out, "--- %s\n+++ %s\n", name_a, name_b);
      header = true;
    }
    size_t na = 0, nb = 0, fa = la.n, fb = lb.n;
    for (size_t t = start; t < end; t++) {
      if (edits[t].op != INS && fa == la.n) fa = edits[t].ia;
      if (edits[t].op != DEL && fb == lb.n) fb = edits[t].ib;
      na += edits[t].op != INS;
      nb += edits[t].op != DEL;
    }
    /* an empty side starts where the other one's lines go */
    if (!na) fa = start > 0 && edits[start - 1].op != INS ? edits[start - 1].ia + 1 : 0;
    if (!nb) fb = start > 0 && edits[start - 1].op != DEL ? edits[start - 1].ib + 1 : 0;
    buf_puts(out, "@@");
    hunk_range(out, '-', fa, na);
    hunk_range(out, '+', fb, nb);
    buf_puts(out, " @@\n");
    for (size_t t = start; t < end; t++) {
      if (shown++ == MAX_SHOWN) {
        size_t left = 0;
        for (size_t r = t; r < ne; r++) left += edits[r].op != KEEP;
        emit(out, "... (the diff goes on: %zu more changed lines)\n", left);
        return;
      }
      if (edits[t].op == KEEP) put_line(out, ' ', &la.at[edits[t].ia]);
      else if (edits[t].op == DEL) put_line(out, '-', &la.at[edits[t].ia]);
      else put_line(out, '+', &lb.at[edits[t].ib]);
    }
    k = end;
  }
}
