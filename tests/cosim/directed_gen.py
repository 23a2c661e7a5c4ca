#!/usr/bin/env python3
"""directed_gen.py - writes the co-simulation's directed boundary tables
(tests/cosim/directed_{align,accum,requant}.tsv, TestFloat-style).

The expected values come from the spec (SPEC.md sections 2 and 3 and IEEE 754
binary32, round to nearest even), worked out here with exact rational
arithmetic; nothing is taken from the C model or the RTL.  The harness
(mxsim cosim --directed) checks the C model against these values and the RTL
against the C model.  Regenerate with: python3 tests/cosim/directed_gen.py
"""
import os
import struct
from fractions import Fraction as Fr

HERE = os.path.dirname(os.path.abspath(__file__))
QNAN = 0x7FC00000
G = 16  # guard bits of the co-simulated align (ALIGN_W 32 - 16)


# ---- FP32 (IEEE 754 binary32, round to nearest even) ------------------------
def f32_val(b):
    """exact value of finite FP32 bits"""
    e, m = (b >> 23) & 0xFF, b & 0x7FFFFF
    v = Fr(m, 1 << 23) * Fr(2) ** -126 if e == 0 else (1 + Fr(m, 1 << 23)) * Fr(2) ** (e - 127)
    return -v if b >> 31 else v


def rne_f32(v, neg_zero=False):
    """bits of RNE(v); v exact rational; overflow to Inf"""
    if v == 0:
        return 0x80000000 if neg_zero else 0
    s = 0x80000000 if v < 0 else 0
    a = abs(v)
    e = 0
    while a >= Fr(2) ** (e + 1):
        e += 1
    while a < Fr(2) ** e:
        e -= 1
    q = max(e, -126) - 23  # quantum exponent
    n = a / Fr(2) ** q
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem > Fr(1, 2) or (rem == Fr(1, 2) and fl % 2 == 1):
        fl += 1
    val = fl * Fr(2) ** q
    if val >= Fr(2) ** 128:
        return s | 0x7F800000
    if val < Fr(2) ** -126:  # subnormal (or zero)
        return s | int(val / Fr(2) ** -149)
    e2 = 0
    while val >= Fr(2) ** (e2 + 1):
        e2 += 1
    while val < Fr(2) ** e2:
        e2 -= 1
    m = val / Fr(2) ** e2 - 1
    return s | ((e2 + 127) << 23) | int(m * (1 << 23))


def f32_bits(x):
    b = struct.unpack('>I', struct.pack('>f', x))[0]
    assert f32_val(b) == Fr(x), x
    return b


