#!/usr/bin/env python3
"""Every figure README.md gives about dpia's own speed, measured here and
printed with the machine: a benchmark that prints figures, not a test.

  bench/readme_figures.py [--build build]    (configured with -Dbench=true)

It runs, from the repository's root:
  1. build/bench/throughput on every sample, the command-line calls
     verifying in the helper dpia-clang-check and then in process
     (DPIA_CLANG_HELPER=): the last lines give the median call of each;
  2. build/bench/stage_bench on every sample: the cost of the semantic
     check (its last line);
  3. `dpia verify FILE` against `dpia translate FILE` on every sample, the
     median of --repeat calls of each: what the race check of five more
     launches adds to verification;
  4. bench/translate_scaling.py: a chain of 5000 mapSeq stages and the
     other large programs;
  5. the `dpia run` of samples/dot_full.dpia that README.md shows (an
     OpenCL device: PoCL).
The machine is named first (lscpu's model name, cores) with its load
average, which is printed again at the end: the figures are wall times, so
on a shared machine compare them with the load.
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time


def machine():
    fields = {}
    out = subprocess.run(['lscpu'], capture_output=True, text=True).stdout
    for line in out.splitlines():
        key, _, value = line.partition(':')
        fields[key.strip()] = value.strip()
    return '%s-core %s, %s' % (fields.get('CPU(s)', '?'), fields.get('Architecture', '?'),
                               fields.get('Model name', '?'))


def load():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def section(title, command, env=None):
    print('\n## %s\n$ %s' % (title, ' '.join(command)), flush=True)
    p = subprocess.run(command, env=env)
    if p.returncode != 0:
        print('(exit %d)' % p.returncode)


def median_ms(command, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append((time.perf_counter() - t0) * 1e3)
        if p.returncode != 0:
            sys.exit('%s failed:\n%s' % (' '.join(command), p.stderr.decode()))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    ap.add_argument('--repeat', type=int, default=3, help='calls of dpia verify and translate per sample')
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    dpia = os.path.join(a.build, 'dpia')
    bench = os.path.join(a.build, 'bench')
    if not os.path.exists(os.path.join(bench, 'throughput')):
        sys.exit('no %s/throughput: configure with -Dbench=true and build' % bench)
    samples = sorted(glob.glob('samples/*.dpia'))
    print('machine: %s; load average %s; %s' % (machine(), load(), time.strftime('%Y-%m-%d', time.gmtime())))

    env = dict(os.environ, DPIA=dpia)
    section('verified translation, helper dpia-clang-check (throughput)',
            [os.path.join(bench, 'throughput'), '--seconds', '0.1'] + samples, env)
    section('verified translation, libclang in process (DPIA_CLANG_HELPER= throughput)',
            [os.path.join(bench, 'throughput'), '--seconds', '0.1'] + samples, dict(env, DPIA_CLANG_HELPER=''))
    section('stages in process (stage_bench)', [os.path.join(bench, 'stage_bench')] + samples,
            {k: v for k, v in os.environ.items() if k != 'DPIA'})

    print('\n## dpia verify (the race check on six launches) against dpia translate (on the launch emitted),'
          ' median of %d calls, ms' % a.repeat)
    extra = []
    # -o a real file: the path of a normal call (throughput.c does the same)
    out = tempfile.NamedTemporaryFile(suffix='.cl', delete=False).name
    for s in samples:
        translate = median_ms([dpia, 'translate', s, '-o', out], a.repeat)
        verify = median_ms([dpia, 'verify', s], a.repeat)
        extra.append(verify - translate)
        print('%-24s translate %8.1f  verify %8.1f  more %8.1f' % (os.path.basename(s), translate, verify,
                                                                   verify - translate), flush=True)
    os.unlink(out)
    print('dpia verify takes %.2f to %.2f s more than dpia translate per sample file, %.2f s the median file' %
          (min(extra) / 1e3, max(extra) / 1e3, statistics.median(extra) / 1e3))

    section('program size (translate_scaling.py)', [sys.executable, 'bench/translate_scaling.py', '--dpia', dpia])
    section('the run README.md shows', [dpia, 'run', 'samples/dot_full.dpia', '-k', 'dot', '--size', 'N=1048576',
                                        '--check', '--repeat', '3', '--seed', '870167'])
    print('\nload average at the end: %s' % load())


if __name__ == '__main__':
    main()
