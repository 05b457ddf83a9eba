#!/usr/bin/env python3
"""nvcc_cache.py: nvcc for dpia's CUDA verification (DPIA_NVCC), its
results kept in a cache (tests/cuda/run_cuda.py, under
DPIA_TEST_NVCC_CACHE=DIR: tools/test.sh).

dpia verifies each CUDA kernel it generates with
`nvcc -ptx ... -o /dev/null DIR/kernel.cu` (verify/target_cuda.c): nothing
is kept but nvcc's exit status and what it says, and both depend only on
nvcc, its arguments and the text compiled.  tools/test.sh runs the suite
twice, normally and under the sanitizers, and dpia's output is the same
text in both (translation is deterministic), so the sanitized stage's
run_cuda.py would compile every kernel a second time; with this wrapper it
goes through the same steps of dpia (translation, the target-neutral
checks, writing the file, starting the compiler, reading its log) and the
compile itself is replayed from the normal stage's result.  A text not
seen before is compiled by nvcc, as without the cache.

The key: the real nvcc (its path, size and modification time), the
arguments (the source's path replaced by a mark), nvcc's own environment
variables (NVCC_PREPEND_FLAGS, NVCC_APPEND_FLAGS) and the source's bytes.
The output is kept with the source's path replaced by the mark, so that a
diagnostic replayed names this run's file.  Any other nvcc command (-c,
linking: run_cuda.py's headers and launcher) runs the real nvcc.  An entry
is written to a temporary file and renamed into place, so tests running at
the same time may share DIR.

Environment: DPIA_TEST_NVCC_REAL, the real nvcc; DPIA_TEST_NVCC_CACHE, DIR."""
import hashlib, json, os, subprocess, sys, tempfile

MARK = '@DPIA_SOURCE@'


def main(argv):
    real, cache = os.environ['DPIA_TEST_NVCC_REAL'], os.environ.get('DPIA_TEST_NVCC_CACHE')
    sources = [a for a in argv if a.endswith('.cu')]
    out = argv[argv.index('-o') + 1] if '-o' in argv[:-1] else None
    if not cache or '-ptx' not in argv or out != '/dev/null' or len(sources) != 1:
        os.execv(real, [real] + argv)
    src = sources[0]
    st = os.stat(real)
    key = hashlib.sha256()
    key.update(json.dumps([os.path.realpath(real), st.st_size, st.st_mtime_ns,
                           [MARK if a == src else a for a in argv],
                           [os.environ.get(v) for v in ('NVCC_PREPEND_FLAGS', 'NVCC_APPEND_FLAGS')]]).encode())
    with open(src, 'rb') as f:
        key.update(f.read())
    entry = os.path.join(cache, key.hexdigest() + '.json')
    try:
        with open(entry) as f:
            kept = json.load(f)
    except (OSError, ValueError):
        p = subprocess.run([real] + argv, capture_output=True, text=True)
        kept = {'status': p.returncode, 'stdout': p.stdout.replace(src, MARK), 'stderr': p.stderr.replace(src, MARK)}
        if p.returncode >= 0:  # a compile killed by a signal is not kept
            os.makedirs(cache, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=cache, suffix='.tmp')
            with os.fdopen(fd, 'w') as f:
                json.dump(kept, f)
            os.replace(tmp, entry)
    sys.stdout.write(kept['stdout'].replace(MARK, src))
    sys.stderr.write(kept['stderr'].replace(MARK, src))
    return kept['status'] if kept['status'] >= 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
