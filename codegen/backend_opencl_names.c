/* backend_opencl_names.c: the names OpenCL C gives a meaning to, the
 * OpenCL backend's Backend.names (backend.h): the checker refuses them as a
 * kernel's name and its nat parameters' names (which become C names as
 * they are; dpia/check.c asks through TargetNames), and the code generator
 * renames everything else away from them. */
#include "backend_opencl.h"

#include <pthread.h>
#include <string.h>

/* Kernel names (spec section 8: kernel void NAME(...)).
 *
 * A kernel is named after its declaration, and its nat parameters keep
 * their names (sizes in types refer to them); data parameters and local
 * names are renamed by the code generator when they clash.  So a kernel's
 * name and its nat parameters' names must be free in OpenCL C 1.2, 2.0 and
 * 3.0: `kernel dot` compiles, then fails at clCreateKernel with
 * CL_INVALID_KERNEL_NAME, `kernel float4` does not compile.  They must not be
 * a keyword or reserved word, a built-in type (with any vector width), a
 * built-in function (math, geometric, relational, integer, work-item,
 * synchronisation, vector load and store, conversion, reinterpretation,
 * atomic, image, pipe, enqueue, work-group and sub-group functions, and the
 * Khronos extensions' ones; vendor extensions such as intel_* are not
 * included) or a predefined macro or constant.  Names beginning with `__`,
 * or `_` and a capital letter, are reserved by C; `cl_` names OpenCL
 * extensions and `CL_`, `CLK_` its macros.  `get_` is not reserved as a
 * whole: every get_* built-in is listed, and `get_rows` is a fine name.
 *
 * Each table is sorted (in strcmp order): the listed names' index below is
 * built from them, and the small ones are searched as they are. */

