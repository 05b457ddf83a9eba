/* header.c: `--emit=header` (spec section 9): a self-contained C header,
 * usable from C11 and C++17, that embeds the kernels of one source file and
 * launches them.
 *
 * For each kernel NAME the header holds its OpenCL C source as string
 * constants and the static inline functions
 *   int dpia_NAME_launch(cl_command_queue q, <kernel parameters without the
 *                        temporaries and local buffers>);
 *   int dpia_NAME_enqueue(<the same>, cl_uint num_events, const cl_event *wait_list, cl_event *event);
 *   void dpia_NAME_release(void);
 *   int dpia_NAME_check(<nat parameters>, char *msg, size_t n);  which check fails, with the values
 *   size_t dpia_NAME_PARAM_elements(<nat parameters>);  per buffer parameter (outputs, inputs, temporaries)
 * A launcher checks the sizes and the preconditions (evaluated in C from the
 * int size arguments, in long long with every + - * / % checked for
 * overflow and division by zero), evaluates the NDRange and the sizes of
 * the temporaries, takes the program of the queue's context from a small
 * lock-free cache (building it on first use, with the options of
 * dpia_NAME_set_build_options; a failed build leaves its log for
 * dpia_last_build_log), checks every buffer argument's CL_MEM_SIZE and
 * that no output shares bytes with another buffer argument, takes a
 * kernel object from the program's pool,
 * allocates the global temporaries, sets the arguments in the order of the
 * kernel interface (spec section 8), enqueues the kernel and releases what
 * it made (OpenCL keeps buffers alive until the kernel using them is done).
 *
 * The part every header shares (error codes, dpia_error_string, checked
 * arithmetic, the cache) is guarded by DPIA_HEADER_COMMON, host typedefs of
 * pair types by one macro per type, so several headers can be included in
 * one translation unit.  The threading rule is written into the header's
 * leading comment (see threading_rule below). */
#include <string.h>

#include "dpia.h"
#include "backend_opencl.h"
#include "kernel.h"
#include "header_common.h"
#include "header_int.h"
#include "pipeline_emit.h"

/* Names a parameter of a launcher cannot have.  A launcher's parameters
 * are the program's names (kparam_name), which code generation renamed in
 * the kernel only where OpenCL C reserves them: `step` is a fine name in
 * host C, `char`, `NULL` or `EOF` are not.  So: C's keywords (C23's too),
 * C++ keywords and alternative tokens (the header compiles as C++),
 * object-like macros of the headers the header includes (limits.h,
 * stddef.h, stdio.h, stdlib.h, string.h, stdatomic.h and OpenCL's CL_
 * ones; OpenCL C's list of predefined macros has C's limits), and the
 * types and functions a launcher's body names.  Function-like macros are
 * no danger: a parameter is never followed by '('. */
static const char *const host_reserved[] = {
    /* C */
    "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "false", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "true", "typedef", "typeof", "typeof_unqual",
    "union", "unsigned", "void", "volatile", "while",
    /* C++ */
    "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "catch", "char16_t", "char32_t",
    "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "consteval", "constexpr",
    "constinit", "const_cast", "decltype", "delete", "dynamic_cast", "explicit", "export", "friend",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
    "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast", "template",
    "this", "thread_local", "throw", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor",
    "xor_eq",
    /* the C library */
    "errno", "assert", "offsetof", "std", "NULL", "EOF", "BUFSIZ", "FILENAME_MAX", "FOPEN_MAX", "TMP_MAX",
    "L_tmpnam", "L_ctermid", "P_tmpdir", "SEEK_SET", "SEEK_CUR", "SEEK_END", "EXIT_SUCCESS", "EXIT_FAILURE",
    "RAND_MAX", "MB_CUR_MAX", "NZERO", "stdin", "stdout", "stderr", "size_t", "ptrdiff_t", "max_align_t",
    "FILE", "fpos_t", "snprintf", "memcpy", "memmove", "memchr", "memset", "strlen", "strcmp", "malloc",
    "calloc", "realloc", "free", "abort",
    /* the launchers' own */
    "q",
};
static const char *const host_reserved_prefixes[] = {"dpia_", "DPIA_", "cl_", "CL_", "memory_order", "atomic_",
                                                     "ATOMIC_", "kill_dependency", "__"};
/* limits.h's and stdint.h's macros, POSIX's among them (PATH_MAX,
 * INT32_MAX, UINT64_C, LONG_BIT): capitals, digits and '_' ending so */
static const char *const host_reserved_macro_suffixes[] = {"_MAX", "_MIN", "_BIT", "_WIDTH", "_C", "_BUF"};


static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

static bool host_is_reserved(const char *name) {
  for (size_t i = 0; i < DPIA_COUNTOF(host_reserved); i++)
    if (strcmp(name, host_reserved[i]) == 0) return true;
  for (size_t i = 0; i < DPIA_COUNTOF(host_reserved_prefixes); i++)
    if (strncmp(name, host_reserved_prefixes[i], strlen(host_reserved_prefixes[i])) == 0) return true;
  /* _X (reserved by C), clX... (OpenCL's API functions, which the
   * launchers call) */
  if ((name[0] == '_' && is_upper(name[1])) || (name[0] == 'c' && name[1] == 'l' && is_upper(name[2]))) return true;
  /* OpenCL C's predefined macros: C's limits.h and float.h ones, M_PI ... */
  if (opencl_name_macro(name)) return true;
  bool caps = true;
  for (const char *c = name; *c; c++) caps &= is_upper(*c) || *c == '_' || (*c >= '0' && *c <= '9');
  size_t n = strlen(name);
  for (size_t i = 0; caps && i < DPIA_COUNTOF(host_reserved_macro_suffixes); i++) {
    size_t m = strlen(host_reserved_macro_suffixes[i]);
    if (n > m && strcmp(name + n - m, host_reserved_macro_suffixes[i]) == 0) return true;
  }
  return false;
}

/* The launcher's name for a kernel parameter: its own, or with a trailing
 * underscore when the host side reserves it or it ends in one (so that q
 * and q_ become q_ and q__: distinct names stay distinct).  The launcher's
 * own locals all begin with dpia_ and never end in an underscore, so they
 * cannot clash. */
static const char *host_name(H *h, const char *name) {
  size_t n = strlen(name);
  return host_is_reserved(name) || (n && name[n - 1] == '_') ? arena_printf(h->a, "%s_", name) : name;
}

/* a kernel parameter's launcher name: the program's name (`step`, whose C
 * name in the kernel is step_2: an OpenCL built-in, not a C one) */
const char *host_param(H *h, const KParam *p) {
  /* a name with a prime (xs') has no C spelling, and one beginning with
   * __ or _ and a capital is C's: then the kernel's C name (xs_p), which
   * no other parameter's program name is (codegen/kernel.c takes those
   * first) */
  const char *n = kparam_name(p);
  bool c_own = !strchr(n, '\'') && !(n[0] == '_' && (n[1] == '_' || is_upper(n[1])));
  return host_name(h, c_own ? n : p->name);
}

/* An in-place kernel's output is the buffer of the input it updates
 * (docs/language.md section 27): the launchers take that one buffer, under
 * the input's name, and pass it as the input's argument (the output is
 * none: kparam_arg). */
bool host_omits(const ImpKernel *k, int i) { return k->in_place && i < k->nupdated; }
bool host_updated(const ImpKernel *k, int i) { return kparam_is_updated(k, i); }
const char *host_buffer(H *h, const ImpKernel *k, int i) {
  return host_param(h, &k->params[kparam_buffer_of(k, i)]);
}

/* ---- types ---- */

/* the typedef name of a pair: dpia_pair_float_int, as the kernel's
 * pair_float_int (Polish notation: distinct types, distinct names) */
void type_tag(Buf *b, DataType *t) {
  t = dt_resolve(t);
  int64_t n = 0;
  switch (t->kind) {
  case DT_SCALAR:
    buf_puts(b, scalar_name(t->scalar));
    if (t->width > 1) emit(b, "%d", t->width);
    return;
  case DT_PAIR:
    buf_puts(b, "pair_");
    type_tag(b, t->fst);
    buf_putc(b, '_');
    type_tag(b, t->snd);
    return;
  case DT_ARRAY:
    size_const_value(t->size, &n);
    emit(b, "arr%lld_", (long long)n);
    type_tag(b, t->elem);
    return;
  case DT_IDX: buf_puts(b, "int"); return;
  default: INTERNAL("no host type for data type kind %d", (int)t->kind);
  }
}

DataType *elem_of(DataType *t) {
  t = dt_resolve(t);
  while (t->kind == DT_ARRAY) t = dt_resolve(t->elem);
  return t;
}

/* The host type of a scalar, vector, index or pair.  A by-value scalar is
 * `float`, `int`, `double` as in the kernel interface; in a struct or a
 * buffer element the cl_ type of cl_platform.h (identical in size and
 * alignment to the device's, vectors included). */
static const char *host_type(H *h, DataType *t, bool cl) {
  t = dt_resolve(t);
  switch (t->kind) {
  case DT_SCALAR:
    if (t->scalar == SC_BOOL) INTERNAL("bool in a kernel interface");
    if (t->width > 1) return arena_printf(h->a, "cl_%s%d", scalar_name(t->scalar), t->width);
    return cl ? arena_printf(h->a, "cl_%s", scalar_name(t->scalar)) : scalar_name(t->scalar);
  case DT_IDX: return cl ? "cl_int" : "int";
  case DT_PAIR: {
    Buf b;
    buf_init(&b, h->a);
    buf_puts(&b, "dpia_");
    type_tag(&b, t);
    return b.data;
  }
  default: INTERNAL("no host type for %s", dt_str(h->a, t));
  }
}

