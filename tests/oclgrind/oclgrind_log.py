"""oclgrind_log.py: running a `dpia run` under Oclgrind and reading its log.

Oclgrind (Debian package oclgrind, installed by tools/setup.sh) is an
OpenCL device simulated instruction by instruction.  With --data-races it
records, between barriers, which work-item read and wrote every byte of
local and global memory, and reports two work-items that touch the same
byte with at least one write (--uniform-writes: also when both write the
same value, which a GPU need not keep either); any access outside a buffer
is reported too.  PoCL runs a group's work-items one after another between
barriers, so a missing barrier gives the right answer there: Oclgrind is
the oracle of race freedom that `dpia run --check` on PoCL is not.

Every message goes to the log (--log), so an empty log is a clean run and
any text in it is a finding.  A message is a line saying what (`Read-write
data race at local memory address 0x2000000000004`, `Invalid read of size
4 at global memory address ...`) and tab-indented lines naming the kernel,
each work-item involved (`First entity:`, `Second entity:`, or `Entity:`),
its LLVM instruction and the source line of input.cl (the program dpia
built) with its column.  summarize() groups the messages by what they say
apart from the address (one race is reported once per byte or word) and
names the buffer from the source line: the array indexed at the column of
a read, the one assigned to by a write."""
import os
import re
import subprocess

# the flags of every run: races between work-items, also of the same value
FLAGS = ['--data-races', '--uniform-writes']


def command(dpia_args, log, local_mem=None):
    """The command line running `dpia ARGS` on Oclgrind, findings to log;
    local_mem: the simulated device's local memory in bytes (default
    32 KiB)."""
    cmd = ['oclgrind', *FLAGS, '--log', log]
    if local_mem:
        cmd += ['--local-mem-size', str(local_mem)]
    return cmd + list(dpia_args)


def available():
    """Why Oclgrind cannot run here, or None."""
    try:
        p = subprocess.run(['oclgrind', '--version'], capture_output=True, text=True, timeout=60)
    except (FileNotFoundError, PermissionError):
        return 'oclgrind is not installed (Debian package oclgrind; tools/setup.sh installs it)'
    if p.returncode != 0:
        return f'oclgrind --version exits {p.returncode}: {p.stderr.strip()}'
    return None


def missing_status():
    """The exit status of a test that cannot run Oclgrind: 77 (skipped),
    but 1 in CI (CI=true), where tools/setup.sh has installed it."""
    return 1 if os.environ.get('CI') == 'true' else 77


def read_log(path):
    """The log's text ('' when Oclgrind wrote none)."""
    if not os.path.exists(path):
        return ''
    with open(path, errors='replace') as fh:
        return fh.read()


HEAD = re.compile(r'^(?P<what>.*?) at (?P<space>\w+) memory address (?P<addr>0x[0-9a-fA-F]+)\s*$')
AT = re.compile(r'At line (?P<line>\d+) \(column (?P<col>\d+)\) of (?P<file>\S+):')
ENTITY = re.compile(r'^(First entity|Second entity|Entity):\s*(.*)$')
IDENT = re.compile(r'[A-Za-z_]\w*')