static const char *const opencl_keywords[] = {
    "auto", "break", "case", "complex", "const", "constant", "continue", "default", "do", "else", "enum", "extern",
    "false", "for", "generic", "global", "goto", "if", "imaginary", "inline", "kernel", "local", "pipe", "private",
    "read_only", "read_write", "register", "restrict", "return", "signed", "sizeof", "static", "struct", "switch",
    "true", "typedef", "uniform", "union", "unsigned", "vec_step", "volatile", "while", "write_only",
};
static const char *const opencl_types[] = {
    "clk_event_t", "clk_profiling_info", "event_t", "image1d_array_t", "image1d_buffer_t", "image1d_t",
    "image2d_array_depth_t", "image2d_array_msaa_depth_t", "image2d_array_msaa_t", "image2d_array_t",
    "image2d_depth_t", "image2d_msaa_depth_t", "image2d_msaa_t", "image2d_t", "image3d_t", "intptr_t",
    "kernel_enqueue_flags_t", "memory_order", "memory_scope", "ndrange_t", "ptrdiff_t", "queue_t", "reserve_id_t",
    "sampler_t", "size_t", "uintptr_t", "void",
};
static const char *const opencl_functions[] = {
    "abs", "abs_diff", "acos", "acosh", "acospi", "add_sat", "all", "any", "asin", "asinh", "asinpi",
    "async_work_group_copy", "async_work_group_strided_copy", "atan", "atan2", "atan2pi", "atanh", "atanpi",
    "barrier", "bit_reverse", "bitfield_extract_signed", "bitfield_extract_unsigned", "bitfield_insert",
    "bitselect", "capture_event_profiling_info", "cbrt", "ceil", "clamp", "clz", "commit_read_pipe",
    "commit_write_pipe", "copysign", "cos", "cosh", "cospi", "create_user_event", "cross", "ctz", "degrees",
    "distance", "dot", "dot_4x8packed_ss_int", "dot_4x8packed_su_int", "dot_4x8packed_us_int",
    "dot_4x8packed_uu_uint", "dot_acc_sat", "dot_acc_sat_4x8packed_ss_int", "dot_acc_sat_4x8packed_su_int",
    "dot_acc_sat_4x8packed_us_int", "dot_acc_sat_4x8packed_uu_uint", "enqueue_kernel", "enqueue_marker", "erf",
    "erfc", "exp", "exp10", "exp2", "expm1", "fabs", "fast_distance", "fast_length", "fast_normalize", "fdim",
    "floor", "fma", "fmax", "fmin", "fmod", "fract", "frexp", "get_default_queue", "get_enqueued_local_size",
    "get_enqueued_num_sub_groups", "get_fence", "get_global_id", "get_global_linear_id", "get_global_offset",
    "get_global_size", "get_group_id", "get_image_array_size", "get_image_channel_data_type",
    "get_image_channel_order", "get_image_depth", "get_image_dim", "get_image_height", "get_image_num_mip_levels",
    "get_image_num_samples", "get_image_width", "get_kernel_max_sub_group_size_for_ndrange",
    "get_kernel_preferred_work_group_size_multiple", "get_kernel_sub_group_count_for_ndrange",
    "get_kernel_work_group_size", "get_local_id", "get_local_linear_id", "get_local_size", "get_max_sub_group_size",
    "get_num_groups", "get_num_sub_groups", "get_pipe_max_packets", "get_pipe_num_packets", "get_sub_group_eq_mask",
    "get_sub_group_ge_mask", "get_sub_group_gt_mask", "get_sub_group_id", "get_sub_group_le_mask",
    "get_sub_group_local_id", "get_sub_group_lt_mask", "get_sub_group_size", "get_work_dim", "hadd", "half_cos",
    "half_divide", "half_exp", "half_exp10", "half_exp2", "half_log", "half_log10", "half_log2", "half_powr",
    "half_recip", "half_rsqrt", "half_sin", "half_sqrt", "half_tan", "hypot", "ilogb", "is_valid_event",
    "is_valid_reserve_id", "isequal", "isfinite", "isgreater", "isgreaterequal", "isinf", "isless", "islessequal",
    "islessgreater", "isnan", "isnormal", "isnotequal", "isordered", "isunordered", "ldexp", "length", "lgamma",
    "lgamma_r", "log", "log10", "log1p", "log2", "logb", "mad", "mad24", "mad_hi", "mad_sat", "max", "maxmag",
    "mem_fence", "min", "minmag", "mix", "modf", "mul24", "mul_hi", "nan", "native_cos", "native_divide",
    "native_exp", "native_exp10", "native_exp2", "native_log", "native_log10", "native_log2", "native_powr",
    "native_recip", "native_rsqrt", "native_sin", "native_sqrt", "native_tan", "ndrange_1D", "ndrange_2D",
    "ndrange_3D", "nextafter", "normalize", "popcount", "pow", "pown", "powr", "prefetch", "printf", "radians",
    "read_imagef", "read_imageh", "read_imagei", "read_imageui", "read_mem_fence", "read_pipe", "release_event",
    "remainder", "remquo", "reserve_read_pipe", "reserve_write_pipe", "retain_event", "rhadd", "rint", "rootn",
    "rotate", "round", "rsqrt", "select", "set_user_event_status", "shuffle", "shuffle2", "sign", "signbit", "sin",
    "sincos", "sinh", "sinpi", "smoothstep", "sqrt", "step", "sub_sat", "tan", "tanh", "tanpi", "tgamma",
    "to_global", "to_local", "to_private", "trunc", "upsample", "wait_group_events", "write_imagef", "write_imageh",
    "write_imagei", "write_imageui", "write_mem_fence", "write_pipe",
};
static const char *const opencl_macros[] = {
    "ATOMIC_FLAG_INIT", "ATOMIC_VAR_INIT", "CHAR_BIT", "CHAR_MAX", "CHAR_MIN", "DBL_DIG", "DBL_EPSILON",
    "DBL_MANT_DIG", "DBL_MAX", "DBL_MAX_10_EXP", "DBL_MAX_EXP", "DBL_MIN", "DBL_MIN_10_EXP", "DBL_MIN_EXP",
    "DBL_RADIX", "FLT_DIG", "FLT_EPSILON", "FLT_MANT_DIG", "FLT_MAX", "FLT_MAX_10_EXP", "FLT_MAX_EXP", "FLT_MIN",
    "FLT_MIN_10_EXP", "FLT_MIN_EXP", "FLT_RADIX", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMA_HALF", "FP_ILOGB0",
    "FP_ILOGBNAN", "HALF_DIG", "HALF_EPSILON", "HALF_MANT_DIG", "HALF_MAX", "HALF_MAX_10_EXP", "HALF_MAX_EXP",
    "HALF_MIN", "HALF_MIN_10_EXP", "HALF_MIN_EXP", "HALF_RADIX", "HUGE_VAL", "HUGE_VALF", "INFINITY", "INT_MAX",
    "INT_MIN", "LONG_MAX", "LONG_MIN", "MAXFLOAT", "MAX_WORK_DIM", "M_1_PI", "M_1_PI_F", "M_1_PI_H", "M_2_PI",
    "M_2_PI_F", "M_2_PI_H", "M_2_SQRTPI", "M_2_SQRTPI_F", "M_2_SQRTPI_H", "M_E", "M_E_F", "M_E_H", "M_LN10",
    "M_LN10_F", "M_LN10_H", "M_LN2", "M_LN2_F", "M_LN2_H", "M_LOG10E", "M_LOG10E_F", "M_LOG10E_H", "M_LOG2E",
    "M_LOG2E_F", "M_LOG2E_H", "M_PI", "M_PI_2", "M_PI_2_F", "M_PI_2_H", "M_PI_4", "M_PI_4_F", "M_PI_4_H", "M_PI_F",
    "M_PI_H", "M_SQRT1_2", "M_SQRT1_2_F", "M_SQRT1_2_H", "M_SQRT2", "M_SQRT2_F", "M_SQRT2_H", "NAN", "NULL",
    "SCHAR_MAX", "SCHAR_MIN", "SHRT_MAX", "SHRT_MIN", "UCHAR_MAX", "UINT_MAX", "ULONG_MAX", "USHRT_MAX",
    "kernel_exec", "memory_order_acq_rel", "memory_order_acquire", "memory_order_relaxed", "memory_order_release",
    "memory_order_seq_cst", "memory_scope_all_devices", "memory_scope_all_svm_devices", "memory_scope_device",
    "memory_scope_sub_group", "memory_scope_work_group", "memory_scope_work_item",
};