/* the bytes of one element of buffer p, as a C expression: sizeof its
 * cl_ type, or 3 scalars for a packed array of 3-vectors (kparam_packed3) */
static const char *elem_sizeof(H *h, const KParam *p) {
  DataType *e = elem_of(p->type);
  if (kparam_packed3(p)) return arena_printf(h->a, "3 * sizeof(cl_%s)", scalar_name(e->scalar));
  return arena_printf(h->a, "sizeof(%s)", host_type(h, e, true));
}

/* pair types in dependency order (fields first), each once */
static void collect_pairs(H *h, Vec *pairs, DataType *t) {
  t = elem_of(t);
  if (t->kind != DT_PAIR) return;
  collect_pairs(h, pairs, t->fst);
  collect_pairs(h, pairs, t->snd);
  for (int i = 0; i < pairs->len; i++)
    if (dt_equal(pairs->items[i], t)) return;
  vec_push(h->a, pairs, t);
}

static void emit_host_struct(H *h, DataType *t) {
  const char *name = host_type(h, t, true);
  emit(h->out, "#ifndef DPIA_TYPE_%s\n#define DPIA_TYPE_%s\n", name + 5, name + 5);
  emit(h->out, "typedef struct {\n");
  DataType *f[2] = {dt_resolve(t->fst), dt_resolve(t->snd)};
  for (int i = 0; i < 2; i++) {
    emit(h->out, "  %s %s", host_type(h, elem_of(f[i]), true), i ? "snd" : "fst");
    int64_t n = 1, m;
    for (DataType *e = f[i]; e->kind == DT_ARRAY; e = dt_resolve(e->elem))
      if (size_const_value(e->size, &m)) n *= m;
    if (f[i]->kind == DT_ARRAY) emit(h->out, "[%lld]", (long long)n);
    emit(h->out, ";\n");
  }
  emit(h->out, "} %s;\n#endif\n\n", name);
}

/* ---- size expressions ----
 *
 * Sizes (size_print) are C integer expressions over the nat parameters:
 * integers, names, + - * / % (exact or C truncation), == != < <= > >=,
 * && || !, unary -, parentheses.  They are re-emitted as C over long long
 * with the arithmetic checked: dpia_mul_(a, b, &dpia_bad) sets dpia_bad
 * instead of overflowing or dividing by zero.  A precondition (precond.h)
 * is its two sizes so re-emitted, related as its kind says (c_precond). */

typedef struct Ex {
  H *h;
  const ImpKernel *k;
  const char *s;
  size_t pos;
} Ex;

static void ex_space(Ex *e) {
  while (e->s[e->pos] == ' ') e->pos++;
}

static bool ex_accept(Ex *e, const char *op) {
  ex_space(e);
  size_t n = strlen(op);
  if (strncmp(e->s + e->pos, op, n) != 0) return false;
  /* < is not the start of <=, nor = of == */
  if (n == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '!') && e->s[e->pos + 1] == '=') return false;
  e->pos += n;
  return true;
}

static const char *ex_or(Ex *e);

static const char *ex_primary(Ex *e) {
  ex_space(e);
  const char *p = e->s + e->pos;
  if (*p == '(') {
    e->pos++;
    const char *inner = ex_or(e);
    if (!ex_accept(e, ")")) INTERNAL("size expression '%s': missing ')'", e->s);
    return arena_printf(e->h->a, "(%s)", inner);
  }
  size_t n = 0;
  if (*p >= '0' && *p <= '9') {
    while (p[n] >= '0' && p[n] <= '9') n++;
    e->pos += n;
    return arena_printf(e->h->a, "%.*sLL", (int)n, p);
  }
  while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || p[n] == '_' ||
         (n > 0 && p[n] >= '0' && p[n] <= '9'))
    n++;
  if (n == 0) INTERNAL("size expression '%s': unexpected '%s'", e->s, p);
  e->pos += n;
  for (int i = 0; i < e->k->nparams; i++) {
    const KParam *kp = &e->k->params[i];
    if (kp->role == KP_NAT && strlen(kp->name) == n && strncmp(kp->name, p, n) == 0)
      return host_param(e->h, kp); /* an int: converted to long long */
  }
  INTERNAL("size expression '%s' names '%.*s', not a nat parameter of %s", e->s, (int)n, p, e->k->name);
}

static const char *ex_unary(Ex *e) {
  if (ex_accept(e, "-")) return arena_printf(e->h->a, "dpia_neg_(%s, &dpia_bad)", ex_unary(e));
  if (ex_accept(e, "!")) return arena_printf(e->h->a, "!%s", ex_unary(e));
  return ex_primary(e);
}

static const char *ex_mul(Ex *e) {
  const char *l = ex_unary(e);
  for (;;) {
    const char *f = ex_accept(e, "*") ? "mul" : ex_accept(e, "/") ? "div" : ex_accept(e, "%") ? "mod" : NULL;
    if (!f) return l;
    l = arena_printf(e->h->a, "dpia_%s_(%s, %s, &dpia_bad)", f, l, ex_unary(e));
  }
}

static const char *ex_add(Ex *e) {
  const char *l = ex_mul(e);
  for (;;) {
    const char *f = ex_accept(e, "+") ? "add" : ex_accept(e, "-") ? "sub" : NULL;
    if (!f) return l;
    l = arena_printf(e->h->a, "dpia_%s_(%s, %s, &dpia_bad)", f, l, ex_mul(e));
  }
}

static const char *ex_rel(Ex *e) {
  const char *l = ex_add(e);
  static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
  for (;;) {
    const char *op = NULL;
    for (size_t i = 0; i < DPIA_COUNTOF(ops) && !op; i++)
      if (ex_accept(e, ops[i])) op = ops[i];
    if (!op) return l;
    l = arena_printf(e->h->a, "(%s %s %s)", l, op, ex_add(e));
  }
}

static const char *ex_and(Ex *e) {
  const char *l = ex_rel(e);
  while (ex_accept(e, "&&")) l = arena_printf(e->h->a, "(%s && %s)", l, ex_rel(e));
  return l;
}

static const char *ex_or(Ex *e) {
  const char *l = ex_and(e);
  while (ex_accept(e, "||")) l = arena_printf(e->h->a, "(%s || %s)", l, ex_and(e));
  return l;
}

static const char *c_expr(H *h, const ImpKernel *k, const char *text) {
  Ex e = {h, k, text, 0};
  const char *c = ex_or(&e);
  ex_space(&e);
  if (text[e.pos]) INTERNAL("size expression '%s': unexpected '%s'", text, text + e.pos);
  return c;
}

static const char *c_size_at(H *h, const ImpKernel *k, Size s, SizePosition position) {
  Buf b;
  buf_init(&b, h->a);
  size_print_in(&b, s, SIZE_SYNTAX_C, position);
  return c_expr(h, k, b.data);
}

const char *c_size(H *h, const ImpKernel *k, Size s) { return c_size_at(h, k, s, SIZE_ALONE); }

/* A precondition (precond_print's text) as checked C: its sizes as
 * c_size gives them, the relation from its kind. */
const char *c_precond(H *h, const ImpKernel *k, const Precond *p) {
  switch (p->kind) {
  case PRECOND_DIVIDES:
    return arena_printf(h->a, "(dpia_mod_(%s, %s, &dpia_bad) == 0LL)", c_size_at(h, k, p->lhs, SIZE_OPERAND),
                        c_size_at(h, k, p->rhs, SIZE_DIVISOR));
  case PRECOND_AT_LEAST: return arena_printf(h->a, "(%s >= %s)", c_size(h, k, p->lhs), c_size(h, k, p->rhs));
  }
  INTERNAL("precondition kind %d", (int)p->kind);
}

/* ---- the shared part ---- */

static const char threading_rule[] =
    " * Threading: every function may be called from several threads at once,\n"
    " * with no set-up call.  The first launch of a kernel in a cl_context builds\n"
    " * its program for the context's devices and publishes it in a lock-free\n"
    " * cache of DPIA_CACHE_SLOTS contexts per kernel (C11 atomics, std::atomic in\n"
    " * C++); later launches in that context only read it.  Two threads that\n"
    " * launch a kernel for the first time in one context at the same moment may\n"
    " * both build it: one program is kept, the other released after its launch.\n"
    " * A context beyond the cache's slots gets a program built and released per\n"
    " * launch (correct, but slow).  Kernel objects: clSetKernelArg on a shared\n"
    " * cl_kernel is not thread-safe, so each cached program has a pool of\n"
    " * DPIA_KERNEL_POOL cl_kernels; a launch takes one out of the pool (an atomic\n"
    " * exchange: no other thread can hold it meanwhile), sets its arguments,\n"
    " * enqueues it (OpenCL captures the arguments at the enqueue) and puts it\n"
    " * back, or makes one when the pool is empty (as many launches at once as\n"
    " * the pool holds never create one) and releases it when the pool is full.\n"
    " * Build options (dpia_NAME_set_build_options) are part of the cache key: a\n"
    " * launch uses the options set when it starts.  A cached program keeps its context alive\n"
    " * (so a context address is never reused while cached) until\n"
    " * dpia_NAME_release(), which must not run while that kernel is launched\n"
    " * from another thread.  dpia_last_build_log() is per thread.  Why: no initialisation call to forget, no mutex\n"
    " * (C11 <threads.h> is optional and absent on several platforms), and an\n"
    " * occasional duplicate build costs less than making every launch wait.\n"
    " * The functions are static inline: each translation unit has its own\n"
    " * cache; include the header in one unit to share it.\n";

