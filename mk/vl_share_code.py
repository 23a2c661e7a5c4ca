#!/usr/bin/env python3
"""mk/vl_share_code.py DIR PREFIX -- one copy of each per-instance function
that differs between instances only in the names of inlined function
temporaries, in a Verilator 5.006 model generated into DIR (--prefix PREFIX).

Why: Verilator inlines a SystemVerilog function call (mx_decode's
minifloat(), mx_requant's encode()) per call site and per instance, and names
its temporaries with one counter per module (__Vfunc_..._minifloat__630__code
in one PE, __3990__ in the next).  Those temporaries are members of the
module's class, so the functions of two instances are no longer the same text
and Verilator keeps one per instance: for a 16 x 16 array, 256 copies of the
PE's clocked logic (3.7 MB of code, instruction-cache bound), and their
temporaries 430 000 members of the PE class (a 45 MB header).

What: among the `*_sequent__TOP__<scope>__<n>` functions, two are the same
when their bodies are equal after each __Vfunc temporary is renamed by its
order of first appearance and the function's own name is masked.  The first
of a group stays; every other one becomes a call to it on its own object.
Every object has every temporary (one class), each temporary is written
before it is read within one evaluation, and a function is shared only if
none of its temporaries is named in any other function of its kind (hot
files: the clocked and input regions; __Slow files: the initial settle), so
the call computes what the original did.  The settle functions are shared
too so that a 16 x 16 model compiles in minutes, not hours.  Then the
temporaries of the remaining bodies become local variables (localize) and
the members no function names any more are dropped (prune).
Exit 0 (a summary line on stdout); a model with no such functions (another
Verilator's naming) is left as generated.  docs/DECISIONS.md "Array
co-simulation at 16 x 16".
"""
import glob
import os
import re
import sys

FUNC_START = re.compile(r'^(VL_INLINE_OPT |VL_ATTR_COLD )?void (\w+_sequent__TOP__\w+)\((\w+)\* vlSelf\) \{$')
VFUNC = re.compile(r'__Vfunc_\w+')
# the call-site number of a temporary: __<digits>__ not followed by KET (BRA__3__KET is an index)
VFUNC_NUM = re.compile(r'__(\d+)__(?!KET)')


def functions(path):
    """(name, class, first line index, last line index) of each definition."""
    lines = open(path).read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        m = FUNC_START.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j] != '}':
                j += 1
            out.append((m.group(2), m.group(3), i, j))
            i = j
        i += 1
    return lines, out


def temp_key(name):
    """A temporary's name without its call-site number (None: not numbered)."""
    m = VFUNC_NUM.search(name[len('__Vfunc_'):])
    if not m:
        return None
    return name[:len('__Vfunc_') + m.start()] + '__#__' + name[len('__Vfunc_') + m.end():]


def normalize(name, body):
    """Body with the function's name masked and temporaries renumbered."""
    order = {}

    def ren(m):
        t = m.group(0)
        k = temp_key(t)
        if k is None:
            return t
        if t not in order:
            order[t] = len(order)
        return k.replace('__#__', '__T%d__' % order[t])
    return VFUNC.sub(ren, body.replace(name, '@SELF@'))


def main():
    if len(sys.argv) != 3:
        sys.stderr.write('usage: vl_share_code.py DIR PREFIX\n')
        return 2
    d, prefix = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(d, prefix + '*.cpp')))
    parsed = {f: functions(f) for f in files}
    kind = {f: f.endswith('__Slow.cpp') for f in files}
    # which functions of each kind name each temporary
    users = {}
    for f, (lines, fns) in parsed.items():
        for name, _, a, b in fns:
            for t in set(VFUNC.findall('\n'.join(lines[a:b + 1]))):
                users.setdefault((kind[f], t), set()).add(name)
    groups = {}
    for f, (lines, fns) in parsed.items():
        for name, cls, a, b in fns:
            body = '\n'.join(lines[a + 1:b])
            temps = set(VFUNC.findall(body))
            if not temps or any(len(users[(kind[f], t)]) > 1 for t in temps):
                continue
            groups.setdefault((kind[f], cls, normalize(name, body)), []).append((f, name, a, b))
    edits = {}
    shared = 0
    for (_, cls, _), members in groups.items():
        if len(members) < 2:
            continue
        keep = members[0][1]
        for f, name, a, b in members[1:]:
            edits.setdefault(f, []).append((a, b, name, cls, keep))
            shared += 1
    for f, es in edits.items():
        lines = parsed[f][0]
        inside = set()
        for _, _, a, b in parsed[f][1]:
            inside.update(range(a, b + 1))
        only_stubs = len(es) == len(parsed[f][1]) and all(
            i in inside or not l.strip() or l.startswith(('//', '#include')) or l.endswith(');')
            for i, l in enumerate(lines))
        decls = set()
        for a, b, name, cls, keep in sorted(es, reverse=True):
            lines[a:b + 1] = [lines[a],
                              '    // mk/vl_share_code.py: the same logic as %s' % keep,
                              '    %s(vlSelf);' % keep,
                              '}']
            decls.add('void %s(%s* vlSelf);' % (keep, cls))
        if only_stubs:
            # only calls left: no includes (the model's headers, tens of MB
            # at 16 x 16, would be parsed once per file), plain definitions
            classes = sorted(set(e[3] for e in es))
            out = ['// %s: every function of this file calls an identical one (mk/vl_share_code.py)' % os.path.basename(f)]
            out += ['class %s;' % c for c in classes] + sorted(decls)
            for a, b, name, cls, keep in sorted(es):
                out.append('void %s(%s* vlSelf) { %s(vlSelf); }' % (name, cls, keep))
            lines = out + ['']
        else:
            # declarations after the includes
            k = max(i for i, l in enumerate(lines) if l.startswith('#include')) + 1
            lines[k:k] = sorted(decls)
        with open(f + '.tmp', 'w') as fo:
            fo.write('\n'.join(lines))
        os.replace(f + '.tmp', f)
    localized = localize(d, prefix, users, kind)
    dropped = prune(d, prefix) if shared or localized else 0
    print('vl_share_code.py: %s: %d per-instance functions now call an identical one (%d groups); '
          '%d temporaries made local variables; %d members dropped'
          % (d, shared, sum(1 for m in groups.values() if len(m) > 1), localized, dropped))
    return 0


