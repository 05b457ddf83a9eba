#!/bin/sh
# bench/gpu/run.sh [DPIA] : on a machine with an NVIDIA GPU, every sample
# through the OpenCL target and the CUDA target with --check (the result
# compared with the reference interpreter), timed, one line per kernel:
#   sample kernel opencl_ms cuda_ms
# Kernels and sizes: tests/samples/run_samples.py's RUNS (its larger
# sizes), the list the sample suite runs on PoCL.
# Fails at once, saying why, without an NVIDIA GPU (nvidia-smi lists
# none) or when a target cannot run there.  Note: `dpia run --target=cuda`
# needs dpia's CUDA runtime instance (verify/target_cuda.c), which today
# reports that there is no CUDA device (E0004): this script then stops at
# the first CUDA run with that message.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dpia=${1:-$root/build/dpia}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "bench/gpu/run.sh: no NVIDIA GPU here (nvidia-smi lists none)" >&2
  exit 1
fi
[ -x "$dpia" ] || { echo "bench/gpu/run.sh: no dpia at $dpia (build it first)" >&2; exit 1; }
# the median time of a run's JSON report
ms() { python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])'; }
printf '%-24s %-20s %10s %10s\n' sample kernel opencl_ms cuda_ms
# "file kernel N=1,M=2" per line, RUNS read as data (not imported: the
# module runs the suite)
runs=$(python3 - "$root/tests/samples/run_samples.py" <<'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
for node in tree.body:
    if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "RUNS":
        for f, k, sizes in ast.literal_eval(node.value):
            print(f, k, ",".join(f"{n}={v}" for n, v in sizes[-1].items()))
PY
)
echo "$runs" | while read -r f k sizes; do
  for target in opencl cuda; do
    if ! out=$("$dpia" run "$root/samples/$f" -k "$k" --size "$sizes" --check --repeat 10 --json --target=$target 2>&1); then
      echo "bench/gpu/run.sh: $f $k on $target failed:" >&2
      echo "$out" >&2
      exit 1
    fi
    eval "t_$target=\$(echo \"\$out\" | ms)"
  done
  printf '%-24s %-20s %10s %10s\n' "${f%.dpia}" "$k" "$t_opencl" "$t_cuda"
done