/* ---- one kernel ---- */

/* text inside a C comment: no comment end, no line break */
void comment_text(Buf *out, const char *s) {
  for (; *s; s++) {
    if (s[0] == '*' && s[1] == '/') buf_puts(out, "* /");
    else buf_putc(out, *s == '\n' ? ' ' : *s);
  }
}


/* the source as string constants of whole lines, each under the 4095
 * characters every C compiler must accept in one literal */
static void emit_source(H *h, const ImpKernel *k, const char *source) {
  Buf *o = h->out;
  emit(o, "/* the OpenCL C source of %s: concatenate the strings */\n", k->name);
  emit(o, "static const char *const dpia_%s_source[] = {\n  \"", k->name);
  size_t chunk = 0;
  char prev = 0;
  for (const char *p = source; *p; p++) {
    if (chunk > 3900 && (p[-1] == '\n' || chunk > 4000)) {
      buf_puts(o, "\",\n  \"");
      chunk = 0;
      prev = 0;
    }
    switch (*p) {
    case '\n':
      buf_puts(o, p[1] ? "\\n\"\n  \"" : "\\n");
      break;
    case '"': buf_puts(o, "\\\""); break;
    case '\\': buf_puts(o, "\\\\"); break;
    case '\t': buf_puts(o, "\\t"); break;
    case '?': buf_puts(o, prev == '?' ? "\\?" : "?"); break; /* no trigraphs */
    default: buf_putc(o, *p);
    }
    prev = *p;
    chunk++;
  }
  buf_puts(o, "\",\n};\n\n");
}

/* the NDRange the source was generated for: the natural one, or the user's
 * launch sizes (spec section 8) */
int launch_dims(const ImpKernel *k, const CodegenOptions *opt, bool *has_local) {
  int nd = k->ndims > 0 ? k->ndims : 1;
  *has_local = k->has_local;
  for (int d = 0; d < 3; d++) {
    if (opt && (opt->global_size[d] > 0 || opt->local_size[d] > 0) && d + 1 > nd) nd = d + 1;
    if (opt && opt->local_size[d] > 0) *has_local = true;
  }
  return nd;
}

const char *launch_size(H *h, const ImpKernel *k, int d, bool local) {
  int64_t user = h->opt ? (local ? h->opt->local_size[d] : h->opt->global_size[d]) : 0;
  if (user > 0) return arena_printf(h->a, "%lldLL", (long long)user);
  if (d >= k->ndims || (local && !k->has_local)) return "1LL";
  return c_size(h, k, local ? k->local_size[d] : k->global_size[d]);
}

/* static inline int dpia_NAME_FN(cl_command_queue q, ...), wrapped at 100
 * columns */
static void emit_signature(H *h, const ImpKernel *k, const char *fn, bool events) {
  Buf *o = h->out;
  Vec parts = {0};
  vec_push(h->a, &parts, "cl_command_queue q");
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    const char *n = host_param(h, p);
    if (host_omits(k, i)) continue;
    switch (p->role) {
    case KP_OUTPUT:
    case KP_INPUT: vec_push(h->a, &parts, arena_printf(h->a, "cl_mem %s", n)); break;
    case KP_SCALAR: vec_push(h->a, &parts, arena_printf(h->a, "%s %s", host_type(h, p->type, false), n)); break;
    case KP_NAT: vec_push(h->a, &parts, arena_printf(h->a, "int %s", n)); break;
    case KP_TEMP:
    case KP_LOCAL: break;
    }
  }
  if (events) {
    vec_push(h->a, &parts, "cl_uint dpia_num_events");
    vec_push(h->a, &parts, "const cl_event *dpia_wait_list");
    vec_push(h->a, &parts, "cl_event *dpia_event");
  }
  size_t start = o->len;
  emit(o, "static inline int dpia_%s_%s(", k->name, fn);
  size_t col = o->len - start;
  for (int i = 0; i < parts.len; i++) {
    const char *part = parts.items[i];
    size_t n = strlen(part) + 2;
    if (i && col + n > 100) {
      buf_puts(o, ",\n    ");
      col = 4;
    } else if (i) {
      buf_puts(o, ", ");
      col += 2;
    }
    buf_puts(o, part);
    col += n - 2;
  }
  buf_puts(o, ")");
}

/* "int N, int M" (the nat parameters) and "(void)N; (void)M; ", or "" */
static void nat_params(H *h, const ImpKernel *k, Buf *params, Buf *voids) {
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role != KP_NAT) continue;
    const char *n = host_param(h, &k->params[i]);
    emit(params, "%sint %s", params->len ? ", " : "", n);
    emit(voids, "(void)%s; ", n);
  }
}

/* int dpia_NAME_check(sizes..., char *dpia_msg, size_t dpia_msg_size): the
 * launcher's checks of the size arguments, saying which one fails; more
 * (NULL: none) is C run after them (a pipeline's checks of its launches) */
void emit_check(H *h, const ImpKernel *k, const char *more) {
  Buf *o = h->out;
  Buf params, voids, values, args;
  buf_init(&params, h->a);
  buf_init(&voids, h->a);
  buf_init(&values, h->a);
  buf_init(&args, h->a);
  nat_params(h, k, &params, &voids);
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role != KP_NAT) continue;
    emit(&values, "%s%s = %%d", values.len ? ", " : "", k->params[i].name);
    emit(&args, ", %s", host_param(h, &k->params[i]));
  }
  emit(o, "/* Check the size arguments of %s as its launcher does: 0 if they are\n"
          " * valid, else DPIA_ERROR_SIZE or DPIA_ERROR_PRECONDITION with a message\n"
          " * naming the failing check and the values in dpia_msg (if not NULL; at\n"
          " * most dpia_msg_size bytes with the terminating 0). */\n"
          "static inline int dpia_%s_check(%s%schar *dpia_msg, size_t dpia_msg_size) {\n",
       k->name, k->name, params.data, params.len ? ", " : "");
  emit(o, "  int dpia_bad = 0;\n  %s(void)dpia_bad;\n", voids.data);
  for (int i = 0; i < k->nparams; i++) {
    if (k->params[i].role != KP_NAT) continue;
    const char *n = host_param(h, &k->params[i]);
    emit(o, "  if (%s < 0) {\n"
            "    if (dpia_msg && dpia_msg_size) (void)snprintf(dpia_msg, dpia_msg_size, \"size %s = %%d is negative\", %s);\n"
            "    return DPIA_ERROR_SIZE;\n"
            "  }\n",
         n, k->params[i].name, n);
  }
  for (int i = 0; i < k->nprecond; i++) {
    const char *pre = precond_text(h->a, &k->preconds[i]);
    emit(o, "  if (!%s) {\n"
            "    if (dpia_msg && dpia_msg_size)\n"
            "      (void)snprintf(dpia_msg, dpia_msg_size, \"precondition %%s %%s for %s\", \"%s\",\n"
            "                     dpia_bad ? \"cannot be evaluated (overflow)\" : \"does not hold\"%s);\n"
            "    return dpia_bad ? DPIA_ERROR_SIZE : DPIA_ERROR_PRECONDITION;\n"
            "  }\n",
         c_precond(h, k, &k->preconds[i]), values.data, pre, args.data);
  }
  if (more) buf_puts(o, more);
  emit(o, "  if (dpia_msg && dpia_msg_size) dpia_msg[0] = 0;\n  return DPIA_SUCCESS;\n}\n\n");
}

/* size_t dpia_NAME_PARAM_elements(sizes...) for every buffer parameter:
 * its number of elements (per work-group for local memory), 0 if that
 * overflows or a size is negative */
void emit_element_counts(H *h, const ImpKernel *k) {
  Buf *o = h->out;
  Buf params, voids;
  buf_init(&params, h->a);
  buf_init(&voids, h->a);
  nat_params(h, k, &params, &voids);
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    const char *what = p->role == KP_OUTPUT ? "output buffer"
                       : p->role == KP_INPUT ? "input buffer"
                       : p->role == KP_TEMP  ? "global temporary (allocated by the launcher)"
                       : p->role == KP_LOCAL ? "local temporary, per work-group (set by the launcher)"
                                             : NULL;
    if (!what) continue;
    Buf t;
    buf_init(&t, h->a);
    dt_print(&t, elem_of(p->type));
    emit(o, "/* elements (%s) of %s %s of %s */\n"
            "static inline size_t dpia_%s_%s_elements(%s) {\n"
            "  int dpia_bad = 0;\n"
            "  size_t dpia_n;\n"
            "  %s(void)dpia_bad;\n"
            "  dpia_n = dpia_size_(%s, &dpia_bad);\n"
            "  return dpia_bad ? 0 : dpia_n;\n"
            "}\n",
         t.data, what, kparam_name(p), k->name, k->name, host_param(h, p), params.len ? params.data : "void",
         voids.data, c_size(h, k, p->elements));
  }
  buf_putc(o, '\n');
}

/* The launcher's name of a parameter in messages: the program's */
static const char *param_label(const KParam *p) { return kparam_name(p); }

/* After the sizes: DPIA_ERROR_SIZE when one overflowed (dpia_bad) */
void emit_size_overflow(H *h, const char *name) {
  emit(h->out, "  if (dpia_bad)\n"
               "    return dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"a launch or buffer size overflows at these sizes\");\n",
       name);
}

