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

if [ -d build ]; then
  meson setup --reconfigure build >/dev/null # finds CLBlast / OpenBLAS installed since
else
  meson setup build >/dev/null
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
# OpenBLAS 0.3.21 does not know this processor and falls back to its
# Prescott (SSE3) kernels; on a CPU with AVX-512 ask for the SkylakeX ones
# (every result is checked against the reference before it is timed).  A
# value already set on the machine is kept.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx512f /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=SkylakeX
fi
envs="OMP_WAIT_POLICY=$OMP_WAIT_POLICY${OPENBLAS_CORETYPE:+ OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE}"
cmd="build/bench/blas_bench --reps $reps ${quick[*]}"
$cmd --md $out/results.md --dat $out/results.dat | tee $out/results.txt

gnuplot <<GP
set terminal pngcairo size 1400,760 font "DejaVu Sans,11"
set output "$png"
set title "GB/s per operation and implementation (higher is better; best strategy of each family)"
set ylabel "GB/s (bytes the operation must move / median time)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics
set yrange [0:*]
set xtics rotate by -25 nomirror
plot for [i=2:6] "$out/results.dat" using i:xtic(1) title columnheader(i)
GP

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
mem=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')
pocl=$(grep -m1 '^device:' $out/results.txt | sed 's/^device: //')
blas=$(grep -m1 '^OpenBLAS:' $out/results.txt || true)
{
  echo "# Benchmarks: dpia kernels against hand-written OpenCL, CLBlast, OpenBLAS and a bandwidth roof"
  echo
  echo "Made by \`bench/run.sh\` (which ran \`$envs $cmd\`) on $(date -u +%Y-%m-%d)."
  echo "One process, one run: every implementation is checked against a double-precision host"
  echo "reference first, then timed: median of $reps runs after 2 warm-up runs, wall clock around"
  echo "enqueue ... clFinish (reductions: plus reading back and adding the partial sums)."
  echo "GB/s counts the bytes each operation must move (scal 8N, asum 4N, dot 8N, gemv 4(MN+N+2M),"
  echo "stencils 8N); gemm is in GFLOP/s. \"best dpia ÷ this\" is this implementation's time over"
  echo "the best dpia strategy's: above 1.00x the dpia kernel is faster. The machine is shared"
  echo "with other work, so figures move by some percent from run to run."
  echo
  echo "## Machine"
  echo
  echo "- $(nproc) cores: $cpu; $mem memory"
  echo "- OpenCL: $pocl"
  [ -n "$blas" ] && echo "- $blas"
  echo "- CLBlast $(dpkg-query -W -f='${Version}' libclblast1 2>/dev/null || echo 'not installed'), on the same PoCL device"
  echo "- roof: a plain C loop doing the same reads and writes, OpenMP over all cores (gcc $(gcc -dumpfullversion), -O3 -march=native)"
  echo
  echo "![GB/s per operation and implementation]($png)"
  echo
  echo "## Results"
  cat $out/results.md
  echo
  echo "## Full output"
  echo
  echo '```'
  cat $out/results.txt
  echo '```'
} > $md
echo "wrote $md and $png"
