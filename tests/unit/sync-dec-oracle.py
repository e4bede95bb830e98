#!/usr/bin/env python3
"""Check decimal operations written by test-sync.c against Python's decimal
module, an independent implementation of the General Decimal Arithmetic
that Java's BigDecimal with MathContext.DECIMAL128 follows: 34 significant
digits, round half to even.

Each line: A OP B RESULT, OP one of + - * (exact), a m d (add, multiply,
divide, rounded); or "T SLOPE OFFSET TS RESULT": the transform of TS as
Trace Compass's fast linear transform computes it (ported below from its
description: aligned blocks of 2^bits ns, the block start in decimal, the
rest in 64-bit fixed point).  Exit status 1 and the first mismatches on
stderr if any line disagrees."""
import sys
from decimal import Context, Decimal, Inexact, ROUND_HALF_EVEN

MC = Context(prec=34, rounding=ROUND_HALF_EVEN, Emax=10**6, Emin=-10**6)
EXACT = Context(prec=400, rounding=ROUND_HALF_EVEN, Emax=10**6,
                Emin=-10**6, traps=[Inexact])

OPS = {
    '+': lambda a, b: EXACT.add(a, b),
    '-': lambda a, b: EXACT.subtract(a, b),
    '*': lambda a, b: EXACT.multiply(a, b),
    'a': lambda a, b: MC.add(a, b),
    'm': lambda a, b: MC.multiply(a, b),
    'd': lambda a, b: MC.divide(a, b),
}


M64 = 1 << 64


def wrap(x):
    """Java long arithmetic: two's complement, 64 bits."""
    x %= M64
    return x - M64 if x >= 1 << 63 else x


def long_value(d):
    """BigDecimal.longValue(): truncate toward zero, keep the low 64 bits."""
    return wrap(int(d))


def fast_transform(slope, offset, ts):
    alpha, beta = Decimal(slope), Decimal(offset)
    int_part = long_value(alpha)
    nlz = 64 - (int_part % M64).bit_length()
    bits = max(min(nlz - 32, 30), 0)
    delta_max = 1 << bits
    alpha_long = long_value(MC.multiply(alpha, Decimal(delta_max)))
    rem = abs(ts) % delta_max * (1 if ts >= 0 else -1)   # Java's %
    start = ts - rem
    off = long_value(MC.add(MC.multiply(Decimal(start), alpha), beta))
    delta = abs(ts - start)
    return wrap((wrap(alpha_long * delta) >> bits) + off)


def main():
    bad = 0
    lines = 0
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith('T '):
                _, slope, offset, ts, got = line.split()
                want = fast_transform(slope, offset, int(ts))
                lines += 1
                if int(got) != want:
                    bad += 1
                    if bad <= 5:
                        print(f"{slope} t + {offset} at {ts}: sht {got}, "
                              f"python {want}", file=sys.stderr)
                continue
            a, op, b, got = line.split()
            want = OPS[op](Decimal(a), Decimal(b))
            lines += 1
            if Decimal(got) != want or Decimal(got).is_nan():
                bad += 1
                if bad <= 5:
                    print(f"{a} {op} {b}: sht {got}, python {want}",
                          file=sys.stderr)
    if lines == 0:
        print("no cases", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