def is_nan(b): return (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0
def is_inf(b): return (b & 0x7FFFFFFF) == 0x7F800000


def f32_add(a, b):
    """IEEE RNE a + b; NaN results 0x7FC00000; x + (-x) = +0; -0 + -0 = -0"""
    if is_nan(a) or is_nan(b) or (is_inf(a) and is_inf(b) and a != b):
        return QNAN
    if is_inf(a):
        return a
    if is_inf(b):
        return b
    v = f32_val(a) + f32_val(b)
    if v == 0:
        return 0x80000000 if (a >> 31 and b >> 31) else 0
    return rne_f32(v)


# ---- element decode (SPEC 2 table and 2.2) -----------------------------------
def decode(fmt, c, b5=8):
    """('nan'|'inf'|value) of an element code"""
    if fmt == 'bf16':
        s, e, m = c >> 15, (c >> 7) & 0xFF, c & 0x7F
        if e == 0xFF:
            return 'nan' if m else ('-inf' if s else '+inf')
        v = Fr(m, 128) * Fr(2) ** -126 if e == 0 else (1 + Fr(m, 128)) * Fr(2) ** (e - 127)
        return -v if s else v
    # OCP MX v1.0 FP6/FP4 elements (no NaN/Inf): bits, exponent bits, bias
    small = {'e3m2': (6, 3, 3), 'e2m3': (6, 2, 1), 'e2m1': (4, 2, 1)}
    if fmt in small:
        bits, eb, bias = small[fmt]
        mb = bits - 1 - eb
        s, e, m = (c >> (bits - 1)) & 1, (c >> mb) & ((1 << eb) - 1), c & ((1 << mb) - 1)
        v = Fr(m, 1 << mb) * Fr(2) ** (1 - bias) if e == 0 else (1 + Fr(m, 1 << mb)) * Fr(2) ** (e - bias)
        return -v if s else v
    s = c >> 7
    if fmt == 'int8':
        return Fr(c - 256 if s else c, 64)
    mag = c & 0x7F
    if fmt == 'e4m3':
        if mag == 0x7F:
            return 'nan'
        e, m = mag >> 3, mag & 7
        v = Fr(m, 8) * Fr(2) ** -6 if e == 0 else (1 + Fr(m, 8)) * Fr(2) ** (e - 7)
    elif fmt == 'e5m2':
        e, m = mag >> 2, mag & 3
        if e == 31:
            return 'nan' if m else ('-inf' if s else '+inf')
        v = Fr(m, 4) * Fr(2) ** -14 if e == 0 else (1 + Fr(m, 4)) * Fr(2) ** (e - 15)
    elif fmt == 'e2m5':
        e, m = mag >> 5, mag & 31
        v = Fr(m, 32) if e == 0 else (1 + Fr(m, 32)) * Fr(2) ** (e - 1)
    elif fmt == 'mxsf':
        E, F = mag >> 5, mag & 31
        if E:
            v = Fr(2) ** (E - 1) * (1 + Fr(F, 32))
        else:
            f, n = F >> 2, F & 3
            v = Fr(2) ** (f - b5) * (1 + Fr(n, 4)) if f else Fr(2) ** (1 - b5) * Fr(n, 4)
    else:
        raise ValueError(fmt)
    return -v if s else v


# ---- align: the group's special flags --------------------------------------
def align_flags(fa, fb, a, b):
    nan = pinf = ninf = False
    for x, y in zip(a, b):
        da, db = decode(fa, x), decode(fb, y)
        if da == 'nan' or db == 'nan':
            nan = True
            continue
        ia, ib = isinstance(da, str), isinstance(db, str)
        if ia or ib:
            other = db if ia else da
            if not isinstance(other, str) and other == 0:  # Inf x 0
                nan = True
                continue
            neg = (da == '-inf' if ia else da < 0) != (db == '-inf' if ib else db < 0)
            if neg:
                ninf = True
            else:
                pinf = True
    nan = nan or (pinf and ninf)
    return int(nan), int(not nan and (pinf or ninf)), int(not nan and ninf)


def gen_align():
    rows = []
    sp = {  # +Inf, -Inf, NaN, 1.0, -1.0, 0
        'e5m2': (0x7C, 0xFC, 0x7E, 0x3C, 0xBC, 0x00),
        'bf16': (0x7F80, 0xFF80, 0x7FC0, 0x3F80, 0xBF80, 0x0000),
    }
    for fmt, (pi, ni, nn, one, mone, zero) in sp.items():
        # every NaN / +Inf / -Inf combination, specials in different lanes
        for n in (0, 1):
            for p in (0, 1):
                for m in (0, 1):
                    for rot in (0, 3, 7):
                        a = [one] * 8
                        if n: a[(rot + 1) % 8] = nn
                        if p: a[(rot + 4) % 8] = pi
                        if m: a[rot] = ni
                        rows.append((fmt, fmt, a, [one] * 8, 'nan%d +inf%d -inf%d' % (n, p, m)))
        # Inf - Inf through the B operand's sign, and every lane pair
        for i in range(8):
            a = [one] * 8
            b = [one] * 8
            a[i] = pi
            a[(i + 5) % 8] = pi
            b[(i + 5) % 8] = mone
            rows.append((fmt, fmt, a, b, 'Inf*1 + Inf*(-1) = NaN, lanes %d,%d' % (i, (i + 5) % 8)))
        rows.append((fmt, fmt, [pi] + [one] * 7, [zero] + [one] * 7, 'Inf x 0 = NaN'))
        rows.append((fmt, fmt, [one] * 7 + [zero], [one] * 7 + [ni], '0 x -Inf = NaN'))
        rows.append((fmt, fmt, [ni, ni] + [one] * 6, [mone, one] + [one] * 6, '-Inf*-1 + -Inf*1 = NaN'))
        rows.append((fmt, fmt, [ni, ni] + [zero] * 6, [one, one] + [zero] * 6, 'two -Inf = -Inf'))
        rows.append((fmt, fmt, [pi] * 8, [pi] * 8, 'eight +Inf = +Inf'))
        rows.append((fmt, fmt, [zero] * 8, [one] * 8, 'all-zero group'))
    rows.append(('e4m3', 'e4m3', [0x7F] + [0x38] * 7, [0x38] * 8, 'E4M3 NaN (no Inf in E4M3)'))
    rows.append(('e4m3', 'e5m2', [0x38] * 8, [0x3C] * 7 + [0xFC], 'E4M3 x E5M2 -Inf'))
    rows.append(('e4m3', 'e5m2', [0x38] * 7 + [0x00], [0x3C] * 7 + [0xFC], 'E4M3 0 x E5M2 -Inf = NaN'))
    # the FP6/FP4 elements (no specials of their own) against E5M2's: signs and zeros
    rows.append(('e3m2', 'e5m2', [0x0C] * 7 + [0x2C], [0x3C] * 7 + [0x7C], 'FP6 E3M2 -1 x E5M2 +Inf = -Inf'))
    rows.append(('e2m3', 'e5m2', [0x08] * 7 + [0x20], [0x3C] * 7 + [0xFC], 'FP6 E2M3 -0 x E5M2 -Inf = NaN'))
    rows.append(('e5m2', 'e2m1', [0x7C, 0xFC] + [0x3C] * 6, [0xA, 0xA] + [0x2] * 6, '+Inf x FP4 -1 + -Inf x -1 = NaN'))
    rows.append(('e2m1', 'e5m2', [0x7] * 8, [0x7E] + [0x3C] * 7, 'FP4 6 x E5M2 NaN = NaN'))
    rows.append(('e2m1', 'e3m2', [0xF] * 8, [0x3F] * 8, 'FP4 -6 x FP6 -28: all finite'))
    out = ['# directed_align.tsv - written by directed_gen.py: group special flags (SPEC 3.3:',
           '# a NaN product, Inf x 0, or +Inf and -Inf in one group give NaN)',
           '# fmt\tfmt_b\ta_codes\tb_codes\tnan\tinf\tinf_sign\t# case']
    for fa, fb, a, b, what in rows:
        n, i, s = align_flags(fa, fb, a, b)
        out.append('%s\t%s\t%s\t%s\t%d\t%d\t%d\t# %s' % (fa, fb, ','.join('%x' % x for x in a),
                                                      ','.join('%x' % x for x in b), n, i, s, what))
    return out


# ---- accum: group conversion and the FP32 add --------------------------------
def accum_row(first, acc, s, emax, xa, xb, use, nan, inf, isign, state):
    if nan or (use and (xa == 0xFF or xb == 0xFF)):
        g = QNAN
    elif inf:
        g = 0xFF800000 if isign else 0x7F800000
    elif s == 0:
        g = 0
    else:
        gexp = emax - G + ((xa + xb - 254) if use else 0)
        g = rne_f32(Fr(s) * Fr(2) ** gexp, neg_zero=s < 0)
    base = acc if first else state[0]
    res = f32_add(base, g)
    state[0] = res
    return (first, acc, s, emax, xa, xb, use, nan, inf, isign, g, res)


def gen_accum():
    st = [0]
    R = []
    ONE, MONE, MAXF = 0x3F800000, 0xBF800000, 0x7F7FFFFF

    def row(what, first, acc, s, emax, xa=127, xb=127, use=1, nan=0, inf=0, isign=0):
        R.append(accum_row(first, acc, s, emax, xa, xb, use, nan, inf, isign, st) + (what,))

    # every acc class x group class (finite 1.0 = sum 1 at emax 16)
    accs = [(ONE, '1.0'), (0x7F800000, '+Inf'), (0xFF800000, '-Inf'), (QNAN, 'NaN'), (0xFFC00001, 'NaN payload')]
    for acc, an in accs:
        row('%s + 1.0' % an, 1, acc, 1, 16)
        row('%s + group +Inf' % an, 1, acc, 5, 3, inf=1)
        row('%s + group -Inf' % an, 1, acc, 5, 3, inf=1, isign=1)
        row('%s + group NaN' % an, 1, acc, 5, 3, nan=1)
    # scale extremes (E8M0 0x00 = 2^-127, 0xFE = 2^127, 0xFF = NaN)
    row('scale a 0xFF: NaN', 1, ONE, 3, 16, xa=0xFF)
    row('scale b 0xFF: NaN', 1, ONE, 3, 16, xb=0xFF)
    row('scales 0xFF unused (BF16)', 1, ONE, 3, 16, xa=0xFF, xb=0xFF, use=0)
    row('scale a 0x00: 2^-127', 1, 0, 3, 16, xa=0x00)
    row('scale b 0x00 and a 0x00: underflow to 0', 1, 0, 3, 16, xa=0x00, xb=0x00)
    row('scale a 0xFE: 2^127', 1, 0, 3, 16, xa=0xFE)
    row('scale b 0xFE: 2^127', 1, 0, 3, 16, xb=0xFE)
    row('scales 0xFE 0xFE: group overflows to +Inf', 1, 0, 1 << 20, 0, xa=0xFE, xb=0xFE)
    row('scales 0xFE 0xFE: group overflows to -Inf', 1, 0, -(1 << 20), 0, xa=0xFE, xb=0xFE)
    row('largest finite group (0x7F7FFFFF)', 1, 0, (1 << 24) - 1, 104 + 16 - 254, xa=0xFE, xb=0xFE)
    row('group rounds up into overflow', 1, 0, (1 << 25) - 1, 103 + 16 - 254, xa=0xFE, xb=0xFE)
    # group conversion ties (2^24 + 1, + 3; negative; at several exponents)
    for emax in (16, -60, 60):
        row('group tie down to even', 1, 0, (1 << 24) + 1, emax)
        row('group tie up to even', 1, 0, (1 << 24) + 3, emax)
        row('group tie down to even, negative', 1, 0, -((1 << 24) + 1), emax)
        row('group tie up to even, negative', 1, 0, -((1 << 24) + 3), emax)
    row('group tie at 2^25 + 2', 1, 0, (1 << 25) + 2, 16)
    row('group tie carries into the next binade', 1, 0, (1 << 25) - 1, 16)
    # subnormal results and underflow (gexp = emax - 16 + xa + xb - 254)
    row('group 2^-149 (smallest subnormal)', 1, 0, 1, -149 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('group half of 2^-149: tie to 0', 1, 0, 1, -150 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('group -half of 2^-149: tie to -0', 1, 0, -1, -150 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('group 3 * 2^-150: tie up to 2^-148', 1, 0, 3, -150 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('group 5 * 2^-150: tie down to 2^-148', 1, 0, 5, -150 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('group subnormal 0x3FFFFF', 1, 0, 0x3FFFFF, -149 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('group subnormal rounds up to 2^-126', 1, 0, (1 << 25) - 1, -150 - 25 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('group far below 2^-149: 0', 1, 0, 7, -100, xa=0, xb=0)
    row('group 2^-149 * large sum, scale 0x00', 1, 0, (1 << 34) + 12345, 16, xa=0, xb=1)
    row('most negative addtree word -2^35', 1, 0, -(1 << 35), 16)
    row('largest addtree word 2^35 - 1', 1, 0, (1 << 35) - 1, 16)
    # FP32 add: ties, cancellation, overflow, subnormal, signed zero
    row('1 + 2^-24: tie down to 1', 1, ONE, 1, -8)
    row('1 + 3*2^-24: tie up', 1, ONE, 3, -8)
    row('-1 - 2^-24: tie down to -1', 1, MONE, -1, -8)
    row('1 + 2^-100: sticky far below', 1, ONE, 1, -84)
    row('1 + (-1) = +0', 1, ONE, -1, 16)
    row('-1 + 1 = +0', 1, MONE, 1, 16)
    row('-0 + -0 = -0', 1, 0x80000000, -1, -150 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('+0 + -0 = +0', 1, 0, -1, -150 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('max + max overflows to +Inf', 1, MAXF, (1 << 24) - 1, 104 + 16 - 254, xa=0xFE, xb=0xFE)
    row('-max - max overflows to -Inf', 1, MAXF | 0x80000000, -((1 << 24) - 1), 104 + 16 - 254, xa=0xFE, xb=0xFE)
    row('2^-126 - 2^-127: subnormal result', 1, 0x00800000, -1, -127 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('subnormal + subnormal', 1, 0x00000003, 5, -149 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('0 + subnormal group', 1, 0, 3, -149 + 16 - (65 + 65 - 254), xa=65, xb=65)
    row('subnormal acc + 0', 1, 0x00000005, 0, 0)
    # an accumulation chain (first = 0: the accumulator register)
    row('chain start 1.0', 1, 0, 1, 16)
    row('chain + 2^-24 (tie, stays 1)', 0, 0, 1, -8)
    row('chain + 2^-24 (tie, stays 1)', 0, 0, 1, -8)
    row('chain + 3*2^-24 (tie up)', 0, 0, 3, -8)
    row('chain + group +Inf', 0, 0, 1, 0, inf=1)
    row('chain + group -Inf: Inf - Inf = NaN', 0, 0, 1, 0, inf=1, isign=1)
    row('chain NaN + 1 stays NaN', 0, 0, 1, 16)
    out = ['# directed_accum.tsv - written by directed_gen.py: group sum -> FP32 (RNE) and FP32 add',
           '# (RNE, IEEE specials; NaN is 0x7FC00000, x + (-x) = +0), SPEC 3.5 / DATAPATH.md.',
           '# first=0 rows continue from the previous row\'s result (en, valid, last are 1).',
           '# first\tacc_i\tsum_i\temax_i\ta_scale\tb_scale\tuse_scale\tnan\tinf\tinf_sign\tgroup_o\tres_o\t# case']
    for r in R:
        (first, acc, s, emax, xa, xb, use, nan, inf, isign, g, res, what) = r
        assert -(1 << 35) <= s < (1 << 35) and -512 <= emax < 512, what
        out.append('%d\t%08x\t%d\t%d\t%02x\t%02x\t%d\t%d\t%d\t%d\t%08x\t%08x\t# %s' %
                   (first, acc, s, emax, xa, xb, use, nan, inf, isign, g, res, what))
    return out


# ---- requant: scale rule and RNE element encode with saturation --------------
EMAX = {'mxsf': 2, 'e4m3': 8, 'e5m2': 15, 'e2m5': 2, 'int8': 0}
NAN_CODE = {'e4m3': 0x7F, 'e5m2': 0x7E}


def codes_of(fmt, b5):
    """(value, code) for every non-negative finite magnitude code, the code each value encodes to"""
    if fmt == 'int8':
        return [(Fr(k, 64), k) for k in range(128)]
    vc = {}
    for c in range(0x80):
        v = decode(fmt, c, b5)
        if isinstance(v, str):
            continue
        if fmt == 'mxsf' and v in vc:
            continue  # (b5 < 8 overlaps; not used here)
        vc[v] = c
    return sorted(vc.items())


def encode(fmt, b5, x):
    """RNE to the nearest code, ties to the even code, saturate at the largest"""
    neg = x < 0
    a = abs(x)
    vc = codes_of(fmt, b5)
    if a >= vc[-1][0]:
        c = vc[-1][1]
    else:
        i = next(k for k in range(len(vc)) if vc[k][0] >= a)
        if vc[i][0] == a:
            c = vc[i][1]
        else:
            (lo, cl), (hi, ch) = vc[i - 1], vc[i]
            if a - lo < hi - a:
                c = cl
            elif a - lo > hi - a:
                c = ch
            else:
                c = cl if cl % 2 == 0 else ch
    if fmt == 'int8':
        return (256 - c) % 256 if neg else c
    return (0x80 if neg else 0) | c


def requant_row(fmt, b5, vals):
    if any((v >> 23) & 0xFF == 0xFF for v in vals):
        return 0xFF, [NAN_CODE.get(fmt, 0)] * 8
    amax = max(abs(f32_val(v)) for v in vals)
    if amax == 0:
        se = -127
    else:
        e = 0
        while amax >= Fr(2) ** (e + 1):
            e += 1
        while amax < Fr(2) ** e:
            e -= 1
        se = max(e - EMAX[fmt], -127)
    codes = [encode(fmt, b5, f32_val(v) / Fr(2) ** se) for v in vals]
    if fmt != 'int8':  # -0 keeps its sign bit
        codes = [(0x80 if v >> 31 else 0) if (v & 0x7FFFFFFF) == 0 else c for v, c in zip(vals, codes)]
    return se + 127, codes


def fr_bits(v):
    b = rne_f32(v)
    assert f32_val(b) == v, v
    return b


def gen_requant():
    R = []
    for fmt in ('mxsf', 'e4m3', 'e5m2', 'e2m5', 'int8'):
        b5 = 8
        vc = codes_of(fmt, b5)
        top = Fr(2) ** EMAX[fmt]  # amax at 2^emax_elem: scale 2^0 (0x7F)
        # ties: midpoints of adjacent codes, the lower one even (tie down) and odd (tie up)
        mids = []
        for i in range(1, len(vc) - 1):
            (lo, cl), (hi, _) = vc[i], vc[i + 1]
            mids.append(((lo + hi) / 2, cl % 2))
        downs = [m for m, odd in mids if not odd]
        ups = [m for m, odd in mids if odd]
        pick = lambda L: [L[0], L[1], L[len(L) // 3], L[len(L) // 2], L[-3], L[-2], L[-1]]
        for L, what in ((downs, 'ties down to even'), (ups, 'ties up to even')):
            vals = [top] + pick(L)
            R.append((fmt, b5, [fr_bits(v) for v in vals], '%s: %s' % (fmt, what)))
            R.append((fmt, b5, [fr_bits(-v) for v in vals], '%s: %s, negative' % (fmt, what)))
        # saturation: above the largest code (scale 2^0: amax in [2^emax, 2^(emax+1)))
        big = Fr(2) ** (EMAX[fmt] + 1) - Fr(2) ** (EMAX[fmt] - 10)
        hi_max = vc[-1][0]
        R.append((fmt, b5, [fr_bits(v) for v in (big, -big, (hi_max + big) / 2, hi_max, -hi_max, top, 0, 0)],
                  '%s: saturation at the largest code' % fmt))
        # underflow: non-zero elements rounding to 0, incl. exactly half the smallest code (tie to 0)
        smallest = vc[1][0]
        R.append((fmt, b5, [fr_bits(v) for v in (top, smallest / 2, -smallest / 2, smallest / 4, smallest * 3 / 4,
                                                  smallest, Fr(2) ** -149, -Fr(2) ** -149)],
                  '%s: underflow to 0 and FP32 subnormal inputs' % fmt))
        # zero block (+0 and -0), NaN block, Inf block, clamped scale, scale 0xFE
        R.append((fmt, b5, [0, 0x80000000] + [0] * 6, '%s: all-zero block: scale 0x00' % fmt))
        R.append((fmt, b5, [fr_bits(Fr(1))] * 3 + [QNAN] + [0] * 4, '%s: NaN in the block: scale 0xFF' % fmt))
        R.append((fmt, b5, [fr_bits(Fr(1))] * 3 + [0xFF800000] + [0] * 4, '%s: -Inf in the block: scale 0xFF' % fmt))
        R.append((fmt, b5, [0x7F800000] + [fr_bits(Fr(3))] * 7, '%s: +Inf in the block: scale 0xFF' % fmt))
        R.append((fmt, b5, [0x00000400, 0x00000001, 0x80000200] + [0] * 5,
                  '%s: tiny amax (2^-139): scale clamped at 2^-127' % fmt))
        R.append((fmt, b5, [0x7F7FFFFF, 0x7F000000, 0xFF400000, 0x3F800000] + [0] * 4,
                  '%s: amax at the top of FP32' % fmt))
    # MXSF: the FP5 -> E2M5 boundary and the b5 > 8 gap (ties to 1.0, the even code)
    R.append(('mxsf', 8, [fr_bits(v) for v in (Fr(4), Fr(15, 16), Fr(7, 8), Fr(29, 32), Fr(31, 32), Fr(61, 64),
                                                 -Fr(15, 16), Fr(1))], 'mxsf b5=8: FP5 0.875 / 1.0 boundary'))
    for b5 in (9, 12, 16):
        lo = 7 * Fr(2) ** (5 - b5)
        mid = (lo + 1) / 2
        eps = Fr(2) ** -20
        R.append(('mxsf', b5, [fr_bits(v) for v in (Fr(4), mid, -mid, mid - eps, mid + eps, lo, lo + eps, 1 - eps)],
                  'mxsf b5=%d: the gap between 7*2^(5-b5) and 1.0 (tie to 1.0)' % b5))
        R.append(('mxsf', b5, [fr_bits(v) for v in (Fr(4), lo * Fr(6, 7), lo * Fr(13, 14), Fr(2) ** (1 - b5) / 8,
                                                     Fr(2) ** (1 - b5) * Fr(3, 8), Fr(2) ** (1 - b5) * Fr(5, 8), 0, 0)],
                  'mxsf b5=%d: FP5 ties and subnormals' % b5))
    R.append(('int8', 8, [fr_bits(Fr(3, 2) * Fr(2) ** 127), fr_bits(Fr(2) ** 120), fr_bits(-Fr(2) ** 127)] + [0] * 5,
              'int8: amax 1.5 * 2^127: scale 0xFE'))
    out = ['# directed_requant.tsv - written by directed_gen.py: OCP floor scale rule clamped at 2^-127,',
           '# NaN/Inf block -> 0xFF and the NaN code, zero block -> 0x00, RNE to the even code with',
           '# saturation (SPEC 2.1, 2.2, 3.6; DATAPATH.md "Re-quantization unit").',
           '# fmt\tfp5_bias\tvals (FP32 hex)\tscale\tcodes\t# case']
    for fmt, b5, vals, what in R:
        sc, codes = requant_row(fmt, b5, vals)
        out.append('%s\t%d\t%s\t%02x\t%s\t# %s' % (fmt, b5, ','.join('%08x' % v for v in vals), sc,
                                                 ','.join('%02x' % c for c in codes), what))
    return out


if __name__ == '__main__':
    for name, fn in (('align', gen_align), ('accum', gen_accum), ('requant', gen_requant)):
        with open(os.path.join(HERE, 'directed_%s.tsv' % name), 'w') as f:
            f.write('\n'.join(fn()) + '\n')