/* Families of names, matched by their shape rather than listed. */
static const char *const opencl_prefixes[][2] = {
    {"__", "reserved in C and OpenCL C (it begins with '__')"},
    {"cl_", "reserved for OpenCL extensions (it begins with 'cl_')"},
    {"CL_", "an OpenCL C predefined macro (it begins with 'CL_')"},
    {"CLK_", "an OpenCL C predefined macro (it begins with 'CLK_')"},
    {"atomic_", "an OpenCL C atomic function or type (it begins with 'atomic_')"},
    {"atom_", "an OpenCL C atomic function (it begins with 'atom_')"},
    {"sub_group_", "an OpenCL C sub-group function (it begins with 'sub_group_')"},
    {"work_group_", "an OpenCL C work-group function (it begins with 'work_group_')"},
};

/* The scalar types, which is_type_name matches with vector widths, matrix
 * forms and conversion suffixes; in alphabetical order (is_type_name stops
 * past a name's first letter). */
static const char *const opencl_scalars[] = {"bool", "char",  "double", "float", "half",  "int",       "long",
                                             "quad", "short", "uchar",  "uint",  "ulong", "ulonglong", "ushort"};

/* The vector loads and stores, by their heads: vloadN vstoreN
 * vload_half[N] vloada_halfN vstore_half[N][_rtX] vstorea_halfN[_rtX]. */
static const struct {
  const char *head;
  bool width_needed, rounding;
} vector_forms[] = {{"vload", true, false},        {"vstore", true, false},      {"vload_half", false, false},
                    {"vloada_half", false, false}, {"vstore_half", false, true}, {"vstorea_half", false, true}};

/* The heads of the shapes asked after the listed names: conversions
 * convert_T[_sat][_rtX] and reinterpretations as_T. */
static const char *const opencl_shape_heads[] = {"convert_", "as_"};

/* s begins with head: compared a character at a time, with no call (the
 * heads are short, and most comparisons end at the first or second) */
static bool starts_with(const char *s, const char *head) {
  while (*head && *s == *head) {
    s++;
    head++;
  }
  return *head == 0;
}

