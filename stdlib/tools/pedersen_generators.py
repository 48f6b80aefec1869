#!/usr/bin/env python3
"""The base points of the Pedersen hash `hashes/pedersen/512bit{,Bool}` on Baby Jubjub.

The hash (as ZoKrates' library and its Python tooling, Zokrates/pycrypto, define it) splits its
input into 3-bit windows and sums one curve point per window; the points come in segments of at
most 62 windows, each segment from its own base point. Base point i of a hash named NAME is
"hash to point" of the 32 ASCII bytes NAME padded with spaces to 28 bytes followed by i as four
upper-case hex digits (`b"%-28s%04X" % (NAME, i)`):

1. y = SHA-256 of those bytes, read big-endian, reduced mod p;
2. x^2 = (y^2 - 1) / (d y^2 - a) (the curve equation a x^2 + y^2 = 1 + d x^2 y^2 solved for
   x); while it is not a square, y = y + 1 and again;
3. x = the square root that is larger than p / 2 (of the two roots x and p - x);
4. the base point is 8 (x, y), the cofactor times the point: it lies in the subgroup of prime
   order l.

Window j of a segment (j = 0..61) uses 16^j times the segment's base point. The library hashes
512 bits with the name "test" (ZoKrates' test vector): 171 windows, so base points 0, 1, 2 with
62, 62 and 47 windows.

Run `python3 stdlib/tools/pedersen_generators.py` for the three base points (pasted into
`stdlib/hashes/pedersen/512bitBool.zok`); with `--check FILE`, the table of multiples of
every window (1, 2, 3, 4 times its point) is compared with the decimal constants found in FILE
in order (ZoKrates' own `512bitBool.zok`: its 171 windows' x then y coordinates), and the
script says whether all 1368 agree.
"""

import hashlib
import re
import sys

P = 21888242871839275222246405745257275088548364400416034343698204186575808495617
A = 168700
D = 168696
L = 2736030358979909402780800718157159386076813972158567259200215660948447373041
NAME = "test"
WINDOWS = 171
SEGMENT = 62


def inv(x):
    return pow(x, P - 2, P)


def sqrt(n):
    """A square root of n mod P (Tonelli-Shanks), or None when n is not a square."""
    n %= P
    if n == 0:
        return 0
    if pow(n, (P - 1) // 2, P) != 1:
        return None
    q, s = P - 1, 0
    while q % 2 == 0:
        q, s = q // 2, s + 1
    z = 2
    while pow(z, (P - 1) // 2, P) != P - 1:
        z += 1
    m, c, t, r = s, pow(z, q, P), pow(n, q, P), pow(n, (q + 1) // 2, P)
    while t != 1:
        i, t2 = 0, t
        while t2 != 1:
            t2, i = t2 * t2 % P, i + 1
        b = pow(c, 1 << (m - i - 1), P)
        m, c, t, r = i, b * b % P, t * b * b % P, r * b % P
    return r


def add(p1, p2):
    (x1, y1), (x2, y2) = p1, p2
    t = D * x1 * x2 * y1 * y2 % P
    return ((x1 * y2 + y1 * x2) * inv(1 + t) % P, (y1 * y2 - A * x1 * x2) * inv(1 - t) % P)


def mul(k, pt):
    acc = (0, 1)
    while k:
        if k & 1:
            acc = add(acc, pt)
        pt = add(pt, pt)
        k >>= 1
    return acc


def on_curve(pt):
    x, y = pt
    return (A * x * x + y * y - 1 - D * x * x * y * y) % P == 0


def base_point(name, i):
    data = b"%-28s%04X" % (name.encode("ascii"), i)
    y = int.from_bytes(hashlib.sha256(data).digest(), "big") % P
    while True:
        xx = (y * y - 1) * inv(D * y * y - A) % P
        x = sqrt(xx)
        if x is not None:
            break
        y = (y + 1) % P
    if x < P - x:
        x = P - x
    pt = mul(8, (x, y))
    assert on_curve(pt) and mul(L, pt) == (0, 1) and pt != (0, 1)
    return pt


def window_points(name, windows):
    """The point of every window: 16^j times base point i for window 62 i + j."""
    points = []
    for w in range(windows):
        if w % SEGMENT == 0:
            current = base_point(name, w // SEGMENT)
        else:
            for _ in range(4):
                current = add(current, current)
        points.append(current)
    return points


def main():
    points = window_points(NAME, WINDOWS)
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        text = open(sys.argv[2]).read()
        found = [int(n) for n in re.findall(r"\b\d{30,}\b", text)]
        expected = []
        for pt in points:
            table = [mul(k, pt) for k in (1, 2, 3, 4)]
            expected += [q[0] for q in table] + [q[1] for q in table]
        agree = found == expected
        print(f"{len(expected)} constants derived, {len(found)} found in {sys.argv[2]}: "
              + ("all agree" if agree else "they DIFFER"))
        sys.exit(0 if agree else 1)
    for i in range(0, WINDOWS, SEGMENT):
        pt = points[i]
        print(f"    [{pt[0]}, {pt[1]}],")


if __name__ == "__main__":
    main()
