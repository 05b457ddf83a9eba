/* diag_codes.h: the stable codes of diagnostics (docs/errors.md).
 *
 * X(code, name, summary): every error dpia reports carries one of these
 * codes besides its message, so that a program driving dpia (a search
 * driver, batch mode, the Python package) can count rejections by reason
 * without reading English.  A code names a kind of error, not a message:
 * several sites that report the same kind share one.  Codes are stable:
 * never renumber or reuse one; retire a code by leaving it in the table
 * with its documentation.  Every code has an entry in docs/errors.md, and
 * tests/check/error_codes.py checks both ways.
 *
 * Ranges, by stage:
 *   E00xx  not a fault of the program text: a malformed batch request, the
 *          verification of dpia's own output, the OpenCL runtime, and
 *          internal errors (usage errors of the command line are printed
 *          before any program is read and carry no code)
 *   E01xx  lexing and parsing
 *   E02xx  names and scopes
 *   E03xx  types
 *   E04xx  sizes and their preconditions
 *   E05xx  SCIR: passivity and interference
 *   E06xx  OpenCL: parallelism levels, address spaces, barriers
 *   E07xx  translation and code generation refusals
 *   E08xx  tune parameters and options given with the program (--set,
 *          -k, --size of `dpia run`)
 *   E09xx  limits: too deep, too large, out of memory
 *   E10xx  pipelines (docs/language.md section 8)
 *   E11xx  rewriting: `dpia rewrite` (docs/language.md section 21) */
#ifndef DPIA_DIAG_CODES_H
#define DPIA_DIAG_CODES_H

