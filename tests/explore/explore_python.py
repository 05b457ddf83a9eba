#!/usr/bin/env python3
"""explore_python.py: dpia.explore (python/dpia/exploration.py,
docs/explore.md) against `dpia explore`, here and on a Ray cluster.

Usage: explore_python.py DPIA LIBDPIA ROOT BUILD

- the same search from Python as from the command line: for the same
  seed, dpia.explore (libdpia timing the candidates) and dpia.explore
  with evaluate=run_here (libdpia handing each batch to Python through
  DpiaExplore.evaluate) give the CLI's space, draw, and each candidate's
  derivation, status and reason; the best of each agrees with the
  reference interpreter;
- tries= ends the search at a count of strategies, as --tries does;
- an evaluator that raises stops the search and its exception comes out
  of dpia.explore; one that answers too few requests is a ValueError;
- without Ray (its import made to fail), address= is a
  MissingPackageError naming the package ray;
- on a Ray cluster of loopback addresses (a head started here on
  127.0.0.1 with two CPUs, the driver and the workers loopback too),
  dpia.explore(address=...) gives the CLI's candidates and statuses
  again, evaluated by two worker processes (two actors, two pids, neither
  this one), its best checked; the cluster is stopped at the end.

Ray is taken from this Python, else from BUILD/ray-venv (tools/setup.sh
installs it there, pinned: the extra "ray" of python/pyproject.toml, which
is dpia.exploration.RAY_REQUIREMENT, as the test checks).  Without it
the test is skipped (77), except under CI=true, where it fails."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

failures = []
SAMPLE = ('scal.dpia', 'scalHL', {'N': 128})  # 60 strategies: searched whole, 3 to 12 s
REPEAT = 2
SEED = 3


def expect(cond, what):
    if not cond:
        failures.append(what)
    return cond


def has_ray(python):
    # found, not imported (an import of ray takes seconds)
    find = 'import importlib.util, sys; sys.exit(importlib.util.find_spec("ray") is None)'
    return subprocess.run([python, '-c', find], capture_output=True).returncode == 0


def python_with_ray(build):
    """this Python if it has ray, else the venv's; None when neither"""
    if has_ray(sys.executable):
        return sys.executable
    venv = os.path.join(build, 'ray-venv', 'bin', 'python')
    return venv if os.path.exists(venv) and has_ray(venv) else None


def key(report):
    """what the seed decides: the space, the draw, each candidate's
    derivation, status and reason (the times and the best vary)"""
    return (report['space'], report['search'], report['sample'],
            sorted((c['id'], c['strategy'], c['derivation'], c['status'], c['reason'])
                   for c in report['candidates']))