/* In the loop over the dimensions, when the NDRange has no work-item (a
 * grid of ceil(N/64) groups at N = 0): nothing to compute if every output
 * is empty, else DPIA_ERROR_SIZE naming the output no work-item would
 * write, with the code dpia run gives it (E0413 EMPTY_NDRANGE,
 * docs/errors.md).  Expects dpia_bytes_I of each output; then closes the
 * test. */
void emit_empty_launch(H *h, const ImpKernel *k, const char *nothing) {
  emit(h->out, "    if (dpia_global[dpia_i] == 0) { /* no work-item: nothing to compute when every output is empty */\n");
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_OUTPUT)
      emit(h->out,
           "      if (dpia_bytes_%d != 0)\n"
           "        return dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"error[E0413]: the NDRange has no work-item at these "
           "sizes, but output %s is not empty\");\n",
           i, k->name, param_label(&k->params[i]));
  emit(h->out, "      return %s;\n    }\n", nothing);
}

/* Every buffer argument holds what the kernel touches, and no output shares
 * a byte the kernel touches with another buffer argument (the parameters
 * are restrict, spec section 8), before anything is enqueued; the message
 * names the parameters.  Inputs may share: the kernel only reads them.
 * Whether a kernel would be right in place (element i written only from
 * element i) is not decided: under restrict the OpenCL compiler may reorder
 * the loads and stores of a work-item as if the buffers were disjoint, so
 * no launch is allowed in place.  Expects dpia_bytes_I of each buffer. */
static void emit_buffer_checks(H *h, const ImpKernel *k) {
  Buf *o = h->out;
  emit(o, "  /* every buffer holds the bytes touched in it, and no output shares them */\n");
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role != KP_OUTPUT && p->role != KP_INPUT) continue;
    if (host_omits(k, i)) continue; /* the buffer of the input it updates, checked as that */
    emit(o, "  if (dpia_err == CL_SUCCESS)\n"
            "    dpia_err = dpia_check_buffer_(%s, dpia_bytes_%d, %s, \"%s\", \"%s\");\n",
         host_param(h, p), i, elem_sizeof(h, p), p->role == KP_OUTPUT ? "output" : "input", param_label(p));
  }
  for (int i = 0; i < k->nparams; i++) {
    const KParam *out = &k->params[i];
    if (out->role != KP_OUTPUT) continue;
    for (int j = 0; j < k->nparams; j++) {
      const KParam *p = &k->params[j];
      /* two outputs once; an in-place output and its input are one buffer
       * on purpose, and the input it updates is not read elsewhere */
      if (j == i || (p->role != KP_OUTPUT && p->role != KP_INPUT) || (p->role == KP_OUTPUT && j < i)) continue;
      if (kparam_is_updated(k, j)) continue; /* checked as its output */
      const KParam *named = &k->params[kparam_buffer_of(k, i)];
      emit(o, "  if (dpia_err == CL_SUCCESS)\n"
              "    dpia_err = dpia_check_alias_(%s, dpia_bytes_%d, \"%s\", %s, dpia_bytes_%d, \"%s\", \"%s\");\n",
           host_buffer(h, k, i), i, param_label(named), host_buffer(h, k, j), j,
           p->role == KP_OUTPUT && !host_omits(k, j) ? "output" : "input", param_label(&k->params[kparam_buffer_of(k, j)]));
    }
  }
  emit(o, "  if (dpia_err != CL_SUCCESS) return dpia_error_in_(dpia_err, \"%s\");\n", k->name);
}

