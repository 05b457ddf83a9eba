#!/usr/bin/env bash
# bench/run.sh: install what the BLAS benchmark needs (Debian packages),
# build it, run it once, and write BENCHMARKS.md (machine, command, tables)
# and bench/results.png (GB/s per operation and implementation).
#   bench/run.sh            # REPS=15 by default; REPS=10 bench/run.sh
#   bench/run.sh --quick    # small sizes, for trying the script (not for BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for p in meson ninja-build gcc pkg-config ocl-icd-opencl-dev pocl-opencl-icd clinfo \
         libclblast-dev libopenblas-dev gnuplot-nox; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi

# -Dbench=true: a default build leaves the benchmarks out
if [ -d build ]; then
  meson setup --reconfigure build -Dbench=true >/dev/null # finds CLBlast / OpenBLAS installed since
else
  meson setup build -Dbench=true >/dev/null
fi
ninja -C build dpia bench/blas_bench >/dev/null

out=build/bench
quick=()
md=BENCHMARKS.md
png=bench/results.png
if [ "${1:-}" = --quick ]; then
  quick=(--quick)
  md=$out/BENCHMARKS.quick.md
  png=$out/results.quick.png
fi
reps=${REPS:-15}
# The roof's OpenMP threads sleep between loops: spinning (the default),
# they were now and then 10x slower next to PoCL's and OpenBLAS's worker
# threads.  (Binding them with OMP_PROC_BIND pins the main thread, and with
# it PoCL's and OpenBLAS's threads, to one core.)
export OMP_WAIT_POLICY=passive
# Likewise OpenBLAS's threads spin for about 0.1 s after a call unless told
# to sleep at once (2^4 cycles)
export OPENBLAS_THREAD_TIMEOUT=4
# OpenBLAS 0.3.21 does not know this processor and falls back to its
# Prescott (SSE3) kernels; on a CPU with AVX-512 ask for the SkylakeX ones
# (every result is checked against the reference before it is timed).  A
# value already set on the machine is kept.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx512f /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=SkylakeX
fi
envs="OMP_WAIT_POLICY=$OMP_WAIT_POLICY OPENBLAS_THREAD_TIMEOUT=4${OPENBLAS_CORETYPE:+ OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE}"
# gemm's tune parameters are tuned on this machine first (docs/tune.md):
# the cache is the benchmark's own, so a run never depends on what was
# tuned before it; blas_bench translates gemm through libdpia, which takes
# the tuned values from it (and prints them).  The vector width follows
# the instruction set (16 floats a register with AVX-512, 8 with AVX2);
# then the register tile's shape (RT rows by CP vectors, 6 points) is
# timed with the default blocks, and last the blocks and slice depth (64
# points, within the budget) with the tile found.  Each stage's entry
# replaces the one before (the same key and sizes): the last holds every
# value.
export DPIA_TUNE_CACHE=$out/tune.json
rm -f "$DPIA_TUNE_CACHE"
tune_size=1024
[ ${#quick[@]} -gt 0 ] && tune_size=256
isa=avx2 width=8
grep -qw avx512f /proc/cpuinfo && isa=avx512 width=16
tune_start=$(date +%s)
tune_base="build/dpia tune samples/gemm.dpia -k gemm --size M=$tune_size,N=$tune_size,K=$tune_size --seed 1"
tile_cmd="$tune_base --set V=$width --set KS=512 --set AP=16 --set BP=8 --budget ${TUNE_BUDGET:-300}"
echo "instruction set: $isa, vector width $width" | tee $out/tune.txt
echo "$ $tile_cmd" | tee -a $out/tune.txt
$tile_cmd --json > $out/tune_tile.json
tile=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["best"]; print(" ".join("--set %s=%d" % (k, b[k]) for k in ("RT", "CP")))' $out/tune_tile.json)
echo "register tile: $tile" | tee -a $out/tune.txt
tune_cmd="$tune_base --set V=$width $tile --budget ${TUNE_BUDGET:-300}"
echo "$ $tune_cmd" | tee -a $out/tune.txt
$tune_cmd | tee -a $out/tune.txt
tune_s=$(($(date +%s) - tune_start))
echo "tuning gemm took $tune_s s"
cmd="build/bench/blas_bench --reps $reps --cold${quick:+ ${quick[*]}}"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
$cmd --md $out/results.md --dat $out/results.dat | tee $out/results.txt
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

gnuplot <<GP
set terminal pngcairo size 1600,1200 font "DejaVu Sans,11"
set output "$png"
set multiplot
set size 1,0.62
set origin 0,0.38
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:*]
set xtics rotate by -25 nomirror
set lmargin at screen 0.05
set rmargin at screen 0.78
set title "GB/s per operation and implementation (higher is better; best strategy of each family)"
set ylabel "GB/s (bytes the operation must move / median time)"
set key top right
plot for [i=2:6] "$out/results.dat" using i:xtic(1) title columnheader(i)
set lmargin at screen 0.83
set rmargin at screen 0.98
set title "gemm, GFLOP/s"
set ylabel "GFLOP/s"
set xtics norotate
unset key
plot for [i=2:6] "$out/results.dat.gemm" using i:xtic(1) title columnheader(i)
# the peers' benchmark set: speed of dpia over the hand-written kernel,
# median of the rounds' ratios with its 95% interval
set size 1,0.38
set origin 0,0
set lmargin at screen 0.05
set rmargin at screen 0.78
set title "Peers' benchmark set: best dpia strategy ÷ best hand-written kernel (speed; above 1 dpia is faster), 95% interval"
set ylabel "hand ms / dpia ms"
set style histogram errorbars gap 2 lw 1.5
set yrange [0:*]
set xtics norotate
unset key
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5
plot "$out/results.dat.peer" using 2:3:4:xtic(1) title columnheader(2) lc rgb "#4477aa"
unset arrow 1
unset multiplot
GP

# The section bench/variants.py's figures go in (translation throughput)
# is not made here: it is kept as it is.
kept=$(awk '/^## Translation throughput/ {keep = 1} /^## / && !/^## Translation throughput/ {keep = 0} keep' \
  BENCHMARKS.md 2>/dev/null || true)

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
mem=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')
pocl=$(grep -m1 '^device:' $out/results.txt | sed 's/^device: //')
blas=$(grep -m1 '^OpenBLAS:' $out/results.txt || true)
{
  echo "# Benchmarks: dpia kernels against hand-written OpenCL, CLBlast, OpenBLAS and a bandwidth roof"
  echo
  echo "Made by \`bench/run.sh\` (which ran \`$envs $cmd\`) on $(date -u +%Y-%m-%d)."
  echo "One process, one run: every implementation is checked against a double-precision host"
  echo "reference first, then timed: median of $reps rounds after 2 warm-up rounds (each round runs every"
  echo "implementation of the operation once, in turn; the caches flushed before each run, so that"
  echo "every implementation reads its operands from memory, whatever ran before it), wall clock around"
  echo "enqueue ... clFinish (reductions: plus reading back and adding the partial sums)."
  echo "GB/s counts the bytes each operation must move (scal 8N, asum 4N, dot 8N, gemv 4(MN+N+2M),"
  echo "stencils 8N, the peer set as its tables say); gemm, nbody and mriq are in GFLOP/s. \"best dpia ÷ this\" is this implementation's time over"
  echo "the best dpia strategy's: above 1.00x the dpia kernel is faster. The machine is shared"
  echo "with other work (load average $load_before before the run, $load_after after it, on"
  echo "$(nproc) cores), so figures move from run to run; compare figures of one run."
  echo
  echo "## Machine"
  echo
  echo "- $(nproc) cores: $cpu; $mem memory"
  echo "- OpenCL: $pocl"
  [ -n "$blas" ] && echo "- $blas"
  echo "- CLBlast $(dpkg-query -W -f='${Version}' libclblast1 2>/dev/null || echo 'not installed'), on the same PoCL device"
  echo "- roof: a plain C loop doing the same reads and writes, OpenMP over all cores (gcc $(gcc -dumpfullversion), -O3 -march=native)"
  echo
  echo "![GB/s per operation and implementation, and gemm in GFLOP/s]($png)"
  echo
  echo "## Results"
  cat $out/results.md
  echo
  echo "### gemm tuned on this machine"
  echo
  echo "Tuning took $tune_s s in two stages, the register tile's shape at the vector width of the"
  echo "instruction set and then the blocks (\`$tune_cmd\`), each choosing the fastest point checked"
  echo "against the reference; the gemm rows above are translated with the result, docs/tune.md:"
  echo
  echo '```'
  cat $out/tune.txt
  echo '```'
  echo
  cat <<'TEXT'

## Reading the figures

- PoCL runs the work-items of a work-group as a loop around the kernel
  body and vectorises that loop (across work-items) when the body is
  straight-line code; a loop inside the body runs as scalar code per
  work-item. So on this device the vector width has to be in the program:
  the strategies that reach memory speed are the vectorised ones (scalVec16,
  asumVec16, dotVec16, gemvVec, mmBlock: the paper's section 6.3
  vectorisation with 16 lanes, one AVX-512 register).
- The reductions of the paper's GPU strategies (asumPartial, dotPartial:
  one sequential sum per work-item) add one float at a time on a chain of
  dependent additions, a few GB/s; a float16 accumulator is 16 independent
  chains. The careful hand-written kernels do the same (with two float16
  accumulators), and the best dpia strategy and the careful kernel run
  within a few per cent of each other: they compile to the same inner loop.
- The targets table compares, round by round, the best dpia strategy with
  the careful hand-written kernel timed in the same round (each round
  starts with another implementation), and gives the median of these
  ratios with a distribution-free 95% interval (order statistics 4 and 12
  of 15).  Where the dpia kernel and the hand-written one are the same
  code (scal: one multiply per element; jacobi2dTiled and the hand kernel
  launched with the same work-groups: the same five clamped loads), their
  ratio is 1.00x give or take the noise of the machine, and the interval
  shows whether a difference in one run is one at all: an interval that
  holds 1.00x is marked "within noise".
- The vectorised reductions and gemv are not the same code: the careful
  hand-written kernels keep two float16 accumulators and add their lanes
  in the kernel, the dpia strategies one (asumVec16 and dotVec16 leave
  its 16 lanes for the host to add, gemvVec adds them in the kernel
  through a private array).  They run at the speed of the hand-written
  kernels within the noise (the targets table), and which of asumVec16
  and asumVec16x2 (the same chunks with two accumulators, as in the
  hand-written kernel) is the faster changes from run to run.  (In earlier runs, on a loaded machine, the
  hand-written asum was up to 10% faster: compare intervals, not single
  runs.)
- asumReorder is the strategy Lift used for GPUs (reorderStride for
  coalesced reads): on a CPU, where one work-item's loop runs on its own,
  it reads with a stride of 512 bytes and is slower than asumPartial.
- CLBlast's kernels (grid-stride loops and reductions in local memory,
  default parameters for a device it has no tuning for) are, like the
  straightforward hand-written kernels, far below the bandwidth on PoCL
  for asum, dot and gemv; its scal and SGEMM are reasonable.