/* strcmp's order, its first bytes compared inline (most comparisons of a
 * binary search end there) */
static int compare_name(const char *a, const char *b) {
  int d = (unsigned char)a[0] - (unsigned char)b[0];
  return d || !a[0] ? d : strcmp(a + 1, b + 1);
}

static bool in_table(const char *name, const char *const *table, size_t n) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int d = compare_name(name, table[mid]);
    if (d == 0) return true;
    if (d < 0) hi = mid;
    else lo = mid + 1;
  }
  return false;
}

/* The four lists' index: open addressing over every listed name with the
 * lists it is in, built once per process (as dpia/prims.c's name index) and
 * only read after, so that lookups stay reentrant.  The code generator asks
 * about every C name it makes or keeps, which four binary searches made a
 * tenth of generating a short kernel (translation throughput,
 * BENCHMARKS.md); one hash and one comparison answer for all four. */
enum { LIST_KEYWORD = 1, LIST_TYPE = 2, LIST_FUNCTION = 4, LIST_MACRO = 8 };
enum { LISTED_SIZE = 1024 }; /* a power of two, under half full */
_Static_assert(2 * (DPIA_COUNTOF(opencl_keywords) + DPIA_COUNTOF(opencl_types) + DPIA_COUNTOF(opencl_functions) +
                    DPIA_COUNTOF(opencl_macros)) <=
                   LISTED_SIZE,
               "the listed names' index is too small");
static struct {
  const char *name; /* NULL: empty */
  unsigned char lists;
} listed[LISTED_SIZE];
static pthread_once_t listed_once = PTHREAD_ONCE_INIT;

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* the slot of name, whose name_hash is hash: its own, or the empty one
 * where it would go */
static uint32_t listed_slot_hashed(const char *name, uint32_t hash) {
  uint32_t h = hash & (LISTED_SIZE - 1);
  while (listed[h].name && compare_name(listed[h].name, name) != 0) h = (h + 1) & (LISTED_SIZE - 1);
  return h;
}

static uint32_t listed_slot(const char *name) { return listed_slot_hashed(name, name_hash(name)); }

/* The heads of the names OpenCL C may take: bit b of taken_heads[a] for
 * every name whose first byte is a and second b (0 for a name of one
 * character) that a list or a family below can match, built with the
 * index from the very tables opencl_name_use_each asks.  Most names the
 * code generator asks about (i, gid, lid, wg, xs, output, N) have a head
 * no reserved name has, and one probe answers for them (translation
 * throughput, BENCHMARKS.md); only a prime, which may stand anywhere,
 * is looked for as well. */
static uint8_t taken_heads[256][256 / 8];

static void add_head(unsigned char first, unsigned char second) {
  taken_heads[first][second / 8] |= (uint8_t)(1u << (second % 8));
}

static void add_head_of(const char *name) { add_head((unsigned char)name[0], name[0] ? (unsigned char)name[1] : 0); }

/* The heads of three characters, for a name whose first two are taken:
 * the key (head3_key) of each listed name's first three characters (NUL
 * after its end) and each family's head, a family that takes any third
 * character (_ and a capital, __) keyed with HEAD3_ANY there.  Of the
 * names the code generator asks about whose first two bytes a list has,
 * many have three no list nor family has (acc: ac as acos, but no
 * reserved name begins acc), and two probes answer for them (translation
 * throughput, BENCHMARKS.md).  Open addressing, built with the index. */
enum { HEADS3_SIZE = 2048, HEAD3_ANY = 0x100 }; /* a power of two, under half full */
_Static_assert(2 * (DPIA_COUNTOF(opencl_keywords) + DPIA_COUNTOF(opencl_types) + DPIA_COUNTOF(opencl_functions) +
                    DPIA_COUNTOF(opencl_macros) + 64) <=
                   HEADS3_SIZE,
               "the three-character heads' index is too small");
static uint32_t heads3[HEADS3_SIZE]; /* 0: empty (a key is never 0) */

/* c2 a character or HEAD3_ANY; c1 and c2 0 past a name's end */
static uint32_t head3_key(unsigned c0, unsigned c1, unsigned c2) { return 1u << 31 | c2 << 16 | c1 << 8 | c0; }