static void emit_kernel(H *h, const ImpKernel *k, const char *source) {
  Buf *o = h->out;
  Arena *a = h->a;
  bool has_local;
  int nd = launch_dims(k, h->opt, &has_local);

  /* documentation */
  emit(o, "/* ---- kernel %s ----\n *\n * dpia_%s_launch(q", k->name, k->name);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role != KP_TEMP && k->params[i].role != KP_LOCAL && !host_omits(k, i))
      emit(o, ", %s", host_param(h, &k->params[i]));
  emit(o, ")\n");
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    Buf t;
    buf_init(&t, a);
    dt_print(&t, p->role == KP_SCALAR || p->role == KP_NAT ? p->type : elem_of(p->type));
    if (kparam_packed3(p)) emit(&t, " (packed: 3 %ss each)", scalar_name(elem_of(p->type)->scalar));
    Buf n;
    buf_init(&n, a);
    size_print(&n, p->elements);
    const char *name = host_param(h, p);
    if (host_omits(k, i)) continue;
    switch (p->role) {
    case KP_OUTPUT: emit(o, " *   %s: output buffer of %s %s\n", name, n.data, t.data); break;
    case KP_INPUT:
      if (host_updated(k, i))
        emit(o, " *   %s: input and output buffer of %s %s, updated in place (the kernel's %s)\n", name, n.data,
             t.data, host_param(h, &k->params[kparam_output_of(k, i)]));
      else if (p->binder && p->binder->permutation)
        emit(o,
             " *   %s: input buffer of %s %s, a permutation of 0 .. %s - 1 (each once: the kernel writes to the "
             "positions it holds; not checked here, the caller's precondition)\n",
             name, n.data, t.data, n.data);
      else
        emit(o, " *   %s: input buffer of %s %s\n", name, n.data, t.data);
      break;
    case KP_SCALAR: emit(o, " *   %s: %s\n", name, t.data); break;
    case KP_NAT: emit(o, " *   %s: size (int, at least 0)\n", name); break;
    case KP_TEMP: emit(o, " *   (allocated by the launcher: global temporary %s of %s %s)\n", name, n.data, t.data); break;
    case KP_LOCAL: emit(o, " *   (set by the launcher: local memory %s of %s %s per work-group)\n", name, n.data, t.data); break;
    }
  }
  emit(o, " * Preconditions:");
  precond_print_list(o, k->nprecond, k->preconds);
  emit(o, "\n * NDRange: global size");
  for (int d = 0; d < nd; d++) {
    Buf s;
    buf_init(&s, a);
    if (h->opt && h->opt->global_size[d] > 0) emit(&s, "%lld", (long long)h->opt->global_size[d]);
    else if (d < k->ndims) size_print(&s, k->global_size[d]);
    else buf_puts(&s, "1");
    emit(o, "%s%s", d ? ", " : " ", s.data);
  }
  if (!has_local) emit(o, ", local size left to the OpenCL implementation");
  else {
    emit(o, ", local size");
    for (int d = 0; d < nd; d++) {
      Buf s;
      buf_init(&s, a);
      if (h->opt && h->opt->local_size[d] > 0) emit(&s, "%lld", (long long)h->opt->local_size[d]);
      else if (d < k->ndims && k->has_local) size_print(&s, k->local_size[d]);
      else buf_puts(&s, "1");
      emit(o, "%s%s", d ? ", " : " ", s.data);
    }
  }
  emit(o, "\n */\n\n");

  emit_source(h, k, source);

  /* the cache */
  emit(o, "static inline dpia_program_cache_ *dpia_%s_cache_(void) {\n"
          "  static dpia_program_cache_ cache;\n"
          "  return &cache;\n"
          "}\n\n",
       k->name);
  emit(o, "/* Release the programs cached for %s (not while it is being launched). */\n"
          "static inline void dpia_%s_release(void) { dpia_cache_release_(dpia_%s_cache_()); }\n\n",
       k->name, k->name, k->name);
  emit(o, "/* Build the programs of %s with these options (clBuildProgram; NULL: none)\n"
          " * from the next launch on.  The string must stay valid until dpia_%s_release().\n"
          " * Programs built with other options stay cached beside them. */\n"
          "static inline void dpia_%s_set_build_options(const char *dpia_options) {\n"
          "  DPIA_STORE_(&dpia_%s_cache_()->build_options, dpia_options);\n"
          "}\n\n",
       k->name, k->name, k->name, k->name);

  emit_check(h, k, NULL);

  /* the enqueue function */
  emit(o, "/* Enqueue %s on q after the events of the wait list; *dpia_event (if not\n"
          " * NULL) is set to the kernel's event.  Returns 0 or an error code. */\n",
       k->name);
  emit_signature(h, k, "enqueue", true);
  emit(o, " {\n");
  int ntemps = 0;
  for (int i = 0; i < k->nparams; i++) ntemps += k->params[i].role == KP_TEMP;
  emit(o, "  int dpia_bad = 0, dpia_slot = -1;\n"
          "  cl_int dpia_err = CL_SUCCESS;\n"
          "  cl_context dpia_context = DPIA_NULL_;\n"
          "  cl_program dpia_program = DPIA_NULL_;\n"
          "  cl_kernel dpia_kernel = DPIA_NULL_;\n"
          "  size_t dpia_global[%d], dpia_local[%d];\n",
       nd, nd);
  if (ntemps) emit(o, "  cl_mem dpia_temp[%d] = {DPIA_NULL_};\n", ntemps);
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role == KP_TEMP || p->role == KP_LOCAL || p->role == KP_OUTPUT || p->role == KP_INPUT)
      emit(o, "  size_t dpia_bytes_%d;\n", i);
  }
  emit(o, "  int dpia_i;\n");
  /* the size arguments and the preconditions, as dpia_NAME_check says them */
  emit(o, "  dpia_err = dpia_%s_check(", k->name);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_NAT) emit(o, "%s, ", host_param(h, &k->params[i]));
  emit(o, "dpia_error_message_buffer_(), DPIA_ERROR_MESSAGE_SIZE);\n"
          "  if (dpia_err != DPIA_SUCCESS) return dpia_error_in_(dpia_err, \"%s\");\n",
       k->name);
  for (int d = 0; d < nd; d++) {
    emit(o, "  dpia_global[%d] = dpia_size_(%s, &dpia_bad);\n", d, launch_size(h, k, d, false));
    emit(o, "  dpia_local[%d] = dpia_size_(%s, &dpia_bad);\n", d, launch_size(h, k, d, true));
  }
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    if (p->role == KP_OUTPUT || p->role == KP_INPUT) {
      emit(o, "  dpia_bytes_%d = dpia_size_(dpia_mul_(%s, DPIA_CAST_(long long, %s), &dpia_bad), &dpia_bad);\n", i,
           c_size(h, k, p->elements), elem_sizeof(h, p));
      continue;
    }
    if (p->role != KP_TEMP && p->role != KP_LOCAL) continue;
    /* at least one element: OpenCL refuses empty buffers */
    emit(o, "  dpia_bytes_%d = dpia_size_(dpia_mul_(%s, DPIA_CAST_(long long, %s), &dpia_bad), &dpia_bad);\n", i,
         c_size(h, k, p->elements), elem_sizeof(h, p));
    emit(o, "  if (dpia_bytes_%d == 0) dpia_bytes_%d = sizeof(%s);\n", i, i, host_type(h, elem_of(p->type), true));
  }
  emit_size_overflow(h, k->name);
  emit_buffer_checks(h, k);
  emit(o, "  for (dpia_i = 0; dpia_i < %d; dpia_i++) {\n", nd);
  if (has_local)
    emit(o, "    if (dpia_local[dpia_i] == 0 || dpia_global[dpia_i] %% dpia_local[dpia_i] != 0)\n"
            "      return dpia_fail_(DPIA_ERROR_SIZE, \"%s\", \"a global size is not a multiple of its local size\");\n",
         k->name);
  emit_empty_launch(h, k,
                    "(dpia_event || dpia_num_events)\n"
                    "                 ? clEnqueueMarkerWithWaitList(q, dpia_num_events, dpia_wait_list, dpia_event)\n"
                    "                 : DPIA_SUCCESS");
  emit(o, "  }\n");
  /* program, kernel, temporaries, arguments */
  emit(o, "  dpia_err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof dpia_context, &dpia_context, DPIA_NULL_);\n"
          "  if (dpia_err == CL_SUCCESS)\n"
          "    dpia_program = dpia_program_(dpia_%s_cache_(), dpia_context, dpia_%s_source,\n"
          "                                 DPIA_CAST_(cl_uint, sizeof dpia_%s_source / sizeof dpia_%s_source[0]),\n"
          "                                 \"%s\", &dpia_slot, &dpia_err);\n"
          "  if (dpia_err == CL_SUCCESS)\n"
          "    dpia_kernel = dpia_kernel_take_(dpia_%s_cache_(), dpia_slot, dpia_program, \"%s\", &dpia_err);\n",
       k->name, k->name, k->name, k->name, k->name, k->name, k->name);
  int t = 0;
  for (int i = 0; i < k->nparams; i++) {
    const KParam *p = &k->params[i];
    const char *n = host_buffer(h, k, i);
    int arg = kparam_arg(k, i); /* -1: an in-place output, no argument */
    if (arg < 0) continue;
    switch (p->role) {
    case KP_OUTPUT:
    case KP_INPUT:
      emit(o, "  if (dpia_err == CL_SUCCESS) dpia_err = clSetKernelArg(dpia_kernel, %d, sizeof(cl_mem), &%s);\n", arg, n);
      break;
    case KP_SCALAR:
    case KP_NAT:
      emit(o, "  if (dpia_err == CL_SUCCESS) dpia_err = clSetKernelArg(dpia_kernel, %d, sizeof %s, &%s);\n", arg, n, n);
      break;
    case KP_TEMP:
      emit(o, "  if (dpia_err == CL_SUCCESS) /* %s */\n"
              "    dpia_temp[%d] = clCreateBuffer(dpia_context, CL_MEM_READ_WRITE, dpia_bytes_%d, DPIA_NULL_, &dpia_err);\n"
              "  if (dpia_err == CL_SUCCESS) dpia_err = clSetKernelArg(dpia_kernel, %d, sizeof(cl_mem), &dpia_temp[%d]);\n",
           kparam_name(p), t, i, arg, t);
      t++;
      break;
    case KP_LOCAL:
      emit(o, "  if (dpia_err == CL_SUCCESS) /* %s */\n"
              "    dpia_err = clSetKernelArg(dpia_kernel, %d, dpia_bytes_%d, DPIA_NULL_);\n",
           kparam_name(p), arg, i);
      break;
    }
  }
  emit(o, "  if (dpia_err == CL_SUCCESS) dpia_err = dpia_check_device_(q, dpia_kernel, %d, %s);\n"
          "  if (dpia_err == CL_SUCCESS)\n"
          "    dpia_err = clEnqueueNDRangeKernel(q, dpia_kernel, %d, DPIA_NULL_, dpia_global, %s, dpia_num_events,\n"
          "                                      dpia_wait_list, dpia_event);\n",
       nd, has_local ? "dpia_local" : "DPIA_NULL_", nd, has_local ? "dpia_local" : "DPIA_NULL_");
  if (!has_local) emit(o, "  (void)dpia_local;\n");
  /* release: OpenCL keeps what the enqueued kernel uses until it is done */
  if (ntemps)
    emit(o, "  for (dpia_i = 0; dpia_i < %d; dpia_i++)\n"
            "    if (dpia_temp[dpia_i]) clReleaseMemObject(dpia_temp[dpia_i]);\n",
         ntemps);
  emit(o, "  if (dpia_kernel) dpia_kernel_put_(dpia_%s_cache_(), dpia_slot, dpia_kernel);\n"
          "  if (dpia_slot < 0 && dpia_program) clReleaseProgram(dpia_program);\n"
          "  return dpia_err == DPIA_ERROR_DEVICE_LIMIT ? dpia_error_in_(dpia_err, \"%s\") : dpia_err;\n"
          "}\n\n",
       k->name, k->name);

  emit_element_counts(h, k);

  /* the launch function */
  emit(o, "/* Enqueue %s on q.  Returns 0 or an error code (dpia_error_string). */\n", k->name);
  emit_signature(h, k, "launch", false);
  emit(o, " {\n  return dpia_%s_enqueue(q", k->name);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role != KP_TEMP && k->params[i].role != KP_LOCAL && !host_omits(k, i))
      emit(o, ", %s", host_param(h, &k->params[i]));
  emit(o, ", 0, DPIA_NULL_, DPIA_NULL_);\n}\n\n");
}

/* ---- one pipeline (docs/language.md section 8) ---- */

/* The arguments of launch li's nat parameters are computed into
 * int dpia_lLI_J (the J-th nat parameter of its kernel): C code that sets
 * dpia_bad when one overflows, is negative or does not fit an int. */
void emit_launch_nats(H *h, const PipeDesc *d, int li, Buf *o, const char *indent) {
  const PipeLaunchDesc *l = &d->launches[li];
  int j = 0;
  for (int i = 0; i < l->k->nparams; i++) {
    if (l->binds[i].kind != PBIND_NAT) continue;
    emit(o, "%sdpia_v = %s;\n", indent, c_size(h, &d->iface, l->binds[i].size));
    emit(o, "%sif (dpia_v < 0 || dpia_v > INT_MAX) dpia_bad = 1;\n", indent);
    emit(o, "%sdpia_l%d_%d = DPIA_CAST_(int, dpia_v); /* %s of %s */\n", indent, li, j++, kparam_name(&l->k->params[i]),
         l->k->name);
  }
}

void declare_launch_nats(const PipeDesc *d, Buf *o) {
  for (int li = 0; li < d->nlaunches; li++) {
    const PipeLaunchDesc *l = &d->launches[li];
    int j = 0;
    for (int i = 0; i < l->k->nparams; i++)
      if (l->binds[i].kind == PBIND_NAT) emit(o, "  int dpia_l%d_%d = 0;\n", li, j++);
  }
  emit(o, "  long long dpia_v = 0;\n");
}

/* the C argument of a kernel parameter bound in a pipeline's launch */
const char *launch_arg(H *h, const PipeDesc *d, int li, int i, int *nat) {
  const PipeBind *b = &d->launches[li].binds[i];
  if (b->kind == PBIND_NAT) return arena_printf(h->a, "dpia_l%d_%d", li, (*nat)++);
  switch (b->buf.kind) {
  case PB_OUTPUT:
  case PB_INPUT: return host_name(h, pipeline_buf_name(h->a, d->pipe, b->buf));
  case PB_TEMP: return arena_printf(h->a, "dpia_temps->mem[%d]", b->buf.index);
  }
  INTERNAL("bad pipeline buffer");
}

/* The temporaries of pipeline NAME kept between calls: a set per in-order
 * queue, in DPIA_CACHE_SLOTS slots.  Slot i belongs to the queue key[i]
 * (claimed once, by compare-and-swap); set[i] holds that queue's set when
 * no call is using it.  A call takes its queue's set (an atomic exchange:
 * no other call can hold it meanwhile), grows what is too small, enqueues,
 * and puts it back: the next call on that queue runs its kernels after
 * this one's (an in-order queue), so they may share the buffers.  Calls on
 * other queues, or on an out-of-order queue, never see them.  A set
 * retains its queue, so that the queue's address is not reused while the
 * set is cached; dpia_NAME_release() releases every set. */