- scal: BLAS's scal updates x in place (CLBlast, OpenBLAS); a dpia kernel
  writes a separate output, as the roof loop does, so it also reads the
  output's cache lines before writing them (write-allocate): the same
  bytes by the count above, more traffic in fact.
- gemm: `gemm` (samples/gemm.dpia) is the GotoBLAS/BLIS structure as
  a strategy, a pipeline of two kernels timed as one implementation:
  gemmPackB copies b into panels of 32 columns stored row by row, and
  gemmBlocks gives each work-group a 128 x 256 block of c, accumulated in
  local memory over 512-deep slices of K: for each slice, each 8 x 32 tile
  of the block is loaded into 16 float16 registers, updated with the 512
  steps and stored back, the 16 tiles of one column of the block after
  one another so that its slice of b stays in the caches, and the block's
  slices of a and b (256 + 512 KiB) and its accumulator (128 KiB) in the
  core's L2 (2 MiB a core on the Intel Xeon of earlier runs, 1 MiB on an
  AMD EPYC).  The accumulator is updated in place: each tile is loaded
  from local memory into its registers and stored back where it was
  (docs/language.md 2.1, the pointwise read; before it, the block went
  through a second 128 KiB buffer, `next`, copied back every slice).
  a is read in place: a tile's 8 rows, as a transposed
  view, are 8 sequential streams, read through one pointer
  (`a_i_4[K*3]`), as fast as a copy of a packed into panels (which cost
  a third kernel, 7% of the time at 1024^3).  The inner loop PoCL
  compiles is the micro-kernel an assembly SGEMM has: 16 vfmadd231ps on
  zmm registers, 8 vbroadcastss from a's rows (each from its own base
  register, at a constant displacement), 2 aligned loads from the B
  panel, unrolled 4 steps at a time (`#pragma unroll 4`, which code
  generation gives the inner loop of a register tile): 64 FMAs, 32
  broadcasts, 8 loads and 4 instructions of loop control (two pointers
  step, one compare and branch), 2048 flops in 32 cycles at two FMAs a
  cycle on the Intel Xeon of earlier runs, in 64 on an AMD EPYC of the
  Zen 4 family, which executes a 16-lane FMA as two 8-lane halves.  There
  dpia and OpenBLAS run at the same rate; OpenBLAS's kernels for
  SkylakeX (the one timed), Zen and Haswell ran within 3% of each other
  on it (205 to 212 GFLOP/s at 2048^3, best of 7 calls, measured by
  hand).  (The B panel's pointer is written as its part the loop does
  not change plus 2*l; factored, ((...)*K + l)*2, it had cost 4
  instructions of index arithmetic a step.)  Code generation
  made it so: the tile is updated in place in registers, its zeros need
  no constant array (nor, padded to the block's, a test), and the loop
  reads each row through a row pointer, without which LLVM computed and
  sign-extended every address (52 instructions for 16 FMAs; a read of a
  as `a[(wg_2*128 + i_3*8 + 3)*K + ...]` was 20% slower than through the
  pointer).  One work-item per work-group runs the block's loops in the
  written order: with several, PoCL 3.1 keeps every private value of the
  slice loop (which has barriers) in per-work-item context memory, and
  the 16 accumulators were stored after each FMA, 5x slower (measured).
  Without the slices (the earlier gemmTiles: each tile over all of K) the
  A panels stream from L3 once per column panel at 4096^3, 8 GB in all,
  and it ran at 0.70x to 0.76x OpenBLAS there.  What remained against
  OpenBLAS, measured in paired rounds on the Intel Xeon: gemmBlocks alone,
  caches warm, ran at 0.95x to 1.0x OpenBLAS at 1024^3 and 0.93x at
  2048^3; the packing kernel and its launch cost 5% (warm) to 10% (caches
  flushed, as here: b is read from memory and its packed copy written)
  at 1024^3, less at larger sizes; the copy through `next` 2 to 3% at
  1024^3 (now gone); OpenBLAS prefetches the next panels in software,
  which OpenCL C on PoCL cannot (`prefetch` compiles to nothing).
  mmTiled (16 x 16
  blocks with both strips in local memory) does one scalar multiply-add
  at a time per work-item; mmBlock (4 rows x 16 columns in float16, no
  packing) runs the same machine code as the careful hand-written
  mm_block: 4 accumulators are too few to hide the FMA latency, and a
  work-item walks a column block of b down its rows, 4 KiB apart at N =
  1024, in a few cache sets.  packB + mmBlockPacked (and its pipeline
  mm) packs b but keeps the 4 x 16 tile.  mmTiled, mmVec, mmBlock and the
  hand-written mm_simple and mm_tiled run at 1024^3 only (seconds a call
  beyond); beyond 1024^3 an implementation whose checked call took more
  than a second (CLBlast takes 10 to 25 s a call at 4096^3) runs 3
  rounds after 1 warm-up round, the others (dpia gemm, OpenBLAS) every
  round, so that "gemm against OpenBLAS" is a median of as many paired
  rounds at every size.
- jacobi2d: PoCL picks whole rows as work-groups for jacobi2d (local size
  not fixed by the strategy), so each input row is read in three
  work-groups, run at different times.  jacobi2dTiled fixes work-groups of
  64 columns x 4 rows (mapWorkgroup/mapLocal in both dimensions), whose
  rows share the rows above and below them in the cache: about 1.2x
  faster.  The hand-written kernel launched with the same work-groups is
  as fast: it is the same code.
- The peers' benchmark set (bench/peer_bench.c, hand-written kernels in
  bench/kernels/peer.cl): nbody is AMD APP SDK's nbody_sim, in its
  local-memory tiles (SDK 2.x) and its unrolled global-memory loop (SDK
  3.0) forms, and nbody_vec, written by hand as dpia's nbodyVec (eight
  bodies a work-item, their coordinates in three float8); md SHOC's compute_lj_force (neighbour list [M][N], atoms on
  a jittered lattice in random order, so that a neighbour's index is
  unrelated to the atom's, as with SHOC's random positions); gaussian3x3 a
  3 x 3 convolution with its mask constant; gesummv and atax
  PolyBench/GPU's kernels with their sums in registers, and each also
  written by hand with float8 sums (gesummv_vec, atax_kernel1_vec +
  atax_kernel2_vec: the second's work-item takes eight adjacent columns),
  against dpia's gesummvVec and ataxVec, the same strategies; nn Rodinia's
  NearestNeighbor; kmeans Rodinia's kmeans_kernel_c (the assignment step,
  its index checked as right when its centre is a nearest one), and
  kmeans_vec, written by hand as dpia's kmeansVec (eight points a
  work-item, the nearest centre chosen by a float8 comparison's mask); mriq
  Parboil's ComputeQ_GPU, all samples in one launch (mriq2: with Qr and
  Qi in two buffers, Parboil's interface, against dpia's mriqTwo); scan
  SHOC's bottom_scan; spmv SHOC's spmv_csr_scalar and spmv_csr_vector
  kernels; hotspot3d Rodinia's hotspotOpt1; covariance and correlation
  PolyBench/GPU's mean_kernel, (std_kernel,) reduce_kernel (in place, on
  the hand kernels' own copy of the data) and covar_kernel or corr_kernel,
  enqueued one after the other against dpia's pipelines (whose last two
  kernels compute the upper triangle, as PolyBench's, and mirror it); adi
  PolyBench/GPU's adi_kernel1 in double (samples/adi.dpia's type), writing
  the sweep's (X, B) pairs; sgemm SHOC's sgemmNN (column-major, 16 x 4
  work-items a 64 x 16 block, the 16 steps of a tile written out).  Each
  hand kernel names its suite, file and function in peer.cl.  Each hand kernel
  writes the layout of the dpia kernel's output (nbody: one buffer of
  (position, velocity) pairs) so that both are checked against one
  reference.  gaussian3x3Rows (three written-out rows of three) is
  straight-line code like the hand kernel, at about 0.85x of it: the
  hand kernel forms three row pointers and two clamped columns once, the
  dpia kernel a flat int index per tap (img[max(gid - 1, 0)*N + ...]);
  the hand kernel rewritten with dpia's indices ran at dpia's speed
  (0.97x and 1.03x in two runs).  gaussian3x3 (a loop of 3 around its
  rows) and gaussian3x3Prelude (a loop of 9) are written out by code
  generation too, a nest that small: as loops PoCL ran them as scalar code
  per pixel (0.23x to 0.27x and 0.07x to 0.08x of the hand kernel in
  three runs); written out they ran at 0.80x to 0.85x of it, and
  gaussian3x3Rows at 0.79x to 0.86x in the same runs.  Where the kernel
  loops over data (nbody, md, gesummv, atax, kmeans, mriq), dpia's and the
  hand kernels are alike scalar loops per work-item: PoCL vectorises the
  loop over a group's work-items only around straight-line code.  The
  PolyBench gesummv and atax kernels are then bound by the latency of one
  chain of FMAs per work-item (4 cycles an element); with eight chains in
  a float8 (the Vec strategies, and the hand kernels with float8 sums)
  gesummv reads at the memory's speed, 1.8x to 2.2x faster in two runs,
  and atax's second kernel reads whole cache lines, 5x to 5.7x.  nbody's
  loop is bound by its scalar square root and division (rsqrt); nbodyVec
  and nbody_vec do eight interactions an instruction, 4.4x to 5.8x faster;
  kmeansVec and kmeans_vec eight points' distances, 6.6x.  mriq's scalar
  sin and cos cost about 80 ns a pair; mriqVec and ComputeQ_vec take eight
  voxels a work-item and call them on float8, 6x to 8x faster.  nbody and
  mriq are in GFLOP/s (20 flops per interaction, 12 per voxel and sample).
- Stencils: the rows "generator before unrolling" are the kernels dpia
  generated before loops of at most 4 steps were written out (see
  bench/kernels/before.cl): PoCL did not vectorise around the loop of 3.
TEXT
  echo
  [ -n "$kept" ] && printf '%s\n\n' "$kept"
  echo "## Full output"
  echo
  echo '```'
  cat $out/results.txt
  echo '```'
} > $md
echo "wrote $md and $png"