static uint32_t *heads3_slot(uint32_t key) {
  uint32_t h = (key * 2654435761u) >> 21; /* HEADS3_SIZE's 11 bits */
  while (heads3[h] && heads3[h] != key) h = (h + 1) & (HEADS3_SIZE - 1);
  return &heads3[h];
}

static void add_head3(unsigned c0, unsigned c1, unsigned c2) { *heads3_slot(head3_key(c0, c1, c2)) = head3_key(c0, c1, c2); }

static void add_head3_of(const char *name) {
  unsigned c0 = (unsigned char)name[0], c1 = c0 ? (unsigned char)name[1] : 0, c2 = c1 ? (unsigned char)name[2] : 0;
  add_head3(c0, c1, c2);
}

/* Can a list or a family match name, whose first two bytes one's do (its
 * first three are one's, or its first two a family's that takes any
 * third: a family of _, build_listed's)? */
static bool head3_taken(const char *name) {
  unsigned c0 = (unsigned char)name[0], c1 = c0 ? (unsigned char)name[1] : 0, c2 = c1 ? (unsigned char)name[2] : 0;
  /* (only a family of _ takes any third character) */
  return *heads3_slot(head3_key(c0, c1, c2)) || (c0 == '_' && *heads3_slot(head3_key(c0, c1, HEAD3_ANY)));
}

static void add_list(const char *const *table, size_t n, unsigned char list) {
  for (size_t i = 0; i < n; i++) {
    uint32_t h = listed_slot(table[i]);
    listed[h].name = table[i];
    listed[h].lists |= list;
    add_head_of(table[i]);
    add_head3_of(table[i]);
  }
}

static void build_listed(void) {
  add_list(opencl_keywords, DPIA_COUNTOF(opencl_keywords), LIST_KEYWORD);
  add_list(opencl_types, DPIA_COUNTOF(opencl_types), LIST_TYPE);
  add_list(opencl_functions, DPIA_COUNTOF(opencl_functions), LIST_FUNCTION);
  add_list(opencl_macros, DPIA_COUNTOF(opencl_macros), LIST_MACRO);
  /* the families matched by their shape, in opencl_name_use_each's order
   * (each head of at least two characters, but __ and _ with a capital,
   * which take any third) */
  for (unsigned char capital = 'A'; capital <= 'Z'; capital++) {
    add_head('_', capital);
    add_head3('_', capital, HEAD3_ANY);
  }
  for (size_t i = 0; i < DPIA_COUNTOF(opencl_prefixes); i++) {
    add_head_of(opencl_prefixes[i][0]);
    if (strlen(opencl_prefixes[i][0]) >= 3) add_head3_of(opencl_prefixes[i][0]);
    else
      add_head3((unsigned char)opencl_prefixes[i][0][0], (unsigned char)opencl_prefixes[i][0][1], HEAD3_ANY);
  }
  for (size_t i = 0; i < DPIA_COUNTOF(opencl_scalars); i++) {
    add_head_of(opencl_scalars[i]);
    add_head3_of(opencl_scalars[i]);
  }
  for (size_t i = 0; i < DPIA_COUNTOF(vector_forms); i++) {
    add_head_of(vector_forms[i].head);
    add_head3_of(vector_forms[i].head);
  }
  for (size_t i = 0; i < DPIA_COUNTOF(opencl_shape_heads); i++) {
    add_head_of(opencl_shape_heads[i]);
    add_head3_of(opencl_shape_heads[i]);
  }
}

/* Can a list or a family match name (its head is one of theirs)? */
static bool head_taken(const char *name) {
  pthread_once(&listed_once, build_listed);
  unsigned char first = (unsigned char)name[0], second = first ? (unsigned char)name[1] : 0;
  return taken_heads[first][second / 8] & (1u << (second % 8));
}

/* the lists (LIST_*) name is in, 0 if none */
static unsigned listed_in(const char *name) {
  pthread_once(&listed_once, build_listed);
  return listed[listed_slot(name)].lists;
}

