/* backend_c_omp_names.c: the names C gives a meaning to, the C backend's
 * Backend.names (backend.h): the checker refuses them as a kernel's name
 * and its nat parameters' names, and the code generator renames
 * everything else away from them.
 *
 * A kernel is a C11 function with external linkage, compiled with the
 * headers the preamble includes (math.h, stdbool.h, stddef.h, stdlib.h,
 * string.h) and OpenMP's: so C's keywords, the types, functions and macros
 * of those headers (math.h's functions with their float and long double
 * variants, matched by shape: sqrtf, sqrtl), the vector types of the
 * preamble (float4, int16: a scalar's name and a width), and the prefixes
 * the compilers and the generated code own: `__`, `_` and a capital (C),
 * `dpia_` (the loops' variables, the helpers, the per-work-item arrays),
 * `omp_` (OpenMP).
 *
 * Each table is sorted (in strcmp order) for binary search. */
#include "backend_c_omp.h"

#include <stdlib.h>
#include <string.h>

static const char *const c_keywords[] = {
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", "auto", "bool", "break", "case", "char", "const", "continue", "default",
    "do", "double", "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline", "int", "long",
    "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "true",
    "typedef", "union", "unsigned", "void", "volatile", "while",
};
/* the types, functions and macros of the included headers that a kernel
 * could collide with */
static const char *const c_library[] = {
    "EOF", "HUGE_VAL", "HUGE_VALF", "INFINITY", "NAN", "NULL", "abort", "abs", "assert", "atexit", "atof", "atoi",
    "atol", "bsearch", "calloc", "div", "errno", "exit", "free", "getenv", "labs", "llabs", "main", "malloc",
    "memchr", "memcmp", "memcpy", "memmove", "memset", "offsetof", "printf", "ptrdiff_t", "qsort", "rand",
    "realloc", "size_t", "srand", "strcat", "strchr", "strcmp", "strcpy", "strlen", "strncmp", "strncpy",
    "strstr", "strtod", "strtol", "system", "wchar_t",
};
static const char *const c_math[] = {
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos", "cosh", "erf",
    "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "fpclassify",
    "frexp", "hypot", "ilogb", "isfinite", "isgreater", "isinf", "isless", "isnan", "isnormal", "ldexp",
    "lgamma", "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "lrint", "lround", "modf", "nan",
    "nearbyint", "nextafter", "nexttoward", "pow", "remainder", "remquo", "rint", "round", "scalbln", "scalbn",
    "signbit", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc",
};
static const char *const c_prefixes[][2] = {
    {"__", "reserved in C (it begins with '__')"},
    {"dpia_", "reserved for the C code dpia generates (it begins with 'dpia_')"},
    {"omp_", "an OpenMP function (it begins with 'omp_')"},
    {"FLT_", "a float.h macro (it begins with 'FLT_')"},
    {"DBL_", "a float.h macro (it begins with 'DBL_')"},
    {"M_", "a math.h constant (it begins with 'M_')"},
};

static int compare_name(const void *key, const void *entry) { return strcmp(key, *(const char *const *)entry); }

static bool in_table(const char *name, const char *const *table, size_t n) {
  return bsearch(name, table, n, sizeof *table, compare_name) != NULL;
}

/* float4, int16: a vector type of the preamble (any width: the name is
 * the type's whichever widths the kernel uses) */
static bool is_vector_type(const char *s) {
  static const char *const scalars[] = {"bool", "double", "float", "int"};
  for (size_t i = 0; i < DPIA_COUNTOF(scalars); i++) {
    size_t n = strlen(scalars[i]);
    if (strncmp(s, scalars[i], n) != 0 || s[n] < '1' || s[n] > '9') continue;
    const char *p = s + n;
    while (*p >= '0' && *p <= '9') p++;
    if (*p == 0) return true;
  }
  return false;
}

/* a math.h function with the float or long double suffix: sqrtf, sqrtl */
static bool is_math_function(const char *name) {
  if (in_table(name, c_math, DPIA_COUNTOF(c_math))) return true;
  size_t n = strlen(name);
  if (n < 2 || (name[n - 1] != 'f' && name[n - 1] != 'l')) return false;
  char base[64];
  if (n - 1 >= sizeof base) return false;
  memcpy(base, name, n - 1);
  base[n - 1] = 0;
  return in_table(base, c_math, DPIA_COUNTOF(c_math));
}

const char *c_omp_name_use(const char *name) {
  if (strchr(name, '\'')) return "not a C identifier (C names have no ')";
  if (name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z') return "reserved in C (it begins with '_' and a capital letter)";
  for (size_t i = 0; i < DPIA_COUNTOF(c_prefixes); i++)
    if (strncmp(name, c_prefixes[i][0], strlen(c_prefixes[i][0])) == 0) return c_prefixes[i][1];
  if (in_table(name, c_keywords, DPIA_COUNTOF(c_keywords))) return "a C keyword";
  if (is_vector_type(name)) return "a vector type of the C code dpia generates";
  if (is_math_function(name)) return "a C math function";
  if (in_table(name, c_library, DPIA_COUNTOF(c_library))) return "a name of the C library";
  return NULL;
}

const char *c_omp_kernel_name_use(const char *name) { return c_omp_name_use(name); }