static void emit_temp_cache(H *h, const PipeDesc *d) {
  Buf *o = h->out;
  const char *n = d->iface.name;
  int nt = d->pipe->ntemps;
  emit(o,
       "/* the temporaries of %s kept for the next call on the same in-order queue */\n"
       "typedef struct dpia_%s_temps_ {\n"
       "  cl_command_queue queue; /* retained */\n"
       "  cl_mem mem[%d];\n"
       "  size_t bytes[%d];\n"
       "} dpia_%s_temps_;\n"
       "typedef struct dpia_%s_temp_cache_ {\n"
       "  DPIA_ATOMIC_(cl_command_queue) key[DPIA_CACHE_SLOTS];\n"
       "  DPIA_ATOMIC_(dpia_%s_temps_ *) set[DPIA_CACHE_SLOTS];\n"
       "} dpia_%s_temp_cache_;\n"
       "static inline dpia_%s_temp_cache_ *dpia_%s_temps_cache_(void) {\n"
       "  static dpia_%s_temp_cache_ cache;\n"
       "  return &cache;\n"
       "}\n\n",
       n, n, nt, nt, n, n, n, n, n, n, n);
  emit(o,
       "static inline void dpia_%s_temps_free_(dpia_%s_temps_ *t) {\n"
       "  int i;\n"
       "  for (i = 0; i < %d; i++)\n"
       "    if (t->mem[i]) clReleaseMemObject(t->mem[i]);\n"
       "  clReleaseCommandQueue(t->queue);\n"
       "  free(t);\n"
       "}\n\n",
       n, n, nt);
  emit(o,
       "/* q's cached set (keep: q is in order), or a new empty one; NULL when out of memory */\n"
       "static inline dpia_%s_temps_ *dpia_%s_temps_take_(cl_command_queue q, int keep) {\n"
       "  dpia_%s_temp_cache_ *cache = dpia_%s_temps_cache_();\n"
       "  dpia_%s_temps_ *t;\n"
       "  int i;\n"
       "  for (i = 0; keep && i < DPIA_CACHE_SLOTS; i++)\n"
       "    if (DPIA_LOAD_(&cache->key[i]) == q && (t = DPIA_EXCHANGE_(&cache->set[i], DPIA_NULL_)) != DPIA_NULL_)\n"
       "      return t;\n"
       "  t = DPIA_CAST_(dpia_%s_temps_ *, calloc(1, sizeof *t));\n"
       "  if (!t) return DPIA_NULL_;\n"
       "  clRetainCommandQueue(q);\n"
       "  t->queue = q;\n"
       "  return t;\n"
       "}\n\n",
       n, n, n, n, n, n);
  emit(o,
       "/* after a call: t back into its queue's slot (keep), or released */\n"
       "static inline void dpia_%s_temps_put_(dpia_%s_temps_ *t, int keep) {\n"
       "  dpia_%s_temp_cache_ *cache = dpia_%s_temps_cache_();\n"
       "  int i;\n"
       "  for (i = 0; keep && i < DPIA_CACHE_SLOTS; i++) {\n"
       "    cl_command_queue expected = DPIA_NULL_;\n"
       "    dpia_%s_temps_ *none = DPIA_NULL_;\n"
       "    if (DPIA_LOAD_(&cache->key[i]) != t->queue && !DPIA_CAS_(&cache->key[i], &expected, t->queue) &&\n"
       "        expected != t->queue)\n"
       "      continue;\n"
       "    if (DPIA_CAS_(&cache->set[i], &none, t)) return;\n"
       "    break; /* the queue's slot holds another call's set */\n"
       "  }\n"
       "  dpia_%s_temps_free_(t);\n"
       "}\n\n",
       n, n, n, n, n, n);
}

/* The leading comment of pipeline d's launchers: the launcher's
 * parameters (after queue), the preconditions, the launches in order and
 * the temporaries (temps_note: how the launcher keeps them) */
void emit_pipeline_doc(H *h, const PipeDesc *d, const char *queue, const char *temps_note) {
  Buf *o = h->out;
  Arena *a = h->a;
  const ImpKernel *k = &d->iface;
  const Pipeline *p = d->pipe;
  emit(o, "/* ---- pipeline %s ----\n *\n * dpia_%s_launch(%s", k->name, k->name, queue ? queue : "");
  for (int i = 0; i < k->nparams; i++) emit(o, "%s%s", queue || i ? ", " : "", host_param(h, &k->params[i]));
  emit(o, ")\n");
  for (int i = 0; i < k->nparams; i++) {
    const KParam *kp = &k->params[i];
    Buf t, n;
    buf_init(&t, a);
    buf_init(&n, a);
    dt_print(&t, kp->role == KP_SCALAR || kp->role == KP_NAT ? kp->type : kp->elem);
    size_print(&n, kp->elements);
    const char *name = host_param(h, kp);
    switch (kp->role) {
    case KP_OUTPUT: emit(o, " *   %s: output buffer of %s %s\n", name, n.data, t.data); break;
    case KP_INPUT: emit(o, " *   %s: input buffer of %s %s\n", name, n.data, t.data); break;
    case KP_SCALAR: emit(o, " *   %s: %s\n", name, t.data); break;
    default: emit(o, " *   %s: size (int, at least 0)\n", name); break;
    }
  }
  emit(o, " * Preconditions:");
  precond_print_list(o, k->nprecond, k->preconds);
  emit(o, " (and those of each launch, checked before the first is enqueued)\n * Launches, in order:");
  for (int li = 0; li < d->nlaunches; li++) {
    const PipeLaunchDesc *l = &d->launches[li];
    emit(o, "%s%s(", li ? ", " : " ", l->k->name);
    int nat = 0;
    for (int i = 0; i < l->k->nparams; i++) {
      const PipeBind *b = &l->binds[i];
      Buf v;
      buf_init(&v, a);
      if (b->kind == PBIND_LOCAL) continue;
      if (b->kind == PBIND_NAT)
        size_print(&v, b->size);
      else
        buf_puts(&v, b->buf.kind == PB_TEMP ? d->temps[b->buf.index].name : pipeline_buf_name(a, p, b->buf));
      emit(o, "%s%s", nat++ ? ", " : "", v.data);
    }
    buf_putc(o, ')');
  }
  emit(o, "\n * Temporaries (%s):", temps_note);
  if (!p->ntemps) emit(o, " none");
  for (int i = 0; i < p->ntemps; i++) {
    Buf t, n;
    buf_init(&t, a);
    buf_init(&n, a);
    dt_print(&t, d->temps[i].elem);
    size_print(&n, d->temps[i].elements);
    emit(o, "%s%s of %s %s", i ? ", " : " ", d->temps[i].name, n.data, t.data);
  }
  emit(o, "\n */\n\n");
}

/* Whether elements is 0 wherever one of l's global sizes that can be 0
 * is: a polynomial multiple of each (64*ceil(N/4096) of a grid of
 * 64*ceil(N/4096) work-items) */
static bool empty_with_launch(H *h, const PipeLaunchDesc *l, Size elements) {
  SizeCtx sc = {h->a, false};
  for (int dim = 0; dim < l->ndims; dim++) {
    int64_t g;
    Size q;
    if (size_const_value(l->global_size[dim], &g) && g > 0) continue;
    if (!size_div(&sc, elements, l->global_size[dim], &q) || !size_is_polynomial(q)) return false;
  }
  return !sc.overflow;
}

/* A launch whose NDRange has no work-item at the pipeline's sizes (a grid
 * of ceil(N/64) groups at N = 0) is left out by its kernel's launcher when
 * every output is empty, and refused when one is not; the pipeline's check
 * refuses the latter before anything is enqueued, naming the launch and
 * the buffer no work-item would write (docs/reference.md, "Sizes that do
 * not divide").  Nothing is emitted where that cannot happen: global sizes
 * that are all constants, or outputs that are empty with the grid
 * (empty_with_launch). */
static void emit_empty_stage(H *h, const PipeDesc *d, int li, Buf *more) {
  const PipeLaunchDesc *l = &d->launches[li];
  Buf test, refuse;
  buf_init(&test, h->a);
  buf_init(&refuse, h->a);
  for (int dim = 0; dim < l->ndims; dim++) {
    int64_t g;
    if (size_const_value(l->global_size[dim], &g) && g > 0) continue;
    emit(&test, "%s%s == 0LL", test.len ? " || " : "", c_size(h, &d->iface, l->global_size[dim]));
  }
  for (int i = 0; test.len && i < l->k->nparams; i++) {
    if (l->k->params[i].role != KP_OUTPUT || l->binds[i].kind != PBIND_BUFFER) continue;
    PipeBuf b = l->binds[i].buf;
    const KParam *buf = b.kind == PB_TEMP ? &d->temps[b.index] : &d->iface.params[pipeline_slot(d->pipe, b)];
    if (empty_with_launch(h, l, buf->elements)) continue;
    emit(&refuse,
         "      if (%s != 0LL) {\n"
         "        if (dpia_msg && dpia_msg_size)\n"
         "          (void)snprintf(dpia_msg, dpia_msg_size, \"error[E0413]: launch %d (%s) has no work-item at these "
         "sizes, but its output %s (buffer %s) is not empty\");\n"
         "        return DPIA_ERROR_SIZE;\n"
         "      }\n",
         c_size(h, &d->iface, buf->elements), li, l->k->name, kparam_name(&l->k->params[i]), kparam_name(buf));
  }
  if (!refuse.len) return;
  emit(more, "    if (%s) { /* launch %d has no work-item: nothing to compute when what it writes is empty */\n%s    }\n",
       test.data, li, refuse.data);
}

/* dpia_NAME_check of pipeline d: its preconditions, then each launch's
 * (dpia_KERNEL_check at the launch's sizes) */