/* the same, name_hash(name) given */
static unsigned listed_in_hashed(const char *name, uint32_t hash) {
  pthread_once(&listed_once, build_listed);
  return listed[listed_slot_hashed(name, hash)].lists;
}

/* s after an optional vector width 2 3 4 8 16 (*has_width says whether
 * there was one) */
static const char *skip_width(const char *s, bool *has_width) {
  *has_width = true;
  if (s[0] == '1' && s[1] == '6') return s + 2;
  if (s[0] == '2' || s[0] == '3' || s[0] == '4' || s[0] == '8') return s + 1;
  *has_width = false;
  return s;
}

/* s after a rounding mode suffix _rte _rtz _rtp _rtn, if it has one */
static const char *skip_rounding(const char *s) {
  if (s[0] == '_' && s[1] == 'r' && s[2] == 't' && (s[3] == 'e' || s[3] == 'z' || s[3] == 'p' || s[3] == 'n'))
    return s + 4;
  return s;
}

enum { TYPE_PLAIN, TYPE_CONVERT, TYPE_AS };

/* s is an OpenCL C scalar or vector type name (float, float4; the
 * reserved bool2, quad, float4x4 too), followed for TYPE_CONVERT by an
 * optional _sat and rounding mode (convert_int4_sat_rte), for TYPE_AS
 * nothing (as_float4, as_size_t).  The scalars are in alphabetical order:
 * the search stops past s's first letter (every C name the code generator
 * makes is asked about). */
static bool is_type_name(const char *s, int what) {
  static const char *const integer_types[] = {"intptr_t", "ptrdiff_t", "size_t", "uintptr_t"};
  if (what == TYPE_AS && in_table(s, integer_types, DPIA_COUNTOF(integer_types))) return true; /* as_size_t */
  size_t first = 0; /* the first scalar that can begin s */
  while (first < DPIA_COUNTOF(opencl_scalars) && opencl_scalars[first][0] < s[0]) first++;
  for (size_t i = first; i < DPIA_COUNTOF(opencl_scalars) && opencl_scalars[i][0] == s[0]; i++) {
    if (!starts_with(s, opencl_scalars[i])) continue;
    bool width, width2;
    const char *p = skip_width(s + strlen(opencl_scalars[i]), &width);
    if (width && *p == 'x' && (s[0] == 'f' || s[0] == 'd')) {
      const char *q = skip_width(p + 1, &width2); /* matrix types float4x4, reserved */
      if (width2) p = q;
    }
    if (what == TYPE_CONVERT) {
      if (strncmp(p, "_sat", 4) == 0) p += 4;
      p = skip_rounding(p);
    }
    if (*p == 0) return true;
  }
  return false;
}

/* vloadN vstoreN vload_half[N] vloada_halfN vstore_half[N][_rtX]
 * vstorea_halfN[_rtX] */
static bool is_vector_load_store(const char *s) {
  for (size_t i = 0; i < DPIA_COUNTOF(vector_forms); i++) {
    if (!starts_with(s, vector_forms[i].head)) continue;
    bool width;
    const char *p = skip_width(s + strlen(vector_forms[i].head), &width);
    if (vector_forms[i].rounding) p = skip_rounding(p);
    if (*p == 0 && (width || !vector_forms[i].width_needed)) return true;
  }
  return false;
}

/* What name is in OpenCL C, for a message, or NULL if it is free: each
 * family asked in turn (the reference opencl_name_use agrees with, which
 * tests/unit/test_names.c checks on many names). */