def same_search(what, cli, report):
    if not expect(report is not None, f'{what}: no report'):
        return
    a, b = key(cli), key(report)
    expect(a[:3] == b[:3], f'{what}: space/search/sample {b[:3]} != the CLI\'s {a[:3]}')
    if a[3] != b[3]:
        diff = [(p, q) for p, q in zip(a[3], b[3]) if p != q][:5]
        failures.append(f'{what}: candidates differ from the CLI\'s ({len(a[3])} and {len(b[3])}): {diff}')
    expect(report['tried'] == report['space'], f'{what}: tried {report["tried"]} of {report["space"]}')
    best = report['best']
    expect(best and best['check'] == 'ok' and best['status'] == 'timed', f'{what}: best {best}')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def local(dpia, root, src):
    """the CLI, then Python with libdpia timing and with Python's evaluator"""
    path = os.path.join(root, 'samples', 'explore', SAMPLE[0])
    sizes = ','.join(f'{k}={v}' for k, v in SAMPLE[2].items())
    p = subprocess.run([os.environ['DPIA_EXE'], 'explore', path, '-k', SAMPLE[1], '--size', sizes, '--seed',
                        str(SEED), '--budget', '120', '--repeat', str(REPEAT), '--json'], capture_output=True, text=True, timeout=240)
    if not expect(p.returncode == 0, f'dpia explore: exit {p.returncode}\n{p.stderr[-2000:]}'):
        return None
    cli = json.loads(p.stdout)
    x = dpia.explore(src, SAMPLE[1], SAMPLE[2], budget=120, seed=SEED, repeat=REPEAT)
    expect(x.ok and x.best_program and '-- derivation: ' + x.best['derivation'] in x.best_program,
           f'dpia.explore: {x}, {x.diagnostics}')
    expect(x.workers == {}, f'dpia.explore timed by libdpia: workers {x.workers}')
    same_search('dpia.explore', cli, x.report)
    chk = dpia.check(x.best_program)
    expect(chk.ok, f'dpia.explore: the best does not check: {chk.diagnostics}')
    # tries= is --tries: the search ends at 5 strategies tried, well before its budget
    t = dpia.explore(src, SAMPLE[1], SAMPLE[2], budget=120, seed=SEED, repeat=REPEAT, tries=5)
    expect(t.ok and t.report['tried'] == 5 and t.report['space'] > 5,
           f'dpia.explore(tries=5): tried {t.report and t.report["tried"]}, {t.diagnostics}')
    try:
        dpia.explore(src, SAMPLE[1], SAMPLE[2], tries=0)
        expect(False, 'dpia.explore(tries=0) was accepted')
    except ValueError:
        pass

    asked = []

    def here(requests):
        asked.append(requests)
        return dpia.exploration.run_here(requests, SAMPLE[2], seed=SEED)
    y = dpia.explore(src, SAMPLE[1], SAMPLE[2], budget=120, seed=SEED, repeat=REPEAT, evaluate=here)
    expect(y.ok, f'dpia.explore(evaluate=run_here): {y}, {y.diagnostics}')
    same_search('dpia.explore(evaluate=run_here)', cli, y.report)
    timed = [q for batch in asked for q in batch if not q['check']]
    checked = [q for batch in asked for q in batch if q['check']]
    expect(len(asked) > 1 and all(len(b) <= 4 for b in asked), f'evaluate: batches {[len(b) for b in asked]}')
    # the search's timing requests, then the re-timing's (docs/explore.md
    # "The re-timing": its candidates in rounds, a batch a round, with
    # from REPEAT to 10 times REPEAT launches)
    r = y.report['retiming']
    again = len(timed) - r['candidates'] * r['rounds']
    expect(again == sum(c['status'] in ('timed', 'precondition', 'failed') for c in y.report['candidates']),
           f'evaluate: {len(timed)} timing requests, retiming {r}')
    retimed = {c['id'] for c in y.report['candidates'] if c['retimed_ms'] is not None}
    expect(r['candidates'] >= 2 and retimed and {q['id'] for q in timed[again:]} == retimed and
           all(REPEAT <= q['repeat'] <= 10 * REPEAT for q in timed[again:]),
           f'evaluate: the re-timing requests {[(q["id"], q["repeat"]) for q in timed[again:]]}')
    timed = timed[:again]
    expect(checked and checked[-1]['id'] == y.best['id'] and checked[0]['repeat'] == 1,
           f'evaluate: the check requests {[(q["id"], q["repeat"]) for q in checked]}, best {y.best["id"]}')
    expect(all(q['repeat'] == REPEAT for q in timed), f'evaluate: a timing request without repeat {REPEAT}')
    return cli


def evaluator_errors(dpia, src):
    class Broken(Exception):
        pass

    def broken(requests):
        raise Broken('the cluster went away')
    try:
        dpia.explore(src, SAMPLE[1], SAMPLE[2], budget=30, seed=SEED, evaluate=broken)
        failures.append('an evaluator that raises: no exception')
    except Broken:
        pass
    try:
        dpia.explore(src, SAMPLE[1], SAMPLE[2], budget=30, seed=SEED, evaluate=lambda requests: requests[:1])
        failures.append('an evaluator that answers one of several: no exception')
    except ValueError as e:
        expect('answered 1 of' in str(e), f'too few answers: {e}')
    # Ray missing: its import fails
    saved = sys.modules.get('ray')
    sys.modules['ray'] = None
    try:
        dpia.explore(src, SAMPLE[1], SAMPLE[2], address='127.0.0.1:1')
        failures.append('address= without ray: no exception')
    except dpia.MissingPackageError as e:
        expect(e.package == 'ray' and "'ray'" in str(e) and 'pip install' in str(e) and isinstance(e, ImportError),
               f'address= without ray: {e!r}')
    finally:
        if saved is None:
            del sys.modules['ray']
        else:
            sys.modules['ray'] = saved