void emit_pipeline_check(H *h, const PipeDesc *d) {
  Arena *a = h->a;
  const ImpKernel *k = &d->iface;
  Buf more;
  buf_init(&more, a);
  buf_puts(&more, "  {\n    int dpia_err = DPIA_SUCCESS;\n");
  Buf decls;
  buf_init(&decls, a);
  declare_launch_nats(d, &decls);
  for (const char *line = decls.data; *line;) {
    const char *end = strchr(line, '\n');
    emit(&more, "  %.*s\n", (int)(end - line), line);
    line = end + 1;
  }
  for (int li = 0; li < d->nlaunches; li++) {
    const PipeLaunchDesc *l = &d->launches[li];
    emit_launch_nats(h, d, li, &more, "    ");
    emit(&more,
         "    if (dpia_bad) {\n"
         "      if (dpia_msg && dpia_msg_size)\n"
         "        (void)snprintf(dpia_msg, dpia_msg_size, \"a size of launch %d (%s) is negative or overflows\");\n"
         "      return DPIA_ERROR_SIZE;\n"
         "    }\n"
         "    dpia_err = dpia_%s_check(",
         li, l->k->name, l->k->name);
    int nat = 0;
    for (int i = 0; i < l->k->nparams; i++)
      if (l->binds[i].kind == PBIND_NAT) emit(&more, "dpia_l%d_%d, ", li, nat++);
    emit(&more, "dpia_msg, dpia_msg_size);\n    if (dpia_err != DPIA_SUCCESS) return dpia_err;\n");
    emit_empty_stage(h, d, li, &more);
  }
  buf_puts(&more, "  }\n");
  emit_check(h, k, more.data);
}

static void emit_pipeline(H *h, const PipeDesc *d) {
  Buf *o = h->out;
  const ImpKernel *k = &d->iface;
  const Pipeline *p = d->pipe;
  emit_pipeline_doc(h, d, "q", "kept for the next call on the same in-order queue");
  if (p->ntemps) emit_temp_cache(h, d);
  emit_pipeline_check(h, d);

  /* the enqueue function */
  emit(o,
       "/* Check the sizes of every launch of %s, then enqueue its kernels on q in\n"
       " * order, the first after the events of the wait list, each after the one\n"
       " * before; *dpia_event (if not NULL) is set to the last kernel's event.\n"
       " * Returns 0 or an error code; on a failed check nothing is enqueued. */\n",
       k->name);
  emit_signature(h, k, "enqueue", true);
  emit(o,
       " {\n  int dpia_bad = 0, dpia_i;\n  cl_int dpia_err = CL_SUCCESS;\n  cl_context dpia_context = DPIA_NULL_;\n");
  emit(o, "  cl_event dpia_events[%d] = {DPIA_NULL_};\n", d->nlaunches);
  if (p->ntemps)
    emit(o,
         "  dpia_%s_temps_ *dpia_temps = DPIA_NULL_;\n"
         "  cl_command_queue_properties dpia_props = 0;\n"
         "  int dpia_keep = 0;\n"
         "  size_t dpia_temp_bytes[%d];\n",
         k->name, p->ntemps);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_OUTPUT || k->params[i].role == KP_INPUT) emit(o, "  size_t dpia_bytes_%d;\n", i);
  declare_launch_nats(d, o);
  emit(o, "  dpia_err = dpia_%s_check(", k->name);
  for (int i = 0; i < k->nparams; i++)
    if (k->params[i].role == KP_NAT) emit(o, "%s, ", host_param(h, &k->params[i]));
  emit(o, "dpia_error_message_buffer_(), DPIA_ERROR_MESSAGE_SIZE);\n"
          "  if (dpia_err != DPIA_SUCCESS) return dpia_error_in_(dpia_err, \"%s\");\n",
       k->name);
  for (int li = 0; li < d->nlaunches; li++) emit_launch_nats(h, d, li, o, "  ");
  for (int i = 0; i < k->nparams; i++) {
    const KParam *kp = &k->params[i];
    if (kp->role != KP_OUTPUT && kp->role != KP_INPUT) continue;
    emit(o, "  dpia_bytes_%d = dpia_size_(dpia_mul_(%s, DPIA_CAST_(long long, %s), &dpia_bad), &dpia_bad);\n", i,
         c_size(h, k, kp->elements), elem_sizeof(h, kp));
  }
  for (int t = 0; t < p->ntemps; t++) {
    /* at least one element: OpenCL refuses empty buffers */
    emit(o, "  dpia_temp_bytes[%d] = dpia_size_(dpia_mul_(%s, DPIA_CAST_(long long, %s), &dpia_bad), &dpia_bad);\n", t,
         c_size(h, k, d->temps[t].elements), elem_sizeof(h, &d->temps[t]));
    emit(o, "  if (dpia_temp_bytes[%d] == 0) dpia_temp_bytes[%d] = sizeof(%s);\n", t, t,
         host_type(h, d->temps[t].elem, true));
  }
  emit_size_overflow(h, k->name);
  emit_buffer_checks(h, k);
  emit(o,
       "  if (dpia_err == CL_SUCCESS)\n"
       "    dpia_err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof dpia_context, &dpia_context, DPIA_NULL_);\n");
  if (p->ntemps) {
    emit(o,
         "  /* the temporaries: this queue's from the last call when it is in order */\n"
         "  if (dpia_err == CL_SUCCESS)\n"
         "    dpia_err = clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof dpia_props, &dpia_props, DPIA_NULL_);\n"
         "  dpia_keep = !(dpia_props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);\n"
         "  if (dpia_err == CL_SUCCESS) {\n"
         "    dpia_temps = dpia_%s_temps_take_(q, dpia_keep);\n"
         "    if (!dpia_temps) dpia_err = CL_OUT_OF_HOST_MEMORY;\n"
         "  }\n",
         k->name);
    emit(o,
         "  for (dpia_i = 0; dpia_err == CL_SUCCESS && dpia_i < %d; dpia_i++) {\n"
         "    if (dpia_temps->bytes[dpia_i] >= dpia_temp_bytes[dpia_i]) continue;\n"
         "    if (dpia_temps->mem[dpia_i]) clReleaseMemObject(dpia_temps->mem[dpia_i]);\n"
         "    dpia_temps->bytes[dpia_i] = 0;\n"
         "    dpia_temps->mem[dpia_i] =\n"
         "        clCreateBuffer(dpia_context, CL_MEM_READ_WRITE, dpia_temp_bytes[dpia_i], DPIA_NULL_, &dpia_err);\n"
         "    if (dpia_err == CL_SUCCESS) dpia_temps->bytes[dpia_i] = dpia_temp_bytes[dpia_i];\n"
         "    else dpia_temps->mem[dpia_i] = DPIA_NULL_;\n"
         "  }\n",
         p->ntemps);
  }
  for (int li = 0; li < d->nlaunches; li++) {
    const PipeLaunchDesc *l = &d->launches[li];
    emit(o, "  if (dpia_err == CL_SUCCESS)\n    dpia_err = dpia_%s_enqueue(q", l->k->name);
    int nat = 0;
    for (int i = 0; i < l->k->nparams; i++) {
      if (l->k->params[i].role == KP_TEMP || l->k->params[i].role == KP_LOCAL) continue;
      emit(o, ", %s", launch_arg(h, d, li, i, &nat));
    }
    if (li == 0)
      emit(o, ", dpia_num_events, dpia_wait_list, ");
    else
      emit(o, ", 1, &dpia_events[%d], ", li - 1);
    if (li == d->nlaunches - 1)
      emit(o, "dpia_event ? dpia_event : &dpia_events[%d]);\n", li);
    else
      emit(o, "&dpia_events[%d]);\n", li);
  }
  /* OpenCL keeps the temporaries until the kernels using them are done */
  emit(o,
       "  for (dpia_i = 0; dpia_i < %d; dpia_i++)\n"
       "    if (dpia_events[dpia_i]) clReleaseEvent(dpia_events[dpia_i]);\n",
       d->nlaunches);
  /* kept for the next call on q, whose kernels run after these; released
   * after a failure (OpenCL keeps them until the kernels using them are done) */
  if (p->ntemps)
    emit(o, "  if (dpia_temps) dpia_%s_temps_put_(dpia_temps, dpia_keep && dpia_err == CL_SUCCESS);\n", k->name);
  emit(o, "  return dpia_err;\n}\n\n");

  /* launch and release */
  emit(o, "/* Enqueue the kernels of %s on q.  Returns 0 or an error code (dpia_error_string). */\n", k->name);
  emit_signature(h, k, "launch", false);
  emit(o, " {\n  return dpia_%s_enqueue(q", k->name);
  for (int i = 0; i < k->nparams; i++) emit(o, ", %s", host_param(h, &k->params[i]));
  emit(o, ", 0, DPIA_NULL_, DPIA_NULL_);\n}\n\n");
  emit(o,
       "/* Release the programs cached for the kernels of %s%s (not while it is\n"
       " * being launched). */\nstatic inline void dpia_%s_release(void) {\n",
       k->name, p->ntemps ? " and its temporaries" : "", k->name);
  if (p->ntemps)
    emit(o,
         "  dpia_%s_temp_cache_ *dpia_cache = dpia_%s_temps_cache_();\n"
         "  int dpia_i;\n"
         "  for (dpia_i = 0; dpia_i < DPIA_CACHE_SLOTS; dpia_i++) {\n"
         "    dpia_%s_temps_ *dpia_t = DPIA_EXCHANGE_(&dpia_cache->set[dpia_i], DPIA_NULL_);\n"
         "    if (dpia_t) dpia_%s_temps_free_(dpia_t);\n"
         "    DPIA_STORE_(&dpia_cache->key[dpia_i], DPIA_NULL_);\n"
         "  }\n",
         k->name, k->name, k->name, k->name);
  for (int li = 0; li < d->nlaunches; li++) {
    bool again = false;
    for (int j = 0; j < li; j++) again |= d->launches[j].k == d->launches[li].k;
    if (!again) emit(o, "  dpia_%s_release();\n", d->launches[li].k->name);
  }
  emit(o, "}\n\n");
}