const char *opencl_name_use_each(const char *name) {
  if (strchr(name, '\'')) return "not an OpenCL C identifier (C names have no ')";
  if (name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z')
    return "reserved in C and OpenCL C (it begins with '_' and a capital letter)";
  for (size_t i = 0; i < DPIA_COUNTOF(opencl_prefixes); i++)
    if (starts_with(name, opencl_prefixes[i][0])) return opencl_prefixes[i][1];
  unsigned lists = listed_in(name);
  if (lists & LIST_KEYWORD) return "an OpenCL C keyword";
  if ((lists & LIST_TYPE) || is_type_name(name, TYPE_PLAIN)) return "an OpenCL C type name";
  if ((lists & LIST_FUNCTION) || is_vector_load_store(name) ||
      (starts_with(name, "convert_") && is_type_name(name + 8, TYPE_CONVERT)) ||
      (starts_with(name, "as_") && is_type_name(name + 3, TYPE_AS)))
    return "an OpenCL C built-in function";
  if (lists & LIST_MACRO) return "an OpenCL C predefined macro or constant";
  return NULL;
}

/* Can name begin with one of opencl_prefixes (its first character is one
 * of theirs)? */
static bool may_have_prefix(char first) {
  return first == '_' || first == 'c' || first == 'C' || first == 'a' || first == 's' || first == 'w';
}

/* Can name be one of is_type_name's shapes (its first character begins
 * one of the scalars)? */
static bool may_be_type(char first) {
  switch (first) {
  case 'b': /* bool */
  case 'c': /* char */
  case 'd': /* double */
  case 'f': /* float */
  case 'h': /* half */
  case 'i': /* int */
  case 'l': /* long */
  case 'q': /* quad */
  case 's': /* short */
  case 'u': /* uchar uint ulong ulonglong ushort */ return true;
  default: return false;
  }
}

/* What name, whose head a list or family has (head_taken), is in OpenCL
 * C: one pass over the characters finds a prime and the listed names'
 * hash, and each family matched by its shape is asked only of a name whose
 * first character can begin it.  The families are asked in
 * opencl_name_use_each's order, each skipped only where it cannot match,
 * so the answer, message included, is that one's (tests/unit/test_names.c
 * compares the two on many names). */
static __attribute__((noinline)) const char *name_use_of_taken_head(const char *name) {
  uint32_t hash = 2166136261u; /* name_hash's */
  bool prime = false;
  for (const char *c = name; *c; c++) {
    prime |= *c == '\'';
    hash = (hash ^ (unsigned char)*c) * 16777619u;
  }
  if (prime) return "not an OpenCL C identifier (C names have no ')";
  char first = name[0];
  if (first == '_' && name[1] >= 'A' && name[1] <= 'Z')
    return "reserved in C and OpenCL C (it begins with '_' and a capital letter)";
  if (may_have_prefix(first))
    for (size_t i = 0; i < DPIA_COUNTOF(opencl_prefixes); i++)
      if (starts_with(name, opencl_prefixes[i][0])) return opencl_prefixes[i][1];
  unsigned lists = listed_in_hashed(name, hash);
  if (lists & LIST_KEYWORD) return "an OpenCL C keyword";
  if ((lists & LIST_TYPE) || (may_be_type(first) && is_type_name(name, TYPE_PLAIN))) return "an OpenCL C type name";
  if ((lists & LIST_FUNCTION) || (first == 'v' && is_vector_load_store(name)) ||
      (first == 'c' && starts_with(name, "convert_") && is_type_name(name + 8, TYPE_CONVERT)) ||
      (first == 'a' && starts_with(name, "as_") && is_type_name(name + 3, TYPE_AS)))
    return "an OpenCL C built-in function";
  if (lists & LIST_MACRO) return "an OpenCL C predefined macro or constant";
  return NULL;
}

/* What name is in OpenCL C, for a message, or NULL if it is free.  The code
 * generator asks about every name it makes or keeps (a loop variant of
 * bench/variants.py about a dozen times): most of them (i, gid, lid, wg,
 * xs, output, N) begin as no listed name and no family does, which one
 * probe of taken_heads tells, and are free unless they have a prime.  The
 * rest are asked in a function of their own, so that the free names' path
 * saves no registers. */
const char *opencl_name_use(const char *name) {
  if (head_taken(name) && head3_taken(name)) return name_use_of_taken_head(name);
  for (const char *c = name; *c; c++) /* most names are short: no call */
    if (*c == '\'') return "not an OpenCL C identifier (C names have no ')";
  return NULL;
}

const char *opencl_kernel_name_use(const char *name) {
  return name[0] == 'm' && strcmp(name, "main") == 0 ? "reserved in OpenCL C (a kernel cannot be called main)"
                                                     : opencl_name_use(name);
}

bool opencl_name_macro(const char *name) { return (listed_in(name) & LIST_MACRO) != 0; }