def on_ray(dpia, root, src, cli):
    """a head on 127.0.0.1 with two CPUs (ray start --block, ended by its
    pid), dpia.explore(address=...) on it"""
    import ray
    temp = tempfile.mkdtemp(prefix='dpia-ray-', dir='/tmp')
    port = free_port()
    # every port of the cluster chosen here, so that another cluster on this
    # machine is not in the way; the node's address the loopback one (Ray
    # takes the machine's routable address for 127.0.0.1 unless it is told
    # it is a one-machine cluster)
    ports = ['--port', str(port), '--node-manager-port', str(free_port()), '--object-manager-port',
             str(free_port()), '--dashboard-agent-listen-port',
             str(free_port()), '--dashboard-agent-grpc-port', str(free_port()), '--metrics-export-port',
             str(free_port()), '--runtime-env-agent-port', str(free_port())]
    head = subprocess.Popen([sys.executable, '-m', 'ray.scripts.scripts', 'start', '--head', '--block',
                             '--node-ip-address', '127.0.0.1', '--num-cpus', '2', '--include-dashboard', 'false',
                             '--disable-usage-stats', '--temp-dir', temp] + ports,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        address = f'127.0.0.1:{port}'
        t = time.time()
        log = []
        for line in head.stdout:  # until it says it is up (or exits)
            log.append(line)
            if 'Ray runtime started' in line:
                break
        if not expect(head.poll() is None and log and 'Ray runtime started' in log[-1],
                      f'the Ray head did not start: {head.poll()}\n' + ''.join(log)[-3000:]):
            return
        print(f'Ray head on {address}: {time.time() - t:.1f} s')
        t = time.time()
        x = dpia.explore(src, SAMPLE[1], SAMPLE[2], budget=120, seed=SEED, repeat=REPEAT, address=address)
        print(f'on Ray: {x} in {time.time() - t:.1f} s')
        expect(not ray.is_initialized(), 'dpia.explore left its Ray connection open')
        if not expect(x.ok, f'dpia.explore(address=...): {x}, {x.diagnostics}'):
            return
        same_search('dpia.explore(address=...)', cli, x.report)
        pids = {w['pid'] for w in x.workers.values()}
        ran = [c for c in x.report['candidates'] if c['status'] in ('timed', 'precondition', 'failed')]
        expect(len(pids) == 2 and os.getpid() not in pids, f'Ray workers: pids {pids} (this one {os.getpid()})')
        expect({c['id'] for c in ran} <= set(x.workers), 'a candidate run with no worker recorded')
        ips = {w.get('ip') for w in x.workers.values()}
        expect(ips == {'127.0.0.1'}, f'Ray workers on {ips}, not the loopback address alone')
        expect(all(w.get('node') and w.get('device') is not None or c['status'] != 'timed'
                   for c in ran for w in [x.workers[c['id']]]), f'workers: {list(x.workers.values())[:2]}')
        expect(x.best_program and dpia.check(x.best_program).ok, 'dpia.explore(address=...): the best does not check')
    finally:
        if head.poll() is None:
            # ray start --block drains the node on SIGTERM, then stops the
            # processes it started; whatever of its process group is left
            # after that is killed
            head.send_signal(signal.SIGTERM)
            try:
                head.wait(timeout=45)
            except subprocess.TimeoutExpired:
                failures.append('the Ray head did not stop within 45 s of SIGTERM')
        try:
            os.killpg(head.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        head.wait()
        print(f'Ray head stopped: {head.returncode}')
        subprocess.run(['rm', '-rf', temp])


def main():
    dpia_exe, libdpia, root, build = sys.argv[1:5]
    py = python_with_ray(build)
    if py is None:
        if os.environ.get('CI') == 'true':
            print('FAIL: the Python package ray is not installed (here or in %s/ray-venv; tools/setup.sh installs '
                  'it)' % build)
            return 1
        print('SKIP: the Python package ray is not installed (tools/setup.sh installs it in build/ray-venv)')
        return 77
    if os.path.realpath(py) != os.path.realpath(sys.executable):
        os.execv(py, [py] + sys.argv)
    # the package from the repository, for this process and Ray's workers;
    # every address of Ray the loopback one
    os.environ['PYTHONPATH'] = os.pathsep.join([os.path.join(root, 'python')] +
                                               [p for p in [os.environ.get('PYTHONPATH')] if p])
    os.environ['DPIA_LIBRARY'] = os.path.abspath(libdpia)
    os.environ['DPIA_EXE'] = dpia_exe
    os.environ['RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER'] = '0'
    os.environ['RAY_USAGE_STATS_ENABLED'] = '0'
    sys.path.insert(0, os.path.join(root, 'python'))
    import dpia
    import dpia.exploration
    with open(os.path.join(root, 'samples', 'explore', SAMPLE[0])) as f:
        src = f.read()
    # the version tools/setup.sh installs (the extra of pyproject.toml) is the package's
    with open(os.path.join(root, 'python', 'pyproject.toml')) as f:
        extra = re.search(r'^ray = \["(.*)"\]$', f.read(), re.M)
    expect(extra and extra.group(1) == dpia.exploration.RAY_REQUIREMENT,
           f'pyproject.toml\'s extra ray {extra and extra.group(1)} != {dpia.exploration.RAY_REQUIREMENT}')
    t = time.time()
    cli = local(dpia, root, src)
    evaluator_errors(dpia, src)
    print(f'here: {time.time() - t:.1f} s')
    if cli:
        on_ray(dpia, root, src, cli)
    for f in failures:
        print('FAIL', f)
    print(f'explore-python: {len(failures)} failures, {time.time() - t:.1f} s')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