/* clang-format off */
#define DIAG_CODES(X)                                                                                              \
  X(E0001, BAD_REQUEST, "a batch request that is not valid JSON or not a valid request")                       \
  X(E0002, VERIFIER_UNAVAILABLE, "libclang, which verifies the generated OpenCL, cannot be started")            \
  X(E0003, WRONG_TRANSLATION, "the semantic check found the translation computing other values (a bug)")        \
  X(E0004, OPENCL_RUNTIME, "the OpenCL runtime is unavailable or failed")                                       \
  X(E0005, RESULT_DIFFERS, "the kernel run on the device differs from the reference interpreter")               \
  X(E0006, NOT_CHECKABLE, "the reference result cannot be compared for these inputs (not finite, all zeros, or an int overflow)")      \
  X(E0007, DEVICE_LIMIT, "a kernel that needs more local memory or larger work-groups than the device has")   \
  X(E0008, RACE, "the race check found a data race, an access out of bounds or barrier divergence in the generated OpenCL (a bug)") \
  X(E0099, INTERNAL, "an internal error of dpia (exit 70): please report it")                                   \
  X(E0101, BAD_CHARACTER, "a character or byte that is not part of the language")                               \
  X(E0102, BAD_LITERAL, "a number literal that is malformed or too large")                                      \
  X(E0103, UNEXPECTED_TOKEN, "a token the grammar does not allow here")                                         \
  X(E0104, CHAINED_OPERATOR, "comparisons or assignments chained without parentheses")                          \
  X(E0105, BAD_TYPE_SYNTAX, "a type name or vector type that does not exist")                                   \
  X(E0106, BAD_PARAMETERS, "parameters written with types where they take none, or with some types missing")    \
  X(E0107, PAIR_ARITY, "a pair with more than two components")                                                  \
  X(E0108, SIZE_OPERATOR_PRECEDENCE, "a size expression that parses differently from how it reads")             \
  X(E0109, BAD_LANE_NAME, "a vector lane written with a name that is no lane (.q, .s, .xy)")                    \
  X(E0111, UNTERMINATED_STRING, "a string literal without its closing quote")                                   \
  X(E0112, EMPTY_ARRAY_LITERAL, "an array literal with no elements")                                            \
  X(E0201, UNKNOWN_NAME, "a name that is not bound here")                                                       \
  X(E0202, WRONG_KIND_OF_NAME, "a name of the wrong kind (a value used as a size, a type or kernel as a value)") \
  X(E0203, PRIMITIVE_REBOUND, "a primitive's name defined or bound again")                                      \
  X(E0204, DUPLICATE_NAME, "a declaration or parameter name used twice")                                        \
  X(E0205, RECURSION, "a def that uses itself, directly or through others")                                     \
  X(E0206, RESERVED_NAME, "a kernel or parameter name that OpenCL C reserves")                                  \
  X(E0301, TYPE_MISMATCH, "a phrase whose type is not the one needed")                                          \
  X(E0302, BAD_OPERANDS, "an operator or conversion applied to operands it does not take")                      \
  X(E0303, CANNOT_INFER, "a type or size that nothing determines")                                              \
  X(E0304, BAD_APPLICATION, "a function given the wrong number of arguments, or a non-function applied")        \
  X(E0305, NOT_AN_ACCEPTOR, "the left side of ':=' is not an acceptor")                                         \
  X(E0306, BAD_PROJECTION, "'.1' or '.2' applied to something that is not a phrase pair")                       \
  X(E0307, FUNCTION_AS_VALUE, "a function where data is needed")                                                \
  X(E0308, PHRASE_TYPE_AS_DATA, "a phrase type where a data type is needed")                                    \
  X(E0309, BAD_KERNEL_SIGNATURE, "a kernel whose parameters or result cannot be a kernel's")                     \
  X(E0310, BAD_VECTOR_WIDTH, "a vector width other than 2, 3, 4, 8 or 16")                                      \
  X(E0311, BAD_ITERATE_COUNT, "an iterate count that is not a constant, or too large")                          \
  X(E0312, ITERATE_UNAPPLIED, "iterate without the array it iterates on")                                       \
  X(E0316, LANE_OUT_OF_RANGE, "a vector lane beyond the vector's width (.z of a float2)")                       \
  X(E0317, LANE_OF_NON_VECTOR, "a vector lane read of a value that is not a vector")                            \
  X(E0318, VECTOR_LANE_COUNT, "a vector built from more or fewer lanes than its width")                         \
  X(E0323, ARRAY_LITERAL_MIXED, "array literal elements of different types or shapes")                          \
  X(E0324, ARRAY_LITERAL_ELEMENT_TYPE, "array literal elements other than numbers, booleans or rows of them")   \
  X(E0325, FOREIGN_PARAMETER_TYPE, "a foreign function parameter or result that is not a scalar type")          \
  X(E0326, FOREIGN_ARITY, "a foreign function used without all of its arguments")                               \
  X(E0327, FOREIGN_BODY, "a foreign function body that is not valid OpenCL C")                                  \
  X(E0328, BAD_UPDATES, "an updates clause naming no input array of the kernel, or whose region or result type does not fit it") \
  X(E0329, DEPENDENT_ARRAY_STORED, "a dependent array where it would be stored or passed (a kernel's parameter or result, new)") \
  X(E0330, UPDATES_REGION_OUTSIDE, "a region of an updates clause that ends past the array it updates, or before it begins") \
  X(E0331, BAD_PERMUTATION, "a permutation clause naming no input of type [n]idx[n] of the kernel")           \
  X(E0332, SCATTER_NOT_DISJOINT, "a scatter whose positions are not an input declared a permutation (writes not provably disjoint)") \
  X(E0333, BAD_DEP_MAP, "a dependent map (depMapSeq) of no dependent array, or not given its function and array") \
  X(E0334, DEPENDENT_RESULT, "memory for a dependent array or a row of one: a dependent map's result read by a later stage, a temporary of a row's size") \
  X(E0335, DEP_INDEX_ESCAPES, "a type outside a dependent map's function that uses the map's row") \
  X(E0336, DEP_ARRAY_INDEX, "a row of a dependent array taken at an index that is not a loop's") \
  X(E0340, BAD_INPUT_VALUES, "values given for an input (dpia run --input) that are not its elements")          \
  X(E0341, UNKNOWN_INPUT, "dpia run --input naming no data parameter of the kernel, or one given twice")       \
  X(E0401, SIZE_MISMATCH, "two sizes that must be equal are not")                                               \
  X(E0402, SIZE_NOT_WHOLE, "a size that is not a whole number (a division that does not divide)")               \
  X(E0403, SIZE_NEGATIVE, "a size that is negative")                                                            \
  X(E0404, SIZE_TOO_SMALL, "a size argument below the least the primitive takes")                               \
  X(E0405, SIZE_OVERFLOW, "a size that does not fit 64 bits")                                                   \
  X(E0406, SIZE_DIVISION, "a size divided by zero or by a sum")                                                 \
  X(E0407, INDEX_OUT_OF_RANGE, "a constant index outside its array")                                            \
  X(E0408, CONTRADICTORY_PRECONDITIONS, "preconditions that no sizes satisfy together")                         \
  X(E0409, DEPENDENT_SIZE, "a size that depends on a dependent array's index other than as n + c*i") \
  X(E0410, DEP_ROW_PARALLEL, "a parallel map over a row of a dependent map (a count of work-items that differs by row)") \
  X(E0411, BAD_DEP_JOIN, "depJoin of no dependent array whose rows are arrays of one element type") \
  X(E0412, DEP_JOIN_READ, "a read of depJoin's result in a kernel (a depJoin is written through only)") \
  X(E0413, EMPTY_NDRANGE, "a launch with no work-item at the given sizes whose output is not empty") \
  X(E0501, ACTIVE_IN_PASSIVE, "a variable used actively where only passive use is allowed")                     \
  X(E0502, PASSIVE_REQUIRED, "an active function where a passive one is required")                              \
  X(E0503, INTERFERENCE, "a function and its argument that interfere (both use the same variable actively)")   \
  X(E0505, MIRROR_NOT_OUTPUT, "a mirror written elsewhere than a kernel's result (its writes cross rows, which only the output allows)") \
  X(E0506, VOLATILE_ELEMENTS, "a toLocalVolatile whose result is not an array of scalars")                       \
  X(E0601, NO_PARALLEL_LEVEL, "a map or parfor with no OpenCL level")                                           \
  X(E0602, BAD_PARALLEL_NESTING, "parallel maps nested in an order OpenCL's hierarchy does not allow")          \
  X(E0603, BAD_ADDRESS_SPACE, "memory placed in an address space that cannot hold it there")                    \
  X(E0604, NO_BARRIER, "a read of results that would need a barrier OpenCL does not have there")               \
  X(E0605, REDUNDANT_WORK, "a result every work-item would compute and write at once")                          \
  X(E0606, PRIVATE_TOO_LARGE, "private arrays of a work-item larger than dpia allows (64 KiB)")               \
  X(E0607, NEEDS_STRATEGY, "a high-level kernel: accepted by check --high-level, it needs a strategy before translation") \
  X(E0608, BARRIER_NOT_SPLIT, "a kernel whose barriers the C target cannot split its work-item loops at")          \
  X(E0701, CODEGEN_UNSUPPORTED, "a construct the OpenCL code generator cannot generate")                        \
  X(E0702, BAD_TEMPORARY, "a temporary allocated where code generation cannot place it")                        \
  X(E0703, WORKGROUP_SIZE_NOT_FIXED, "a kernel whose work-group size is not a constant")                         \
  X(E0704, UPDATE_NOT_POINTWISE, "a kernel computing in place that reads its updated input elsewhere than where it writes") \
  X(E0705, UPDATE_ACROSS_GROUPS, "a kernel computing in place whose work-groups may read what another group writes") \
  X(E0706, UPDATES_REGIONS_OVERLAP, "an updates clause whose regions may overlap")                                  \
  X(E0801, TUNE_OUTSIDE_KERNEL, "a tune parameter declared by a def")                                           \
  X(E0802, BAD_TUNE_VALUES, "invalid values in a tune parameter's declaration")                                 \
  X(E0803, SET_UNKNOWN, "--set of a name that is not a tune parameter of the kernels")                          \
  X(E0804, VALUE_OUT_OF_DOMAIN, "a value given for a tune parameter outside its declared values")              \
  X(E0805, VIOLATED_PRECONDITION, "values given for sizes that violate a precondition of the kernel")           \
  X(E0806, NO_SUCH_KERNEL, "-k names no kernel, or dpia run is not told which kernel to run")                   \
  X(E0807, SIZE_MISSING, "dpia run without a value for one of the kernel's sizes")                              \
  X(E0808, SIZE_UNKNOWN, "dpia run given a value for a size the kernel does not have")                          \
  X(E0809, SIZES_TOO_LARGE, "sizes too large for the device or for the generated code's indices")              \
  X(E0810, UNKNOWN_TARGET, "--target (or the target option) names a language dpia does not generate")           \
  X(E0811, TUNE_CACHE_INVALID, "the tuning cache file cannot be read or is not a tuning cache")                   \
  X(E0812, NOT_A_PERMUTATION, "an input declared a permutation whose values are not distinct positions")        \
  X(E0901, TOO_DEEP, "a program nested more deeply than dpia allows")                                           \
  X(E0902, TOO_LARGE, "a program larger than dpia allows, or needing more memory than the limit")              \
  X(E0903, OUT_OF_MEMORY, "memory ran out during the translation")                                             \
  X(E1001, PIPELINE_COMPUTES, "computation outside a kernel in a pipeline")                                    \
  X(E1002, PIPELINE_UNSUPPORTED, "a kernel or a view a pipeline cannot chain (yet)")                           \
  X(E1003, PIPELINE_RESULT_IS_INPUT, "a pipeline whose result is one of its inputs")                           \
  X(E1004, PIPELINE_UNUSED_INPUT, "an input of a pipeline that none of its kernels reads")                       \
  X(E1005, PIPELINE_RESULT_TWICE, "a pipeline whose result pairs one kernel result with itself")               \
  X(E1101, REWRITE_UNKNOWN_RULE, "dpia rewrite --apply names no rule of the table")                             \
  X(E1102, REWRITE_BAD_PATH, "dpia rewrite --apply names no position of the kernel's body")                     \
  X(E1103, REWRITE_BAD_PARAM, "a rule's parameter missing, unknown or outside its values")                      \
  X(E1104, REWRITE_NOT_APPLICABLE, "a rule whose left side or side condition does not hold at the position")    \
  X(E1105, REWRITE_RESULT_REJECTED, "a rewritten program that does not check (the rule is refused)")           \
  X(E1106, EXPLORE_NOTHING_FOUND, "dpia explore found no strategy that checks, runs and matches the reference within its budget") \
  X(E1107, EXPLORE_BAD_REQUEST, "dpia explore without a size for each nat parameter of the kernel, or with one it does not have") \
  X(E1108, TUNE_NOTHING_FOUND, "dpia tune found no point of the tune parameters that runs and matches the reference within its budget") \
  X(E1109, EXPLORE_EVALUATOR_FAILED, "the evaluator that runs dpia explore's candidates elsewhere failed, which stops the search")  \
  X(E1110, TUNE_ENTRY_PASSED_OVER, "a note: a tuning cache entry whose values break a precondition at the sizes of the run is not used")
/* clang-format on */

typedef enum DiagCode {
#define DIAG_CODE_ENUM(code, name, summary) ERR_##name,
  DIAG_CODES(DIAG_CODE_ENUM)
#undef DIAG_CODE_ENUM
      NDIAG_CODES
} DiagCode;

/* "E0301" for ERR_TYPE_MISMATCH, and its one-line summary */
const char *diag_code_name(DiagCode code);
const char *diag_code_summary(DiagCode code);

#endif
