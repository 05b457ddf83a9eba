#!/usr/bin/env python3
"""--target (codegen/backend.h: the target is chosen once, by name):
--target=opencl gives what no --target gives, byte for byte (translate,
every --emit kind that is text of the target, check -v, verify), in the
command, in batch requests ("target") and as batch's default; a name dpia
does not know is error E0810, exit 2, naming the targets, in every command;
--target given twice or without '=' is a usage error.  No device needed.

usage: target_cli.py DPIA SAMPLES_DIR"""
import json, os, subprocess, sys

dpia, samples = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
passed = failed = 0


def report(ok, what, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print(f'PASS {what}')
    else:
        failed += 1
        print(f'FAIL {what}\n  {detail}')


def run(args, stdin=None):
    return subprocess.run([dpia] + args, capture_output=True, text=True, timeout=300, input=stdin)


dot = os.path.join(samples, 'dot_partial.dpia')
two = os.path.join(samples, 'dot_global.dpia')

# the default target is opencl: the same bytes either way
for args in (['translate', '--no-verify', dot], ['translate', '--no-verify', '--emit=header', dot],
             ['translate', '--no-verify', '--emit=json', two], ['translate', dot], ['check', '-v', two],
             ['verify', '-v', dot]):
    plain, chosen = run(args), run(args + ['--target=opencl'])
    report(plain.returncode == 0 and chosen.returncode == 0 and plain.stdout == chosen.stdout and plain.stdout,
           f'dpia {" ".join(args[:-1])} --target=opencl: as without --target',
           f'exit {plain.returncode}/{chosen.returncode}\n{chosen.stderr[:400]}')

# an unknown target: E0810, exit 2, the known targets named, in every command
for command in (['check'], ['translate'], ['verify'], ['run', '-k', 'dotPartial', '--size', 'N=262144']):
    p = run(command + ['--target=fortran', '--diagnostics=json', dot])
    try:
        diags = json.loads(p.stdout)
    except ValueError:
        diags = []
    ok = (p.returncode == 2 and len(diags) == 1 and diags[0]['code'] == 'E0810'
          and "unknown target 'fortran'" in diags[0]['message'] and 'opencl' in diags[0]['message'])
    report(ok, f'dpia {command[0]} --target=fortran: E0810, exit 2', f'exit {p.returncode}\n{p.stdout}{p.stderr}')
p = run(['translate', '--target=fortran', dot])
report(p.returncode == 2 and "unknown target 'fortran'; dpia generates code for: opencl" in p.stderr,
       'the text diagnostic names the unknown target', p.stderr)

# usage errors of the option itself
p = run(['translate', '--target=opencl', '--target=opencl', dot])
report(p.returncode == 2 and '--target given twice' in p.stderr, '--target given twice', p.stderr)
p = run(['translate', '--target', 'opencl', dot])
report(p.returncode == 2 and '--target=' in p.stderr, "'--target opencl' hints at --target=opencl", p.stderr)

# batch: a request's "target", and --target as the default of every request
source = open(dot).read()
lines = '\n'.join(json.dumps(r) for r in (
    {'id': 1, 'name': 'dot.dpia', 'source': source, 'verify': False},
    {'id': 2, 'name': 'dot.dpia', 'source': source, 'verify': False, 'target': 'opencl'},
    {'id': 3, 'name': 'dot.dpia', 'source': source, 'verify': False, 'target': 'fortran'},
    {'id': 4, 'name': 'dot.dpia', 'source': source, 'verify': False, 'target': 7})) + '\n'
p = run(['batch'], stdin=lines)
answers = [json.loads(l) for l in p.stdout.splitlines()]
report(len(answers) == 4 and answers[0]['status'] == 'ok' and answers[0]['outputs'] == answers[1]['outputs'],
       'batch "target": "opencl" as without', p.stdout[:400])
report(len(answers) == 4 and answers[2]['exit_code'] == 2 and answers[2]['diagnostics'][0]['code'] == 'E0810',
       'batch "target": "fortran": E0810', p.stdout[:800])
report(len(answers) == 4 and answers[3]['status'] == 'bad_request' and 'target' in json.dumps(answers[3]),
       'batch "target": 7 is a bad request', p.stdout[:800])
p = run(['batch', '--target=fortran'], stdin=json.dumps({'source': source, 'verify': False}) + '\n')
answer = json.loads(p.stdout.splitlines()[0]) if p.stdout else {}
report(answer.get('diagnostics', [{}])[0].get('code') == 'E0810', 'dpia batch --target=fortran: the default',
       p.stdout[:400])

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
