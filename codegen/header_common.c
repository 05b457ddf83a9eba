/* header_common.c: the part of every `--emit=header` header that is the
 * same whatever the kernels (header.c): the launchers' error codes and
 * messages, the atomics, the program cache and the build-log helpers,
 * defined once per translation unit that includes several headers. */
#include "header_common.h"

/* Version of the shared part: headers of different versions cannot be
 * included together. */
enum { HEADER_COMMON_VERSION = 2 };

/* Error codes of the launchers, besides OpenCL's own (passed through). */
#define DPIA_HEADER_ERRORS(X)                                                                                   \
  X(DPIA_ERROR_PRECONDITION, -9001,                                                                             \
    "a precondition of the kernel does not hold for the size arguments")                                      \
  X(DPIA_ERROR_SIZE, -9002,                                                                                     \
    "a size argument is negative, or a launch or buffer size computed from the size arguments overflows, "     \
    "divides by zero or does not fit a size_t")                                                                \
  X(DPIA_ERROR_BUFFER_SIZE, -9003,                                                                              \
    "a buffer argument is smaller (CL_MEM_SIZE) than the bytes the kernel reads or writes in it")

/* OpenCL error codes (cl.h), by value so that the names are known whatever
 * version of the OpenCL headers the user compiles with. */
#define DPIA_CL_ERRORS(X)                                                                                      \
  X(-1, CL_DEVICE_NOT_FOUND) X(-2, CL_DEVICE_NOT_AVAILABLE) X(-3, CL_COMPILER_NOT_AVAILABLE)                   \
  X(-4, CL_MEM_OBJECT_ALLOCATION_FAILURE) X(-5, CL_OUT_OF_RESOURCES) X(-6, CL_OUT_OF_HOST_MEMORY)              \
  X(-7, CL_PROFILING_INFO_NOT_AVAILABLE) X(-8, CL_MEM_COPY_OVERLAP) X(-9, CL_IMAGE_FORMAT_MISMATCH)            \
  X(-10, CL_IMAGE_FORMAT_NOT_SUPPORTED) X(-11, CL_BUILD_PROGRAM_FAILURE) X(-12, CL_MAP_FAILURE)                \
  X(-13, CL_MISALIGNED_SUB_BUFFER_OFFSET) X(-14, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)                 \
  X(-15, CL_COMPILE_PROGRAM_FAILURE) X(-16, CL_LINKER_NOT_AVAILABLE) X(-17, CL_LINK_PROGRAM_FAILURE)           \
  X(-18, CL_DEVICE_PARTITION_FAILED) X(-19, CL_KERNEL_ARG_INFO_NOT_AVAILABLE) X(-30, CL_INVALID_VALUE)         \
  X(-31, CL_INVALID_DEVICE_TYPE) X(-32, CL_INVALID_PLATFORM) X(-33, CL_INVALID_DEVICE)                         \
  X(-34, CL_INVALID_CONTEXT) X(-35, CL_INVALID_QUEUE_PROPERTIES) X(-36, CL_INVALID_COMMAND_QUEUE)              \
  X(-37, CL_INVALID_HOST_PTR) X(-38, CL_INVALID_MEM_OBJECT) X(-39, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)         \
  X(-40, CL_INVALID_IMAGE_SIZE) X(-41, CL_INVALID_SAMPLER) X(-42, CL_INVALID_BINARY)                           \
  X(-43, CL_INVALID_BUILD_OPTIONS) X(-44, CL_INVALID_PROGRAM) X(-45, CL_INVALID_PROGRAM_EXECUTABLE)            \
  X(-46, CL_INVALID_KERNEL_NAME) X(-47, CL_INVALID_KERNEL_DEFINITION) X(-48, CL_INVALID_KERNEL)                \
  X(-49, CL_INVALID_ARG_INDEX) X(-50, CL_INVALID_ARG_VALUE) X(-51, CL_INVALID_ARG_SIZE)                        \
  X(-52, CL_INVALID_KERNEL_ARGS) X(-53, CL_INVALID_WORK_DIMENSION) X(-54, CL_INVALID_WORK_GROUP_SIZE)          \
  X(-55, CL_INVALID_WORK_ITEM_SIZE) X(-56, CL_INVALID_GLOBAL_OFFSET) X(-57, CL_INVALID_EVENT_WAIT_LIST)        \
  X(-58, CL_INVALID_EVENT) X(-59, CL_INVALID_OPERATION) X(-60, CL_INVALID_GL_OBJECT)                           \
  X(-61, CL_INVALID_BUFFER_SIZE) X(-62, CL_INVALID_MIP_LEVEL) X(-63, CL_INVALID_GLOBAL_WORK_SIZE)              \
  X(-64, CL_INVALID_PROPERTY) X(-65, CL_INVALID_IMAGE_DESCRIPTOR) X(-66, CL_INVALID_COMPILER_OPTIONS)          \
  X(-67, CL_INVALID_LINKER_OPTIONS) X(-68, CL_INVALID_DEVICE_PARTITION_COUNT) X(-69, CL_INVALID_PIPE_SIZE)     \
  X(-70, CL_INVALID_DEVICE_QUEUE) X(-71, CL_INVALID_SPEC_ID) X(-72, CL_MAX_SIZE_RESTRICTION_EXCEEDED)          \
  X(-1001, CL_PLATFORM_NOT_FOUND_KHR)

