#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a PID trace against the format of docs/traces.md.

Reads FILE (xz-compressed when its name ends in .xz), checks every line
against the format and its limits (128 bytes a line, newline included;
1,000,000 events), and the header's "events recorded" count where there is
one.  Prints the trace's counts, one "name: value" a line: events of each
kind, distinct PIDs, PIDs used before they are forked (live when the
recording began), forks of a PID still live, uses of a PID not live (after
its free), tasks that exited without a free, the CPUs seen.

Exits 0 on a valid trace; 1 on the first line that breaks the format or a
limit, naming FILE:LINE; 2 when FILE cannot be read.

Usage: scripts/check-trace.py FILE[.xz]
"""
import collections
import lzma
import re
import sys

MAX_LINE = 128            # bytes, the newline included
MAX_EVENTS = 1000000      # the format's bound; the module's debugfs file's
PID_MAX = 4194304         # PIDs are in [1, PID_MAX): the kernel's PID_MAX_LIMIT
CPU_MAX = 8192            # cpu=N: N in [0, CPU_MAX), x86-64's largest NR_CPUS
LEVEL_MAX = 32            # level=L: L in [0, 32], the kernel's MAX_PID_NS_LEVEL
T_MAX = 1 << 63           # t=US: US in [0, 2^63)

ARGS = {'fork': 2, 'exit': 1, 'wait': 1, 'free': 1}
OPTIONAL = ('cpu', 't', 'level')
NUM = re.compile(r'0|[1-9][0-9]*')
HEADER_EVENTS = re.compile(rb'# events recorded: ([0-9]+)')

class Bad(Exception):
    pass


def number(word, what, lo, hi):
    if not NUM.fullmatch(word):
        raise Bad(f"{what} '{word}' is not a decimal integer")
    v = int(word)
    if not lo <= v < hi:
        raise Bad(f"{what} {v} is out of range [{lo}, {hi})")
    return v


def parse(text):
    """An event line: (kind, pids, {field: value})."""
    words = text.split(' ')
    if '' in words:
        raise Bad("fields are separated by single spaces, with none before or after")
    kind = words[0]
    if kind not in ARGS:
        raise Bad(f"unknown event '{kind}' (fork, exit, wait, free)")
    n = ARGS[kind]
    if len(words) < 1 + n:
        raise Bad(f"'{kind}' takes {n} PID{'s' if n > 1 else ''}, "
                  f"saw {len(words) - 1} field{'s' if len(words) != 2 else ''}")
    pids = [number(w, 'PID', 1, PID_MAX) for w in words[1:1 + n]]
    fields = {}
    order = 0
    for w in words[1 + n:]:
        key, eq, val = w.partition('=')
        if not eq:
            raise Bad(f"'{w}' after the PIDs: only cpu=N, t=US, level=L may follow")
        if key not in OPTIONAL:
            raise Bad(f"unknown field '{key}=' (cpu, t, level)")
        i = OPTIONAL.index(key)
        if i < order:
            raise Bad(f"'{key}=' out of order or repeated (cpu, t, level, each at most once)")
        order = i + 1
        if key == 'cpu':
            fields[key] = number(val, 'cpu', 0, CPU_MAX)
        elif key == 't':
            fields[key] = number(val, 't', 0, T_MAX)
        else:
            fields[key] = number(val, 'level', 0, LEVEL_MAX + 1)
    return kind, pids, fields


def lines_of(path):
    opener = lzma.open if path.endswith('.xz') else open
    with opener(path, 'rb') as f:
        yield from f


def check(path):
    counts = {k: 0 for k in ARGS}
    state = {}
    before_fork = fork_live = not_live = 0
    cpus = set()
    header_events = None
    last_t = None
    events = 0
    lineno = 0
    for raw in lines_of(path):
        lineno += 1
        try:
            if len(raw) > MAX_LINE:
                raise Bad(f"{len(raw)} bytes, more than {MAX_LINE} (newline included)")
            line = raw[:-1] if raw.endswith(b'\n') else raw
            if line.startswith(b'#'):
                m = HEADER_EVENTS.match(line)
                if m and header_events is None:
                    header_events = int(m.group(1))
                continue
            if not line:
                continue
            try:
                text = line.decode('ascii')
            except UnicodeDecodeError:
                raise Bad("a byte that is not ASCII") from None
            if not text.isprintable():
                raise Bad("a control character (a tab, a carriage return, ...)")
            kind, pids, fields = parse(text)
            events += 1
            if events > MAX_EVENTS:
                raise Bad(f"more than {MAX_EVENTS} events, the format's bound")
            if 't' in fields:
                if last_t is not None and fields['t'] < last_t:
                    raise Bad(f"t={fields['t']} is earlier than the line before's t={last_t}")
                last_t = fields['t']
        except Bad as e:
            print(f"check-trace: {path}:{lineno}: {e}", file=sys.stderr)
            return 1
        counts[kind] += 1
        if 'cpu' in fields:
            cpus.add(fields['cpu'])
        # the PIDs' lives: each PID a FIFO of live incarnations (a fork
        # pushes one, a free pops the oldest, an exit names the newest), each
        # True once exited; a PID seen first other than as a fork's child was
        # live when the recording began
        for i, p in enumerate(pids):
            child = kind == 'fork' and i == 1
            q = state.get(p)
            if child:
                if q:
                    fork_live += 1
                state.setdefault(p, collections.deque()).append(False)
                continue
            if q is None:
                before_fork += 1
                q = state[p] = collections.deque([False])
            elif not q:
                not_live += 1
                continue
            if kind == 'exit':
                q[-1] = True
            elif kind == 'free':
                q.popleft()
    if header_events is not None and header_events != events:
        print(f"check-trace: {path}: the header says {header_events} events recorded, "
              f"the trace has {events}", file=sys.stderr)
        return 1
    print(f"events: {events}")
    for k in ARGS:
        print(f"{k}s: {counts[k]}")
    print(f"distinct PIDs: {len(state)}")
    print(f"PIDs used before forked: {before_fork}")
    print(f"forks of a PID still live: {fork_live}")
    print(f"uses of a PID after its free: {not_live}")
    print(f"exited, not freed at the end: {sum(sum(q) for q in state.values())}")
    print(f"CPUs seen: {len(cpus)}" + (f" ({','.join(map(str, sorted(cpus)))})" if cpus else ''))
    if last_t is not None:
        print(f"last t: {last_t} us")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0
    if len(argv) != 2 or argv[1].startswith('-'):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        return check(argv[1])
    except (OSError, EOFError) as e:
        print(f"check-trace: {argv[1]}: {e}", file=sys.stderr)
        return 2
    except lzma.LZMAError as e:
        print(f"check-trace: {argv[1]}: not valid xz: {e}", file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