/* ---- the header ---- */

/* DPIA_GENERATED_GEMV_H for samples/gemv.dpia */
const char *guard_name(Arena *a, const char *source_name) {
  const char *base = source_name ? source_name : "input";
  const char *slash = strrchr(base, '/');
  if (slash) base = slash + 1;
  size_t n = strlen(base);
  if (n > 5 && strcmp(base + n - 5, ".dpia") == 0) n -= 5;
  Buf b;
  buf_init(&b, a);
  buf_puts(&b, "DPIA_GENERATED_");
  for (size_t i = 0; i < n; i++) {
    char c = base[i];
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
    buf_putc(&b, c);
  }
  buf_puts(&b, "_H");
  return b.data;
}

void codegen_header(Arena *a, const Backend *backend, const char *source_name, int nkernels,
                    const ImpKernel *const *kernels, const char *const *sources, const CodegenOptions *opt, Buf *out) {
  codegen_header_pipelines(a, backend, source_name, nkernels, kernels, sources, 0, NULL, opt, out);
}

void codegen_header_pipelines(Arena *a, const Backend *backend, const char *source_name, int nkernels,
                              const ImpKernel *const *kernels, const char *const *sources, int npipes,
                              const PipeDesc *const *pipes, const CodegenOptions *opt, Buf *out) {
  backend->print_header(a, source_name, nkernels, kernels, sources, npipes, pipes, opt, out);
}

/* The first lines of a header's leading comment: what made it from which
 * source, its kernels, and (pipes_head, the names, pipes_tail) its
 * pipelines; the caller goes on with ".  For each kernel NAME:" */
void emit_header_opening(H *h, const char *language, const char *source_name, int nkernels,
                         const ImpKernel *const *kernels, int npipes, const PipeDesc *const *pipes,
                         const char *pipes_head, const char *pipes_tail) {
  Buf *out = h->out;
  if (h->opt && h->opt->stamp)
    emit(out, "/* %s header generated by dpia %s from ", language, DPIA_VERSION);
  else
    emit(out, "/* %s header generated by dpia from ", language);
  comment_text(out, source_name ? source_name : "<input>");
  emit(out, ": do not edit.\n *\n");
  if (h->opt && h->opt->tuned) {
    /* the values a later build on another device would not have */
    buf_puts(out, " * Tuned values from the tuning cache: ");
    comment_text(out, h->opt->tuned);
    buf_puts(out, ".\n *\n");
  }
  buf_puts(out, " * Kernels:");
  for (int i = 0; i < nkernels; i++) emit(out, "%s%s", i ? ", " : " ", kernels[i]->name);
  if (!npipes) return;
  buf_puts(out, pipes_head);
  for (int i = 0; i < npipes; i++) emit(out, "%s%s", i ? ", " : " ", pipes[i]->iface.name);
  buf_puts(out, pipes_tail);
}

void opencl_print_header(Arena *a, const char *source_name, int nkernels, const ImpKernel *const *kernels,
                         const char *const *sources, int npipes, const PipeDesc *const *pipes,
                         const CodegenOptions *opt, Buf *out) {
  H hs = {a, out, opt}, *h = &hs;
  const char *guard = guard_name(a, source_name);
  emit_header_opening(h, "C", source_name, nkernels, kernels, npipes, pipes,
                      ".\n * Pipelines (several kernels launched in order by one call):",
                      ";\n * each has dpia_NAME_launch, _enqueue (returning its last kernel's event),\n"
                      " * _check and _release like a kernel");
  buf_puts(out, ".  For each kernel NAME:\n"
                " *   dpia_NAME_source[]   its OpenCL C source, as strings to concatenate\n"
                " *   dpia_NAME_launch(q, ...)\n"
                " *                        checks the sizes and preconditions, builds the\n"
                " *                        program once per context, allocates and frees the\n"
                " *                        temporaries and enqueues the kernel on q with its\n"
                " *                        NDRange; the arguments are the kernel's parameters\n"
                " *                        in the order of docs/reference.md section 8.4,\n"
                " *                        without temporaries and local buffers: cl_mem for\n"
                " *                        buffers, values for scalars, int for sizes\n"
                " *   dpia_NAME_enqueue(q, ..., num_events, wait_list, event)\n"
                " *                        the same with a wait list and an event\n"
                " *   dpia_NAME_release()  releases the programs and kernel objects cached for NAME\n"
                " *   dpia_NAME_set_build_options(options)\n"
                " *                        clBuildProgram options of NAME's next builds\n"
                " *   dpia_last_build_log() the log of this thread's last failed build\n"
                " *   dpia_last_error_message()\n"
                " *                        what this thread's last launch that returned a\n"
                " *                        DPIA_ERROR_* code found: the kernel, the parameters\n"
                " *                        and the numbers\n"
                " *\n"
                " * Return values of dpia_NAME_launch and dpia_NAME_enqueue (dpia_error_string\n"
                " * names each); nothing is enqueued unless the value is DPIA_SUCCESS or an\n"
                " * error of clEnqueueNDRangeKernel itself:\n"
                " *   DPIA_SUCCESS (0)     the kernel is enqueued (or, with no work, nothing\n"
                " *                        or a marker for the event)\n"
                " *   DPIA_ERROR_PRECONDITION (-9001)\n"
                " *                        a precondition of the kernel (listed at the kernel)\n"
                " *                        does not hold for the size arguments\n"
                " *   DPIA_ERROR_SIZE (-9002)\n"
                " *                        a size argument is negative, or a launch or buffer\n"
                " *                        size computed from them overflows or divides by zero\n"
                " *   DPIA_ERROR_BUFFER_SIZE (-9003)\n"
                " *                        a buffer argument is smaller (CL_MEM_SIZE) than the\n"
                " *                        bytes the kernel touches in it (dpia_NAME_PARAM_elements\n"
                " *                        times the element size); checked before any enqueue\n"
                " *   DPIA_ERROR_DEVICE_LIMIT (-9004)\n"
                " *                        the kernel needs more local memory than the queue's\n"
                " *                        device has, or its work-groups are larger than the\n"
                " *                        device runs it in; checked before the enqueue\n"
                " *   DPIA_ERROR_ALIAS (-9005)\n"
                " *                        an output buffer argument is the same cl_mem as\n"
                " *                        another buffer argument, or a sub-buffer of the same\n"
                " *                        buffer overlapping it in the bytes the kernel\n"
                " *                        touches; checked before any enqueue.  The kernels\n"
                " *                        declare their buffers restrict and never compute in\n"
                " *                        place: pass a separate output (inputs may share)\n"
                " *   CL_BUILD_PROGRAM_FAILURE (-11), CL_INVALID_BUILD_OPTIONS (-43)\n"
                " *                        the program did not build (with the options set):\n"
                " *                        dpia_last_build_log() holds the compiler's messages\n"
                " *   CL_INVALID_MEM_OBJECT (-38) a buffer argument is not a buffer\n"
                " *   any other CL_* code  passed through from the OpenCL call that failed\n"
                " *                        (CL_INVALID_COMMAND_QUEUE, CL_OUT_OF_RESOURCES, ...)\n"
                " * The kernel runs asynchronously: wait for the queue (clFinish) or the\n"
                " * event before reading the outputs.\n"
                " *\n");
  buf_puts(out, threading_rule);
  buf_puts(out, " *\n"
                " * C11 (with <stdatomic.h>) or C++17; link with the OpenCL library. */\n");
  emit(out, "#ifndef %s\n#define %s\n\n", guard, guard);
  buf_puts(out, "#ifndef CL_TARGET_OPENCL_VERSION\n"
                "#define CL_TARGET_OPENCL_VERSION 120\n"
                "#endif\n"
                "#ifdef __APPLE__\n"
                "#include <OpenCL/opencl.h>\n"
                "#else\n"
                "#include <CL/cl.h>\n"
                "#endif\n"
                "#include <limits.h>\n"
                "#include <stddef.h>\n"
                "#include <stdio.h>\n"
                "#include <stdlib.h>\n"
                "#include <string.h>\n"
                "#ifdef __cplusplus\n"
                "#include <atomic>\n"
                "#elif defined(__STDC_NO_ATOMICS__)\n"
                "#error \"this dpia header needs C11 atomics (<stdatomic.h>) or C++\"\n"
                "#else\n"
                "#include <stdatomic.h>\n"
                "#endif\n\n");
  header_emit_common(h->out);

  Vec pairs = {0};
  for (int i = 0; i < nkernels; i++)
    for (int j = 0; j < kernels[i]->nparams; j++) collect_pairs(h, &pairs, kernels[i]->params[j].type);
  if (pairs.len) buf_puts(out, "/* host types of the pair types (the kernels' structs) */\n");
  for (int i = 0; i < pairs.len; i++) emit_host_struct(h, pairs.items[i]);

  buf_puts(out, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  for (int i = 0; i < nkernels; i++) emit_kernel(h, kernels[i], sources[i]);
  for (int i = 0; i < npipes; i++) emit_pipeline(h, pipes[i]);
  buf_puts(out, "#ifdef __cplusplus\n}\n#endif\n\n");
  emit(out, "#endif /* %s */\n", guard);
}