void header_emit_common(Buf *o) {
  emit(o,
       "/* ---- shared by every dpia header: defined once per translation unit ---- */\n"
       "#ifndef DPIA_HEADER_COMMON\n"
       "#define DPIA_HEADER_COMMON %d\n"
       "\n"
       "#ifdef __cplusplus\n"
       "#define DPIA_ATOMIC_(T) std::atomic<T>\n"
       "#define DPIA_LOAD_(p) (p)->load(std::memory_order_acquire)\n"
       "#define DPIA_STORE_(p, v) (p)->store((v), std::memory_order_release)\n"
       "#define DPIA_EXCHANGE_(p, v) (p)->exchange((v), std::memory_order_acq_rel)\n"
       "#define DPIA_CAS_(p, e, d) \\\n"
       "  (p)->compare_exchange_strong(*(e), (d), std::memory_order_acq_rel, std::memory_order_acquire)\n"
       "#else\n"
       "#define DPIA_ATOMIC_(T) _Atomic(T)\n"
       "#define DPIA_LOAD_(p) atomic_load_explicit((p), memory_order_acquire)\n"
       "#define DPIA_STORE_(p, v) atomic_store_explicit((p), (v), memory_order_release)\n"
       "#define DPIA_EXCHANGE_(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)\n"
       "#define DPIA_CAS_(p, e, d) \\\n"
       "  atomic_compare_exchange_strong_explicit((p), (e), (d), memory_order_acq_rel, memory_order_acquire)\n"
       "#endif\n"
       "#ifdef __cplusplus\n"
       "#define DPIA_THREAD_LOCAL_ thread_local\n"
       "#else\n"
       "#define DPIA_THREAD_LOCAL_ _Thread_local\n"
       "#endif\n"
       "#ifdef __cplusplus\n"
       "#define DPIA_NULL_ nullptr\n"
       "#define DPIA_CAST_(T, v) static_cast<T>(v)\n"
       "#else\n"
       "#define DPIA_NULL_ NULL\n"
       "#define DPIA_CAST_(T, v) ((T)(v))\n"
       "#endif\n"
       "\n"
       "#ifdef __cplusplus\n"
       "extern \"C\" {\n"
       "#endif\n"
       "\n"
       "/* Return values of the launchers: 0, one of these, or an OpenCL error\n"
       " * code (CL_*, negative) passed through unchanged. */\n"
       "enum {\n"
       "  DPIA_SUCCESS = 0,\n",
       HEADER_COMMON_VERSION);
#define X(name, value, text) emit(o, "  %s = %d, /* %s */\n", #name, value, text);
  DPIA_HEADER_ERRORS(X)
#undef X
  emit(o, "};\n\n"
          "/* The name of a return value of a launcher (\"DPIA_ERROR_SIZE: ...\",\n"
          " * \"CL_INVALID_WORK_GROUP_SIZE\"); never NULL. */\n"
          "static inline const char *dpia_error_string(int code) {\n"
          "  switch (code) {\n"
          "  case DPIA_SUCCESS: return \"DPIA_SUCCESS\";\n");
#define X(name, value, text) emit(o, "  case %s: return \"%s: %s\";\n", #name, #name, text);
  DPIA_HEADER_ERRORS(X)
#undef X
#define X(value, name) emit(o, "  case %d: return \"%s\";\n", value, #name);
  DPIA_CL_ERRORS(X)
#undef X
  buf_puts(o,
           "  default: return \"unknown error code\";\n"
           "  }\n"
           "}\n"
           "\n"
           "/* the kernel interface passes sizes as OpenCL ints */\n"
           "typedef char dpia_int_is_cl_int_[sizeof(int) == sizeof(cl_int) ? 1 : -1];\n"
           "\n"
           "/* Size arithmetic in long long: an overflow or a division by zero sets\n"
           " * *bad and gives 0. */\n"
           "static inline long long dpia_add_(long long a, long long b, int *bad) {\n"
           "  if ((b > 0 && a > LLONG_MAX - b) || (b < 0 && a < LLONG_MIN - b)) {\n"
           "    *bad = 1;\n"
           "    return 0;\n"
           "  }\n"
           "  return a + b;\n"
           "}\n"
           "static inline long long dpia_sub_(long long a, long long b, int *bad) {\n"
           "  if ((b < 0 && a > LLONG_MAX + b) || (b > 0 && a < LLONG_MIN + b)) {\n"
           "    *bad = 1;\n"
           "    return 0;\n"
           "  }\n"
           "  return a - b;\n"
           "}\n"
           "static inline long long dpia_mul_(long long a, long long b, int *bad) {\n"
           "  if (a == 0 || b == 0) return 0;\n"
           "  if (a > 0 ? (b > 0 ? a > LLONG_MAX / b : b < LLONG_MIN / a)\n"
           "            : (b > 0 ? a < LLONG_MIN / b : b < LLONG_MAX / a))\n"
           "  {\n"
           "    *bad = 1;\n"
           "    return 0;\n"
           "  }\n"
           "  return a * b;\n"
           "}\n"
           "static inline long long dpia_div_(long long a, long long b, int *bad) {\n"
           "  if (b == 0 || (a == LLONG_MIN && b == -1)) {\n"
           "    *bad = 1;\n"
           "    return 0;\n"
           "  }\n"
           "  return a / b;\n"
           "}\n"
           "static inline long long dpia_mod_(long long a, long long b, int *bad) {\n"
           "  if (b == 0 || (a == LLONG_MIN && b == -1)) {\n"
           "    *bad = 1;\n"
           "    return 0;\n"
           "  }\n"
           "  return a % b;\n"
           "}\n"
           "static inline long long dpia_neg_(long long a, int *bad) {\n"
           "  if (a == LLONG_MIN) {\n"
           "    *bad = 1;\n"
           "    return 0;\n"
           "  }\n"
           "  return -a;\n"
           "}\n"
           "/* a launch or buffer size: 0 <= v and v fits a size_t */\n"
           "static inline size_t dpia_size_(long long v, int *bad) {\n"
           "  size_t s = DPIA_CAST_(size_t, v);\n"
           "  if (v < 0 || DPIA_CAST_(long long, s) != v) *bad = 1;\n"
           "  return s;\n"
           "}\n"
           "\n"
           );
  buf_puts(o,
           "/* The build log of the last program that failed to build in a launch by\n"
           " * this thread (of this translation unit), with the options used and the\n"
           " * log of each device, cut at DPIA_BUILD_LOG_SIZE - 1 characters; \"\" if\n"
           " * none failed.  Valid until this thread's next failed build. */\n"
           "#define DPIA_BUILD_LOG_SIZE 16384\n"
           "static inline char *dpia_build_log_buffer_(void) {\n"
           "  static DPIA_THREAD_LOCAL_ char log[DPIA_BUILD_LOG_SIZE];\n"
           "  return log;\n"
           "}\n"
           "static inline const char *dpia_last_build_log(void) { return dpia_build_log_buffer_(); }\n"
           "\n"
           "/* append text (n bytes) to the thread's build log, cutting it at the end */\n"
           "static inline void dpia_log_append_(const char *text, size_t n) {\n"
           "  char *log = dpia_build_log_buffer_();\n"
           "  size_t used = strlen(log);\n"
           "  if (n > DPIA_BUILD_LOG_SIZE - 1 - used) n = DPIA_BUILD_LOG_SIZE - 1 - used;\n"
           "  memcpy(log + used, text, n);\n"
           "  log[used + n] = 0;\n"
           "}\n"
           "\n"
           "/* the build log of a program that failed to build (err) */\n"
           "static inline void dpia_record_build_log_(cl_program program, const char *kernel, const char *options,\n"
           "                                          cl_int err) {\n"
           "  cl_device_id devices[8];\n"
           "  cl_uint ndevices = 0, i;\n"
           "  char head[256];\n"
           "  dpia_build_log_buffer_()[0] = 0;\n"
           "  snprintf(head, sizeof head, \"dpia: building the program of kernel %s failed (%s)\", kernel,\n"
           "           err == CL_INVALID_BUILD_OPTIONS ? \"CL_INVALID_BUILD_OPTIONS\" : err == CL_BUILD_PROGRAM_FAILURE ? \"CL_BUILD_PROGRAM_FAILURE\" : \"OpenCL error\");\n"
           "  dpia_log_append_(head, strlen(head));\n"
           "  dpia_log_append_(\" with options '\", 15);\n"
           "  dpia_log_append_(options, strlen(options));\n"
           "  dpia_log_append_(\"'\\n\", 2);\n"
           "  if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndevices, &ndevices, DPIA_NULL_) != CL_SUCCESS)\n"
           "    return;\n"
           "  if (ndevices > 8) ndevices = 8;\n"
           "  if (clGetProgramInfo(program, CL_PROGRAM_DEVICES, ndevices * sizeof devices[0], devices, DPIA_NULL_) !=\n"
           "      CL_SUCCESS)\n"
           "    return;\n"
           "  for (i = 0; i < ndevices; i++) {\n"
           "    size_t size = 0;\n"
           "    char *text;\n"
           "    if (clGetProgramBuildInfo(program, devices[i], CL_PROGRAM_BUILD_LOG, 0, DPIA_NULL_, &size) != CL_SUCCESS ||\n"
           "        size == 0)\n"
           "      continue;\n"
           "    text = DPIA_CAST_(char *, malloc(size));\n"
           "    if (!text) return;\n"
           "    if (clGetProgramBuildInfo(program, devices[i], CL_PROGRAM_BUILD_LOG, size, text, DPIA_NULL_) == CL_SUCCESS)\n"
           "      dpia_log_append_(text, memchr(text, 0, size) ? strlen(text) : size);\n"
           "    free(text);\n"
           "  }\n"
           "}\n"
           "\n"
           );
  buf_puts(o,
           "/* Programs per context and build options, for one kernel (see the\n"
           " * threading rule above), each with a pool of kernel objects.  Slots are\n"
           " * claimed in order and never given back while in use, so a lookup stops\n"
           " * at the first empty one.  A slot's options are stored before its\n"
           " * program (release), so a reader that sees the program sees them. */\n"
           "#define DPIA_CACHE_SLOTS 8\n"
           "#define DPIA_KERNEL_POOL 4\n"
           "typedef struct dpia_program_cache_ {\n"
           "  DPIA_ATOMIC_(cl_context) context[DPIA_CACHE_SLOTS];\n"
           "  DPIA_ATOMIC_(cl_program) program[DPIA_CACHE_SLOTS];\n"
           "  DPIA_ATOMIC_(const char *) options[DPIA_CACHE_SLOTS];\n"
           "  DPIA_ATOMIC_(cl_kernel) kernel[DPIA_CACHE_SLOTS][DPIA_KERNEL_POOL];\n"
           "  DPIA_ATOMIC_(const char *) build_options; /* of the next builds; NULL: \"\" */\n"
           "} dpia_program_cache_;\n"
           "\n"
           "static inline int dpia_same_options_(const char *a, const char *b) {\n"
           "  return strcmp(a ? a : \"\", b ? b : \"\") == 0;\n"
           "}\n"
           "\n"
           "/* The built program of the source for context and the cache's build\n"
           " * options: cached (*slot its slot), or built now (*slot = -1: the caller\n"
           " * releases it).  A failed build records its log (dpia_last_build_log). */\n"
           "static inline cl_program dpia_program_(dpia_program_cache_ *cache, cl_context context,\n"
           "                                       const char *const *source, cl_uint nsource, const char *kernel,\n"
           "                                       int *slot, cl_int *err) {\n"
           "  cl_program program;\n"
           "  const char **strings; /* what clCreateProgramWithSource takes */\n"
           "  const char *options = DPIA_LOAD_(&cache->build_options);\n"
           "  int i;\n"
           "  *slot = -1;\n"
           "  *err = CL_SUCCESS;\n"
           "  for (i = 0; i < DPIA_CACHE_SLOTS; i++) {\n"
           "    cl_context c = DPIA_LOAD_(&cache->context[i]);\n"
           "    if (!c) break;\n"
           "    if (c == context) {\n"
           "      program = DPIA_LOAD_(&cache->program[i]);\n"
           "      /* NULL: another thread is publishing it; build our own */\n"
           "      if (program && dpia_same_options_(DPIA_LOAD_(&cache->options[i]), options)) {\n"
           "        *slot = i;\n"
           "        return program;\n"
           "      }\n"
           "    }\n"
           "  }\n"
           "  memcpy(&strings, &source, sizeof strings);\n"
           "  program = clCreateProgramWithSource(context, nsource, strings, DPIA_NULL_, err);\n"
           "  if (*err != CL_SUCCESS) return DPIA_NULL_;\n"
           "  *err = clBuildProgram(program, 0, DPIA_NULL_, options ? options : \"\", DPIA_NULL_, DPIA_NULL_);\n"
           "  if (*err != CL_SUCCESS) {\n"
           "    dpia_record_build_log_(program, kernel, options ? options : \"\", *err);\n"
           "    clReleaseProgram(program);\n"
           "    return DPIA_NULL_;\n"
           "  }\n"
           "  for (i = 0; i < DPIA_CACHE_SLOTS; i++) {\n"
           "    cl_context expected = DPIA_NULL_;\n"
           "    if (DPIA_CAS_(&cache->context[i], &expected, context)) {\n"
           "      DPIA_STORE_(&cache->options[i], options);\n"
           "      DPIA_STORE_(&cache->program[i], program);\n"
           "      *slot = i;\n"
           "      return program;\n"
           "    }\n"
           "    /* another thread cached one for this context at the same time: keep\n"
           "     * its slot (unless it has other options) and release ours */\n"
           "    if (expected == context && (!DPIA_LOAD_(&cache->program[i]) ||\n"
           "                                dpia_same_options_(DPIA_LOAD_(&cache->options[i]), options)))\n"
           "      break;\n"
           "  }\n"
           "  return program;\n"
           "}\n"
           "\n"
           );
  buf_puts(o,
           "/* A kernel object of the program in slot (taken from its pool), or a new\n"
           " * one; give it back with dpia_kernel_put_. */\n"
           "static inline cl_kernel dpia_kernel_take_(dpia_program_cache_ *cache, int slot, cl_program program,\n"
           "                                         const char *name, cl_int *err) {\n"
           "  int i;\n"
           "  if (slot >= 0)\n"
           "    for (i = 0; i < DPIA_KERNEL_POOL; i++) {\n"
           "      cl_kernel k = DPIA_LOAD_(&cache->kernel[slot][i]) ? DPIA_EXCHANGE_(&cache->kernel[slot][i], DPIA_NULL_)\n"
           "                                                       : DPIA_NULL_;\n"
           "      if (k) return k;\n"
           "    }\n"
           "  return clCreateKernel(program, name, err);\n"
           "}\n"
           "static inline void dpia_kernel_put_(dpia_program_cache_ *cache, int slot, cl_kernel k) {\n"
           "  int i;\n"
           "  if (slot >= 0)\n"
           "    for (i = 0; i < DPIA_KERNEL_POOL; i++) {\n"
           "      cl_kernel expected = DPIA_NULL_;\n"
           "      if (DPIA_CAS_(&cache->kernel[slot][i], &expected, k)) return;\n"
           "    }\n"
           "  clReleaseKernel(k);\n"
           "}\n"
           "\n"
           "/* A buffer argument holds at least bytes: CL_SUCCESS, DPIA_ERROR_BUFFER_SIZE\n"
           " * or the error of clGetMemObjectInfo (CL_INVALID_MEM_OBJECT). */\n"
           "static inline cl_int dpia_check_buffer_(cl_mem buffer, size_t bytes) {\n"
           "  size_t size = 0;\n"
           "  cl_int err;\n"
           "  if (bytes == 0) return CL_SUCCESS;\n"
           "  err = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, DPIA_NULL_);\n"
           "  if (err != CL_SUCCESS) return err;\n"
           "  return size < bytes ? DPIA_ERROR_BUFFER_SIZE : CL_SUCCESS;\n"
           "}\n"
           "\n"
           "/* Release every cached program and kernel (not while the kernel is launched). */\n"
           "static inline void dpia_cache_release_(dpia_program_cache_ *cache) {\n"
           "  int i, j;\n"
           "  for (i = 0; i < DPIA_CACHE_SLOTS; i++) {\n"
           "    cl_program program;\n"
           "    for (j = 0; j < DPIA_KERNEL_POOL; j++) {\n"
           "      cl_kernel k = DPIA_EXCHANGE_(&cache->kernel[i][j], DPIA_NULL_);\n"
           "      if (k) clReleaseKernel(k);\n"
           "    }\n"
           "    program = DPIA_EXCHANGE_(&cache->program[i], DPIA_NULL_);\n"
           "    if (program) clReleaseProgram(program);\n"
           "    DPIA_STORE_(&cache->options[i], DPIA_NULL_);\n"
           "  }\n"
           "  for (i = 0; i < DPIA_CACHE_SLOTS; i++) DPIA_STORE_(&cache->context[i], DPIA_NULL_);\n"
           "}\n"
           "\n"
           "#ifdef __cplusplus\n"
           "}\n"
           "#endif\n");
  emit(o, "#elif DPIA_HEADER_COMMON != %d\n"
          "#error \"dpia headers of different versions cannot be included together\"\n"
          "#endif\n\n",
       HEADER_COMMON_VERSION);
}