MEMBER = re.compile(r'^\s+(CData|SData|IData|QData)(/\*[^*]*\*/)? (__Vfunc_\w+);$')


def localize(d, prefix, users, kind):
    """In each function left with a body, the temporaries only it names
    become local variables (what Verilator's V3Localize does for other
    block temporaries; it leaves these because the settle and clocked copies
    of the same logic name the same members): the compiler can then keep
    them in registers and fold the constant arguments of minifloat() instead
    of storing every step to the object.  Only a temporary whose first use
    is an assignment, of a type up to 64 bits; each starts at 0 per call,
    as the constructor leaves the member."""
    types = {}
    for h in glob.glob(os.path.join(d, prefix + '*.h')):
        for l in open(h):
            m = MEMBER.match(l.rstrip('\n'))
            if m:
                types[m.group(3)] = m.group(1)
    n = 0
    for f in sorted(glob.glob(os.path.join(d, prefix + '*.cpp'))):
        lines, fns = functions(f)
        changed = False
        for name, _, a, b in sorted(fns, key=lambda x: -x[2]):
            body = '\n'.join(lines[a + 1:b])
            temps = sorted(set(VFUNC.findall(body)))
            loc = []
            for t in temps:
                if users.get((kind[f], t)) != {name} or t not in types:
                    continue
                first = body.find('vlSelf->' + t)
                if first < 0 or not re.match(r'\s*=(?!=)', body[first + len('vlSelf->' + t):]):
                    continue
                loc.append(t)
            if not loc:
                continue
            for t in loc:
                body = re.sub(r'vlSelf->' + t + r'\b', '__Vloc_' + t[len('__Vfunc_'):], body)
            decl = ['    %s __Vloc_%s = 0;' % (types[t], t[len('__Vfunc_'):]) for t in loc]
            lines[a + 1:b] = decl + body.split('\n')
            n += len(loc)
            changed = True
        if changed:
            with open(f + '.tmp', 'w') as fo:
                fo.write('\n'.join(lines))
            os.replace(f + '.tmp', f)
    return n


CTOR_RESET = re.compile(r'^(VL_ATTR_COLD )?void \w+___ctor_var_reset\w*\(.*\{$')


def prune(d, prefix):
    """Drops the temporaries no function reads or writes any more (only the
    replaced copies did) from the class declarations and the constructor's
    reset: at 16 x 16 they were 430 000 members of the PE class (a 45 MB
    header parsed by every file, and objects of about a megabyte)."""
    cpps = glob.glob(os.path.join(d, prefix + '*.cpp'))
    texts = {f: open(f).read().split('\n') for f in cpps}
    live, in_reset = set(), {}
    for f, lines in texts.items():
        reset = False
        for i, l in enumerate(lines):
            if CTOR_RESET.match(l):
                reset = True
            elif reset and l == '}':
                reset = False
            elif '__Vfunc_' in l:
                if reset:
                    in_reset.setdefault(f, []).append(i)
                else:
                    live.update(VFUNC.findall(l))
    dead = set()
    for h in glob.glob(os.path.join(d, prefix + '*.h')):
        lines = open(h).read().split('\n')
        keep = []
        for l in lines:
            ts = VFUNC.findall(l)
            if len(ts) == 1 and ts[0] not in live and l.rstrip().endswith(';') and temp_key(ts[0]):
                dead.add(ts[0])
                continue
            keep.append(l)
        if len(keep) != len(lines):
            with open(h + '.tmp', 'w') as fo:
                fo.write('\n'.join(keep))
            os.replace(h + '.tmp', h)
    for f, idx in in_reset.items():
        lines = texts[f]
        drop = set(i for i in idx if set(VFUNC.findall(lines[i])) <= dead and lines[i].rstrip().endswith(';'))
        if drop:
            with open(f + '.tmp', 'w') as fo:
                fo.write('\n'.join(l for i, l in enumerate(lines) if i not in drop))
            os.replace(f + '.tmp', f)
    return len(dead)


if __name__ == '__main__':
    sys.exit(main())
