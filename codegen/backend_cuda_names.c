/* backend_cuda_names.c: the names CUDA C++ gives a meaning to, the CUDA
 * backend's Backend.names (backend.h): the checker refuses them as a
 * kernel's name and its nat parameters' names, and the code generator
 * renames everything else away from them.
 *
 * A .cu file is C++ (nvcc's default dialect, C++17) with the CUDA
 * runtime's declarations and C's math.h included by nvcc itself; a kernel
 * is `extern "C" __global__`, so its name is a C symbol that must not
 * collide with any function of those headers.  So: C and C++ keywords,
 * the built-in variables and types of CUDA (threadIdx, dim3, float4 in
 * every width and alignment variant), the math functions of C and CUDA
 * (sqrtf, rsqrtf, min, max, ...), math.h's macros, and the prefixes the
 * compilers and the preamble own: `__`, `_` and a capital (C++), `dpia_`
 * (the preamble's types and helpers, the local buffers' offsets), `make_`
 * (CUDA's vector constructors), `cuda` and `cu` followed by a capital (the
 * runtime and driver APIs).
 *
 * Each table is sorted (in strcmp order) for binary search. */
#include "backend_cuda.h"

#include <stdlib.h>
#include <string.h>

static const char *const cuda_keywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept",
    "const", "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype", "default", "delete", "do",
    "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend",
    "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
    "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires",
    "restrict", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
    "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
};
static const char *const cuda_builtins[] = {
    "blockDim", "blockIdx", "clock", "clock64", "dim3", "gridDim", "int16_t", "int32_t", "int64_t", "int8_t",
    "intptr_t", "main", "printf", "ptrdiff_t", "size_t", "std", "threadIdx", "uint", "uint16_t", "uint32_t",
    "uint64_t", "uint8_t", "uintptr_t", "ulong", "ushort", "warpSize",
};
/* C's math.h (C99 and its float and long double variants are matched by
 * shape: sqrtf, sqrtl) and CUDA's device math (rsqrt, sincospi, ...) */
static const char *const cuda_functions[] = {
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos", "cosh",
    "cospi", "cyl_bessel_i0", "cyl_bessel_i1", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "exp", "exp10", "exp2",
    "expm1", "fabs", "fdim", "fdivide", "floor", "fma", "fmax", "fmin", "fmod", "frexp", "hypot", "ilogb",
    "isfinite", "isinf", "isnan", "j0", "j1", "jn", "labs", "ldexp", "lgamma", "llabs", "llmax", "llmin", "llrint",
    "llround", "log", "log10", "log1p", "log2", "logb", "lrint", "lround", "max", "min", "modf", "nan", "nearbyint",
    "nextafter", "norm", "norm3d", "norm4d", "normcdf", "normcdfinv", "pow", "rcbrt", "remainder", "remquo",
    "rhypot", "rint", "rnorm", "rnorm3d", "rnorm4d", "round", "rsqrt", "scalbln", "scalbn", "signbit", "sin",
    "sincos", "sincospi", "sinh", "sinpi", "sqrt", "tan", "tanh", "tgamma", "trunc", "ullmax", "ullmin", "umax",
    "umin", "y0", "y1", "yn",
};
static const char *const cuda_macros[] = {
    "EOF", "HUGE_VAL", "HUGE_VALF", "INFINITY", "NAN", "NULL", "assert", "errno",
};
static const char *const cuda_prefixes[][2] = {
    {"__", "reserved in C++ and CUDA (it begins with '__')"},
    {"dpia_", "reserved for the CUDA code dpia generates (it begins with 'dpia_')"},
    {"make_", "a CUDA vector constructor (it begins with 'make_')"},
    {"atomic", "a CUDA atomic function (it begins with 'atomic')"},
    {"M_", "a math.h constant (it begins with 'M_')"},
    {"FLT_", "a float.h macro (it begins with 'FLT_')"},
    {"DBL_", "a float.h macro (it begins with 'DBL_')"},
};

static int compare_name(const void *key, const void *entry) { return strcmp(key, *(const char *const *)entry); }

static bool in_table(const char *name, const char *const *table, size_t n) {
  return bsearch(name, table, n, sizeof *table, compare_name) != NULL;
}

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

/* char1 .. double4, longlong4_32a, ... (vector_types.h): a scalar name,
 * a width 1 to 4, optionally _16a or _32a */
static bool is_vector_type(const char *s) {
  static const char *const scalars[] = {"char",  "double", "float", "int",       "long",  "longlong",
                                        "short", "uchar",  "uint",  "ulonglong", "ulong", "ushort"};
  for (size_t i = 0; i < DPIA_COUNTOF(scalars); i++) {
    size_t n = strlen(scalars[i]);
    if (strncmp(s, scalars[i], n) != 0 || s[n] < '1' || s[n] > '4') continue;
    const char *p = s + n + 1;
    if (*p == 0 || strcmp(p, "_16a") == 0 || strcmp(p, "_32a") == 0) return true;
  }
  return false;
}

/* a math.h function with the float or long double suffix: sqrtf, sqrtl */
static bool is_suffixed_function(const char *name) {
  size_t n = strlen(name);
  if (n < 2 || (name[n - 1] != 'f' && name[n - 1] != 'l')) return false;
  char base[64];
  if (n - 1 >= sizeof base) return false;
  memcpy(base, name, n - 1);
  base[n - 1] = 0;
  return in_table(base, cuda_functions, DPIA_COUNTOF(cuda_functions));
}

const char *cuda_name_use(const char *name) {
  if (strchr(name, '\'')) return "not a CUDA C++ identifier (C++ names have no ')";
  if (name[0] == '_' && is_upper(name[1])) return "reserved in C++ (it begins with '_' and a capital letter)";
  for (size_t i = 0; i < DPIA_COUNTOF(cuda_prefixes); i++)
    if (strncmp(name, cuda_prefixes[i][0], strlen(cuda_prefixes[i][0])) == 0) return cuda_prefixes[i][1];
  if ((strncmp(name, "cuda", 4) == 0 && is_upper(name[4])) || (strncmp(name, "cu", 2) == 0 && is_upper(name[2])))
    return "a CUDA runtime or driver API name";
  if (in_table(name, cuda_keywords, DPIA_COUNTOF(cuda_keywords))) return "a C++ keyword";
  if (in_table(name, cuda_builtins, DPIA_COUNTOF(cuda_builtins)) || is_vector_type(name))
    return "a CUDA built-in variable or type";
  if (in_table(name, cuda_functions, DPIA_COUNTOF(cuda_functions)) || is_suffixed_function(name) ||
      strncmp(name, "__", 2) == 0)
    return "a CUDA or C math function";
  if (in_table(name, cuda_macros, DPIA_COUNTOF(cuda_macros))) return "a C macro of the headers CUDA includes";
  return NULL;
}

const char *cuda_kernel_name_use(const char *name) { return cuda_name_use(name); }
