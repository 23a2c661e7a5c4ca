#!/usr/bin/env python3
"""coverage_report.py - per-unit line and toggle coverage of the co-simulated
RTL from a merged Verilator coverage file (make coverage, mk/coverage.mk).

usage: coverage_report.py [--waivers W.tsv] [--fcov FCOV_REPORT] MERGED.dat

Points are summed over every instance in every model (a unit is one source
file: rtl/mx_decode.sv is counted in the decode model and in the eight
decoders of each PE lane alike).
  line:   Verilator's line/branch points (pages v_line, v_branch); a source
          line is covered when every point that lists it (its S line set, or
          its own line) was reached at least once.
  toggle: one point per signal bit (page v_toggle); covered when the bit
          changed at least once (Verilator's count >= 1).
Waived lines (W.tsv: file, line, reason) are listed with their reason and
left out of the "after waivers" figure; the raw figure keeps them.
Exit status 1 if a line is uncovered and not waived.
"""
import collections
import re
import sys


def parse(path):
    pts = collections.defaultdict(int)
    for line in open(path, encoding='latin-1'):
        m = re.match(r"C '(.*)' (\d+)$", line.rstrip('\n'))
        if not m:
            continue
        kv = dict(item.split('\x02', 1) for item in m.group(1).split('\x01') if '\x02' in item)
        key = (kv['f'], int(kv['l']), kv.get('n', ''), kv['page'].split('/')[0], kv.get('o', ''), kv.get('S', ''))
        pts[key] += int(m.group(2))
    return pts


def lines_of(l, s):
    if not s:
        return {l}
    out = set()
    for part in s.split(','):
        if '-' in part:
            a, b = part.split('-')
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def main(argv):
    waivers, fcov, args = {}, None, []
    i = 0
    while i < len(argv):
        if argv[i] == '--waivers':
            for row in open(argv[i + 1]):
                row = row.split('#', 1)[0].strip() if not row.startswith('#') else ''
                if row:
                    f, ln, reason = row.split('\t', 2)
                    waivers[(f, int(ln))] = reason.strip()
            i += 2
        elif argv[i] == '--fcov':
            fcov = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    pts = parse(args[0])
    files = sorted({k[0] for k in pts})
    summary, detail = [], []
    bad = 0
    for f in files:
        unit = f.split('/')[-1].replace('.sv', '')
        line_state = {}  # line -> covered (all points listing it reached)
        for (ff, l, n, page, o, s), c in pts.items():
            if ff != f or page not in ('v_line', 'v_branch'):
                continue
            for ln in lines_of(l, s):
                line_state[ln] = line_state.get(ln, True) and c > 0
        tog = [c for (ff, l, n, page, o, s), c in pts.items() if ff == f and page == 'v_toggle']
        tog_unc = sorted((l, o) for (ff, l, n, page, o, s), c in pts.items()
                         if ff == f and page == 'v_toggle' and c == 0)
        nl = len(line_state)
        cov = sum(1 for v in line_state.values() if v)
        unc = sorted(ln for ln, v in line_state.items() if not v)
        waived = [ln for ln in unc if (f, ln) in waivers]
        left = [ln for ln in unc if (f, ln) not in waivers]
        bad += len(left)
        tc = sum(1 for c in tog if c > 0)
        summary.append((unit, cov, nl, len(waived), tc, len(tog)))
        src = open(f).read().split('\n') if f else []
        detail.append('%s (%s): lines %d/%d covered, %d waived; toggles %d/%d' % (unit, f, cov, nl, len(waived), tc, len(tog)))
        for ln in unc:
            tag = 'WAIVED (%s)' % waivers[(f, ln)] if (f, ln) in waivers else 'UNCOVERED'
            detail.append('  line %4d %s: %s' % (ln, tag, src[ln - 1].strip() if ln <= len(src) else ''))
        if tog_unc:
            names = collections.OrderedDict()
            for l, o in tog_unc:
                base = re.sub(r'\[\d+\]$', '', o)
                names.setdefault(base, []).append(o[len(base):])
            detail.append('  untoggled bits: ' + '; '.join('%s%s' % (b, ''.join(v) if len(v) <= 6 else '[%d bits]' % len(v))
                                                         for b, v in names.items()))
    out = ['summary (line = source lines of Verilator line/branch points, toggle = signal bits that changed)',
           '  %-14s %16s %8s %8s %18s %8s' % ('unit', 'lines', 'line %', 'waived', 'toggles', 'toggle %')]
    for unit, cov, nl, nw, tc, nt in summary:
        out.append('  %-14s %16s %7.1f%% %8d %18s %7.1f%%' % (unit, '%d/%d' % (cov, nl), 100.0 * cov / max(nl, 1), nw,
                                                           '%d/%d' % (tc, nt), 100.0 * tc / max(nt, 1)))
    T = [0] + [sum(x[k] for x in summary) for k in range(1, 6)]
    out.append('  %-14s %16s %7.1f%% %8d %18s %7.1f%%' % ('all', '%d/%d' % (T[1], T[2]), 100.0 * T[1] / max(T[2], 1), T[3],
                                                       '%d/%d' % (T[4], T[5]), 100.0 * T[4] / max(T[5], 1)))
    out.append('  line coverage after waivers: %s (%d uncovered, unwaived)' % ('PASS' if bad == 0 else 'FAIL', bad))
    if fcov:
        for l in open(fcov):
            if l.startswith('functional coverage per unit') or l.startswith('functional coverage:'):
                out.append('  ' + l.strip())
    out.append('')
    out.append('per unit: uncovered lines (waived ones with the reason) and untoggled bits')
    out += detail
    if waivers:
        out.append('')
        out.append('waiver table (tests/cosim/coverage_waivers.tsv)')
        for (f, ln), r in sorted(waivers.items()):
            out.append('  %s:%d  %s' % (f, ln, r))
    print('\n'.join(out))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
