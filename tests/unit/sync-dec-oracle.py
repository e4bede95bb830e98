#!/usr/bin/env python3
"""Check decimal operations written by test-sync.c against Python's decimal
module, an independent implementation of the General Decimal Arithmetic
that Java's BigDecimal with MathContext.DECIMAL128 follows: 34 significant
digits, round half to even.

Each line: A OP B RESULT, OP one of + - * (exact), a m d (add, multiply,
divide, rounded).  Exit status 1 and the first mismatches on stderr if any
line disagrees."""
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


def main():
    bad = 0
    lines = 0
    with open(sys.argv[1]) as f:
        for line in f:
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