def messages(text):
    """Each message of the log: a list of its lines, the first the head,
    the others without their leading tab."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith('\t'):
            if cur is None:
                cur = ['(continued)']
                out.append(cur)
            cur.append(line[1:])
        elif line.strip():
            cur = [line.rstrip()]
            out.append(cur)
        else:
            cur = None if cur is None or len(cur) > 1 else cur
    return out


def buffer_name(source, col, op):
    """The buffer an access at column col (from 1) of a source line touches:
    the array indexed there (a read: Oclgrind's column is the array's name),
    the one assigned to (a write: the column is the '='), the pointer of a
    vstoreN or vloadN; None when the line does not say."""
    i = max(0, col - 1)
    m = IDENT.match(source, i)
    if m and m.group(0).startswith(('vstore', 'vload')):
        call = source[m.end():]
        args = call[call.find('(') + 1:] if '(' in call else ''
        depth, last, start = 0, None, 0
        for j, c in enumerate(args):  # the last argument at depth 0
            if c in '([':
                depth += 1
            elif c in ')]':
                if depth == 0:
                    last = args[start:j]
                    break
                depth -= 1
            elif c == ',' and depth == 0:
                start = j + 1
        name = IDENT.search(last or '')
        return name.group(0) if name else None
    if m and source[m.end():].lstrip().startswith('['):
        return m.group(0)
    if op == 'store' or source[i:i + 1] == '=':
        lhs = source[:i] if source[i:i + 1] == '=' else source.split('=', 1)[0]
        names = IDENT.findall(lhs)
        return names[0] if names else None
    return m.group(0) if m else None


def parse(msg, source_lines=None):
    """One message as a dict: what, space, addr, kernel, accesses (entity,
    op, line, col, source, buffer), and the raw lines.  source_lines: the
    program Oclgrind ran, which the columns count in (the log shows each
    line without its indentation); without it the column is taken in the
    line as shown, less the indentation that makes it fall on a name."""
    head = HEAD.match(msg[0])
    d = {'what': head.group('what') if head else msg[0], 'space': head.group('space') if head else None,
         'addr': head.group('addr') if head else None, 'kernel': None, 'accesses': [], 'raw': msg}
    acc = None
    for i, line in enumerate(msg[1:], 1):
        s = line.strip()
        if s.startswith('Kernel:'):
            d['kernel'] = s.split(':', 1)[1].strip()
            continue
        m = ENTITY.match(s)
        if m:
            acc = {'entity': m.group(2), 'op': None, 'line': None, 'col': None, 'source': None, 'buffer': None}
            d['accesses'].append(acc)
            continue
        if acc is None:
            continue
        m = AT.match(s)
        if m:
            acc['line'], acc['col'] = int(m.group('line')), int(m.group('col'))
            acc['source'] = msg[i + 1].strip() if i + 1 < len(msg) else ''
            acc['buffer'] = access_buffer(acc, source_lines)
            continue
        if acc['op'] is None and acc['line'] is None:
            w = re.match(r'(?:%\S+ = )?(\w+)', s)
            if w:
                acc['op'] = w.group(1)
    return d


def access_buffer(acc, source_lines):
    """buffer_name of an access, its column placed in the line as printed."""
    line, col, shown = acc['line'], acc['col'], acc['source']
    if not line or not shown or shown == '(source not available)':
        return None  # an access without a source line (inside a built-in)
    if source_lines and 0 < line <= len(source_lines) and source_lines[line - 1].strip() == shown:
        full = source_lines[line - 1]
        return buffer_name(full, col, acc['op'])
    # the indentation is unknown: a write is to the array assigned to (or
    # a vstore's pointer); a read is of the array whose name the column
    # falls on for the least indentation that puts it on one followed by '['
    if acc['op'] == 'store':
        m = re.match(r'\s*(vstore\d*)\b', shown)
        return buffer_name(shown, m.start(1) + 1 if m else len(shown.split('=', 1)[0]) + 1, 'store')
    for indent in range(0, col):
        i = col - 1 - indent
        m = IDENT.match(shown, i) if i < len(shown) else None
        if m and (i == 0 or not (shown[i - 1].isalnum() or shown[i - 1] == '_')) and \
                (shown[m.end():].lstrip().startswith('[') or m.group(0).startswith('vload')):
            return buffer_name(shown, i + 1, acc['op'])
    return None


def summarize(text, source=None, limit=4, source_width=120):
    """A short report of a log: how many messages, then each distinct
    finding (up to limit) with its buffer, the work-items and the two
    accesses; '' for an empty log.  source: the program Oclgrind ran, if
    known (parse)."""
    if not text.strip():
        return ''
    lines_of = source.splitlines() if source else None
    msgs = [parse(m, lines_of) for m in messages(text)]
    groups = {}
    for d in msgs:
        key = (d['what'], d['space'], d['kernel'],
               tuple((a['op'], a['line'], a['buffer']) for a in d['accesses']))
        groups.setdefault(key, []).append(d)
    n = len(msgs)
    lines = [f'Oclgrind: {n} message{"s" if n != 1 else ""}, {len(groups)} distinct finding'
             f'{"s" if len(groups) != 1 else ""}']
    for key, ds in list(groups.items())[:limit]:
        d = ds[0]
        if not d['accesses'] and d['space'] is None:  # not a message of the usual shape: show it
            lines += ['  ' + x[:source_width] for x in d['raw'][:8]]
            continue
        bufs = sorted({a['buffer'] for a in d['accesses'] if a['buffer']})
        where = f'buffer {", ".join(bufs)} in {d["space"]} memory' if bufs else f'{d["space"]} memory'
        addrs = sorted({x['addr'] for x in ds if x['addr']})
        # a message may give no address (then its raw lines say what it is)
        span = (f'address {addrs[0]}' if len(addrs) == 1 else f'{len(addrs)} addresses from {addrs[0]}' if addrs
                else 'no address')
        lines.append(f'- {d["what"]}, {where} ({span}), kernel {d["kernel"]}')
        for a in d['accesses']:
            src = (a['source'] or '')[:source_width]
            lines.append(f'    {a["op"] or "access"} by {a["entity"]}, line {a["line"]}: {src}')
    if len(groups) > limit:
        lines.append(f'  ... and {len(groups) - limit} more distinct finding{"s" if len(groups) - limit != 1 else ""}')
    return '\n'.join(lines)
