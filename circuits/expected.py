#!/usr/bin/env python3
"""Inputs and expected outputs of the corpus, computed in plain Python, without zkbc.

Each entry gives a program's inputs and a Python model of what it computes. Running this script
writes NAME.json (the inputs) and NAME.expected.json ({"outputs": [...]}) beside NAME.zok.
Encoding: field and uN as decimal strings, bool as true/false, arrays as lists, structs as
objects, tuples as lists.
"""
import hashlib
import itertools
import json
import math
import os
import re
import struct

P = 21888242871839275222246405745257275088548364400416034343698204186575808495617


def f(x):
    return str(x % P)


def inv(x):
    return pow(x, P - 2, P)


def u(x, w):
    return str(x % (1 << w))


CASES = {}


def case(name, inputs, outputs):
    CASES[name] = (inputs, outputs)


# arith
a, b = 12345678901234567890, 98765
case("arith", {"a": str(a), "b": str(b)},
     [f((a + b) * (a - b) + 7), f(b - a), f(-a * 3 + b ** 3)])

# field_div
a, b = 7, 3
case("field_div", {"a": str(a), "b": str(b)}, [f(a * inv(b)), True])

# u8_wrap
a, b = 200, 7
case("u8_wrap", {"a": str(a), "b": str(b)},
     [u(a + b, 8), u(a - b, 8), u(a * b, 8), u(a // b, 8), u(a % b, 8), u(-a, 8)])

# u32_wrap
a, b = 4000000000, 123456789
acc = a
for _ in range(5):
    acc = (acc * b + 0xdeadbeef) % (1 << 32)
case("u32_wrap", {"a": str(a), "b": b}, [u(a + b, 32), u(a - b, 32), u(acc, 32), "0"])

# u64_wrap
n = 100
x, y = 0, 1
for _ in range(n):
    x, y = y, (x + y) % (1 << 64)
case("u64_wrap", {"n": n}, [u(x, 64), u(y * 0xffffffff, 64)])

# shifts_bits
a, b, c = 0x12345678, 0x0f0f00ff, 0xabcd
M32 = (1 << 32) - 1
rotl = ((a << 7) | (a >> 25)) & M32
case("shifts_bits", {"a": str(a), "b": str(b), "c": str(c)},
     [u(a << 3, 32), u(a >> 5, 32), u(a & b, 32), u(a | b, 32), u(a ^ b, 32),
      u(rotl ^ (~b & M32), 32), u(((c << 12) & 0xffff) | (c >> 4), 16)])

# nested_loops
v = [3, 5, 7, 11, 13]
s = sum(v[i] * v[j] for i in range(5) for j in range(i, 5))
case("nested_loops", {"v": [str(t) for t in v]}, [f(s), "15"])

# runtime_loop
lo, hi = 3, 17
fact = 1
for i in range(1, 21):
    fact = fact * i % (1 << 64)
case("runtime_loop", {"lo": lo, "hi": hi}, [u(sum(i * i for i in range(lo, hi)), 32), u(fact, 64)])

# while_collatz
n = 27
x, steps = n, 0
while x != 1:
    x = x // 2 if x % 2 == 0 else 3 * x + 1
    steps += 1
case("while_collatz", {"n": str(n)}, [str(steps)])

# early_return
arr = [4, 8, 15, 16, 23, 42, 8, 1]
case("early_return", {"a": [str(t) for t in arr], "x": "8", "y": "7"}, [str(arr.index(8)), "99"])

# dynamic_index
arr = [10, 20, 30, 40, 50, 60]
i, j = 1, 4
bb = list(arr)
bb[i], bb[j] = bb[j], bb[i]
bb[(i + j) % 6] *= 10
case("dynamic_index", {"a": [str(t) for t in arr], "i": i, "j": j},
     [[f(t) for t in bb], f(arr[i] + bb[i])])

# structs
p = {"x": 1, "y": 2}
s = {"start": {"x": 3, "y": 4}, "end": {"x": 5, "y": 6}, "closed": False}
k = 2
q = {"x": p["x"] + s["end"]["x"], "y": (p["y"] + s["end"]["y"]) * 2}
t = {"start": {"x": 100, "y": 4}, "end": {"x": 5, "y": 6}, "closed": True}
ps = [dict(p), dict(q), dict(s["start"])]
ps[k]["x"] += 1
enc = lambda pt: {"x": f(pt["x"]), "y": f(pt["y"])}
case("structs",
     {"p": enc(p), "s": {"start": enc(s["start"]), "end": enc(s["end"]), "closed": False}, "k": k},
     [enc(q), {"start": enc(t["start"]), "end": enc(t["end"]), "closed": True},
      f(sum(pt["x"] for pt in ps))])

# functions
x = 5
poly = lambda z: (3 * z * z + 2 * z + 1) % P
arr = [7, 8, 9]
n = 100
case("functions", {"x": str(x), "a": [str(t) for t in arr], "n": n},
     [f(poly(poly(x))), [f(arr[0] + 1), f(arr[1]), f(arr[2])], [f(t) for t in arr],
      str(n // 7), str(n % 7)])


# mimc
def mimc(x, k):
    c = 7
    for _ in range(12):
        x = pow((x + k + c) % P, 3, P)
        c = (c * c + 1) % P
    return (x + k) % P


case("mimc", {"x": "42", "k": "1337"}, [f(mimc(42, 1337))])


# merkle
def h2(l, r):
    x = l
    for i in range(5):
        x = pow((x + r + i) % P, 5, P)
    return (x + 2 * l) % P


leaf = 11
path = [101, 202, 303, 404]
right = [False, True, True, False]
hcur = leaf
for sib, rgt in zip(path, right):
    hcur = h2(sib, hcur) if rgt else h2(hcur, sib)
case("merkle", {"leaf": str(leaf), "path": [str(t) for t in path], "right": right, "root": f(hcur)},
     [f(hcur), True])


# matmul
def mm(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) % P for j in range(3)] for i in range(3)]


A = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
B = [[9, 8, 7], [6, 5, 4], [3, 2, P - 1]]
case("matmul", {"a": [[str(t) for t in r] for r in A], "b": [[str(t) for t in r] for r in B]},
     [[[f(t) for t in r] for r in mm(mm(A, B), A)]])

# find_min
arr = [50, 20, 70, 20, 90, 5, 30, 5]
case("find_min", {"a": [str(t) for t in arr]}, [str(min(arr)), str(arr.index(min(arr)))])

# isqrt
n = 10 ** 15 + 12345
r = math.isqrt(n)
case("isqrt", {"n": str(n)}, [str(r)])

# bubble_sort
arr = [9, 3, 7, 1, 8, 2, 2, 0]
case("bubble_sort", {"a": [str(t) for t in arr]}, [[str(t) for t in sorted(arr)]])

# conditionals
a, b, k = 10, 0, 7
q = 0 if b == 0 else a * inv(b)
r = a * 2 if k > 10 else (a * 3 if k > 5 else a * 4)
s = k + 100 if k < 3 else k - 3
case("conditionals", {"a": str(a), "b": str(b), "k": k}, [f(q), f(r), u(s, 32)])


# else_if
def classify(x):
    return 1 if x < 10 else 2 if x < 100 else 3 if x < 1000 else 4


xs = [5, 50, 500, 5000, 10]
case("else_if", {"xs": [str(t) for t in xs]}, [[str(classify(t)) for t in xs]])

# tuples
a, b = 9, 4
m0, m1 = min(a, b), max(a, b) + 1
t0, t1 = 21, True
case("tuples", {"a": str(a), "b": str(b), "t": [str(t0), t1]},
     [str(m0), str(m1), [f(2 * t0), not t1], True])

# consts
xs = [1, 2, 3, 4]
s = 10 + sum(x * w for x, w in zip(xs, [1, 2, 3, 4]))
case("consts", {"xs": [str(t) for t in xs]}, [str(s), f(s * 1000)])

# pow
x, e, y = 3, 10, 1000
case("pow", {"x": str(x), "e": str(e), "y": str(y)},
     [f(x ** 5), f(x ** e), u(y ** 3, 32), "1"])

# bits
x, fv = 0xF000000F, 200
bits = [(x >> (31 - i)) & 1 for i in range(32)]
rev = int("".join(str(t) for t in reversed(bits)), 2)
case("bits", {"x": str(x), "f": str(fv)},
     [str(bin(x).count("1")), bits[0] == 1, str(rev), str(fv), f(fv + 1)])

# field_cmp
a, b = 5, P - 3
case("field_cmp", {"a": str(a), "b": str(b)}, [a < b, a <= b, a > b, (P - 1) > a, f(min(a, b))])

# range_sum
arr = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
ln = 7
case("range_sum", {"a": [str(t) for t in arr], "len": ln}, [str(sum(t for t in arr[:ln] if t % 2 == 0))])

# gcd
a, b = 462, 1071
g = math.gcd(a, b)
case("gcd", {"a": str(a), "b": str(b)}, [str(g), str(a // g * b)])


# const_fail_untaken: the failing constants are on untaken paths
case("const_fail_untaken", {"a": "3"}, ["3", "12"])


# residual_elimination: found by the random-program run (seed 2004250), shrunk by deleting lines
# while the old compiler still panicked (a kept linear constraint named a variable eliminated
# later). A model of main; the loop has an empty body.
def residual_elimination(p1):
    M = 1 << 32
    v2 = 7 * 4294967293 % M
    w6 = 9 * (18 >> ((1 | (14 if p1 else v2)) % 34)) % M % 5
    lo = (9 | 12997842446161651054 | (0 << 57)) % 3
    hi = (((9 << (w6 % 66)) % (1 << 64)) ^ (11 // 1)) % 6
    assert lo >= 0 and hi >= 0
    return [str(4294967294), str((1457852979 ^ 3) % M)]


case("residual_elimination", {"p1": False}, residual_elimination(False))



# --- CoBBl's seven benchmarks (cmu-snarks/CoBBl, zok_tests/benchmarks/benchmarks/*_cobbl.zok), at
# the sizes in the headers of circuits/cobbl_*.zok. Each model computes the result its own way
# (the programs' loops are not transcribed where a direct formulation exists).
M32 = 1 << 32


# cobbl_find_min: arr[i] = 0 + 1 + ... + i for i < high; the first minimum of arr[low..high]
def cobbl_find_min(low, b, c, high, max_high=200):
    arr = [i * (i + 1) // 2 % M32 for i in range(high)] + [0] * (max_high - high)
    window = arr[low:high]
    mn = min(window)
    idx = low + window.index(mn)
    return (mn + (idx + arr[b]) * c) % M32


case("cobbl_find_min", {"low": "0", "b": "150", "c": "3", "high": "200"},
     [str(cobbl_find_min(0, 150, 3, 200))])


# cobbl_mat_mult: A (5x5, row stride 5) times B (5xn, row stride n), A[k] = k, B[k] = 2k flat
# (5 is max_n)
def cobbl_mat_mult(x, y, z, n, max_n=5):
    mm = max_n * max_n
    A = list(range(mm))
    B = [2 * k for k in range(mm)]
    Am = [[A[max_n * i + j] for j in range(max_n)] for i in range(max_n)]
    Bm = [[B[n * j + k] for k in range(n)] for j in range(max_n)]
    Cm = [[sum(Am[i][j] * Bm[j][k] for j in range(max_n)) % M32 for k in range(n)]
          for i in range(max_n)]
    C = [v for row in Cm for v in row] + [0] * (mm - max_n * n)
    return A[x] * B[y] * C[z] % M32


case("cobbl_mat_mult", {"x": "3", "y": "7", "z": "13", "n": "5"},
     [str(cobbl_mat_mult(3, 7, 13, 5))])


# cobbl_kmp_search: txt[i] = 0 + ... + i, the pattern is txt[n-m-b .. n-b]; CoBBl's loop ends with
# found = (end of the last match) - lps[m - 1], lps the prefix function of the pattern
def cobbl_kmp_search(b, c, n, m):
    txt = [i * (i + 1) // 2 % M32 for i in range(n)]
    pat = txt[n - m - b: n - b]
    lps = [max(k for k in range(q + 1) if pat[:k] == pat[q + 1 - k: q + 1]) for q in range(m)]
    starts = [s for s in range(n - m + 1) if txt[s: s + m] == pat]
    found = starts[-1] + m - lps[m - 1] if starts else 0
    return (found + (pat[b] + txt[b]) * c) % M32


case("cobbl_kmp_search", {"b": "5", "c": "1", "n": "240", "m": "24"},
     [str(cobbl_kmp_search(5, 1, 240, 24))])


# cobbl_dna_align: an LCS of A and B by dynamic programming (ties go right, as in CoBBl), walked
# from (0, 0); characters of A on the walk's diagonals, zeros moved to the end (stable)
def cobbl_dna_align(x, n, max_n=5):
    A = [i * (i + 1) // 2 % M32 for i in range(n)]
    B = [(7 - a) % M32 for a in A]
    L = [[0] * (n + 1) for _ in range(n + 1)]
    move = {}
    for i in reversed(range(n)):
        for j in reversed(range(n)):
            if A[i] == B[j]:
                L[i][j], move[i, j] = 1 + L[i + 1][j + 1], (1, 1)
            elif L[i + 1][j] == L[i][j + 1] + 1:
                L[i][j], move[i, j] = L[i + 1][j], (1, 0)
            else:
                L[i][j], move[i, j] = L[i][j + 1], (0, 1)
    lcs = [0] * n
    i = j = 0
    while i < n and j < n:
        di, dj = move[i, j]
        if (di, dj) == (1, 1):
            lcs[i] = A[i]
        i, j = i + di, j + dj
    assert len([v for v in lcs if v]) <= L[0][0]
    lcs = [v for v in lcs if v != 0] + [0] * max_n
    return lcs[x]


case("cobbl_dna_align", {"x": "0", "n": "5"}, [str(cobbl_dna_align(0, 5))])


# cobbl_rle_codec: the text 1, 2, 2, 3, 3, 3, ...; runs as (character, count) pairs
def cobbl_rle_codec(x, y, n, max_n=20):
    txt = [k for k in range(1, n + 1) for _ in range(k)][:n]
    compr = []
    for k, g in itertools.groupby(txt):
        compr += [k, len(list(g))]
    out = [k for k, cnt in zip(compr[::2], compr[1::2]) for _ in range(cnt)]
    assert out == txt
    txt, compr = txt + [0] * (max_n - n), compr + [0] * (2 * max_n - len(compr))
    out = out + [0] * (max_n - n)
    return (txt[x] + compr[x] + out[x]) * y % M32


case("cobbl_rle_codec", {"x": "9", "y": "3", "n": "20"}, [str(cobbl_rle_codec(9, 3, 20))])


# cobbl_sha256: the SHA-256 compression function (constants from their definition, checked
# against hashlib on one padded block) of the block w[i] = 0 + ... + i, from the IV; word m
def rotr32(v, k):
    return ((v >> k) | (v << (32 - k))) % M32


def sha256_constants():
    primes = [q for q in range(2, 312) if all(q % d for d in range(2, q))]

    def icbrt(v):
        r = int(round(v ** (1 / 3)))
        while r ** 3 > v:
            r -= 1
        while (r + 1) ** 3 <= v:
            r += 1
        return r

    return ([icbrt(q << 96) % M32 for q in primes[:64]],
            [math.isqrt(q << 64) % M32 for q in primes[:8]])


def sha256_compress(state, block):
    K, _ = sha256_constants()
    w = list(block)
    for i in range(16, 64):
        s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3)
        s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10)
        w.append((w[i - 16] + s0 + w[i - 7] + s1) % M32)
    a, b, c, d, e, f_, g, h = state
    for i in range(64):
        t1 = (h + (rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25)) + ((e & f_) ^ (~e & g))
              + K[i] + w[i]) % M32
        t2 = ((rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) % M32
        a, b, c, d, e, f_, g, h = (t1 + t2) % M32, a, b, c, (d + t1) % M32, e, f_, g
    return [(s + v) % M32 for s, v in zip(state, [a, b, c, d, e, f_, g, h])]


def cobbl_sha256(m, n, s=None):
    """With `s`, hash i's word k is 0 + ... + k + (k + 1) (s + i) (a run-time message)."""
    _, iv = sha256_constants()
    abc = b"abc" + b"\x80" + b"\0" * 52 + struct.pack(">Q", 24)
    digest = sha256_compress(iv, struct.unpack(">16I", abc))
    assert struct.pack(">8I", *digest) == hashlib.sha256(b"abc").digest()
    if s is None:
        block = [i * (i + 1) // 2 for i in range(16)]
        return sum(sha256_compress(iv, block)[m] for _ in range(n)) % M32
    blocks = [[(k * (k + 1) // 2 + (k + 1) * (s + i)) % M32 for k in range(16)] for i in range(n)]
    return sum(sha256_compress(iv, b)[m] for b in blocks) % M32


case("cobbl_sha256", {"m": "3", "n": "1"}, [str(cobbl_sha256(3, 1))])


# cobbl_poseidon: CoBBl's rounds (ark, sbox and mix over the first n state words, as in CoBBl).
# The round constants are data of the program (a prefix of CoBBl's poseidon_constants.zok): they
# are read from the program file and checked against the SHA-256 of that prefix as in CoBBl.
def cobbl_poseidon_constants():
    here = os.path.dirname(os.path.abspath(__file__))
    text = open(os.path.join(here, "cobbl_poseidon.zok")).read()

    def const_array(name):
        body = re.search(r"const field\[\d+\] " + name + r" = \[([^\]]*)\];", text).group(1)
        return [int(t) for t in body.replace(",", " ").split()]

    C, Mx = const_array("POSEIDON_C"), const_array("POSEIDON_M")
    key = ",".join(map(str, C)) + ";" + ",".join(map(str, Mx))
    assert hashlib.sha256(key.encode()).hexdigest() == \
        "a27acd308ccf4125f5c20c68a9f6426b71a3635c441c91d3687f0ffde5697074"
    return C, Mx


def cobbl_poseidon(n, max_n=1, constants=None, s=0):
    """`constants`: (C, M), CoBBl's by default at max_n 1; input word i is 0 + ... + i + s."""
    C, Mx = constants or cobbl_poseidon_constants()
    t, full, partial = n + 1, 8, 57
    inputs = [i * (i + 1) // 2 + s for i in range(max_n)]
    state = [0] * (max_n + 1)
    state[1:t] = inputs[:t - 1]
    for r in range(full + partial):
        state = [(state[i] + C[r * t + i]) % P if i < n else state[i] for i in range(max_n + 1)]
        state = [pow(v, 5, P) if i == 0 or (i < n and (r < full // 2 or r >= full // 2 + partial))
                 else v for i, v in enumerate(state)]
        state = [sum(state[j] * Mx[i * max_n + 1 + j] for j in range(n)) % P if i < n else 0
                 for i in range(max_n + 1)]
    return state[0]


case("cobbl_poseidon", {"n": "1"}, [f(cobbl_poseidon(1))])


# The programs of issue 15's table (block formation): counted loops, a bit loop, a runtime loop
# with an early return, a long counted loop, a sudoku check.

# matmul_4x4: C = A B over the field
A = [[4 * i + j for j in range(4)] for i in range(4)]
B = [[i + j for j in range(4)] for i in range(4)]
case("matmul_4x4", {"a": [[f(x) for x in r] for r in A], "b": [[f(x) for x in r] for r in B]},
     [[[f(sum(A[i][k] * B[k][j] for k in range(4))) for j in range(4)] for i in range(4)]])

# popcount: the number of one bits of a u32
case("popcount", {"x": "3735928559"}, [u(bin(3735928559).count("1"), 32)])

# square_multiply: b^e over the field, e's 32 bits from the most significant
case("square_multiply", {"b": "3", "e": "1234567"}, [f(pow(3, 1234567, P))])


# collatz: the number of steps of the trajectory from n to 1, at most max
def collatz(n, most):
    x = n
    for i in range(most):
        if x == 1:
            return i
        x = x // 2 if x % 2 == 0 else (3 * x + 1) % (1 << 32)
    return most


case("collatz", {"n": "27", "max": "200"}, [u(collatz(27, 200), 32)])


# counted_loop_10k: acc = acc^2 + x, 10,000 times, from acc = x
def counted_loop(x):
    acc = x
    for _ in range(10000):
        acc = (acc * acc + x) % P
    return acc


case("counted_loop_10k", {"x": "3"}, [f(counted_loop(3))])

# sudoku_check: every row and column of a valid grid holds 1..9
G = [[(3 * r + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)]
assert all(sorted(row) == list(range(1, 10)) for row in G)
assert all(sorted(G[r][c] for r in range(9)) == list(range(1, 10)) for c in range(9))
case("sudoku_check", {"g": [[u(x, 32) for x in row] for row in G]}, [True])


# cold_branch: acc = acc^2 + x per iteration, 20 more times when heavy
def cold_branch(n, heavy, x):
    acc = x
    for _ in range(n):
        acc = (acc * acc + x) % P
        if heavy:
            for _ in range(20):
                acc = (acc * acc + x) % P
    return acc


case("cold_branch", {"n": "100", "heavy": False, "x": "3"}, [f(cold_branch(100, False, 3))])


def bit_reverse32(v):
    return int("{:032b}".format(v)[::-1], 2)


# bit_reverse_masks, bit_reverse_loop, bit_concat
v = 0x12345678
case("bit_reverse_masks", {"v": str(v)}, [u(bit_reverse32(v), 32)])
case("bit_reverse_loop", {"v": str(v)}, [u(bit_reverse32(v), 32)])
a, b = 7, 200
case("bit_concat", {"v": str(v), "a": str(a), "b": str(b)},
     [u(bit_reverse32(v), 32), u(((a << 8) + b) ^ 0xFFFF, 32)])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for name, (inputs, outputs) in sorted(CASES.items()):
        assert os.path.exists(os.path.join(here, name + ".zok")), name
        with open(os.path.join(here, name + ".json"), "w") as fh:
            json.dump(inputs, fh, indent=1)
            fh.write("\n")
        with open(os.path.join(here, name + ".expected.json"), "w") as fh:
            json.dump({"outputs": outputs}, fh, indent=1)
            fh.write("\n")
    print(f"wrote {len(CASES)} cases")


if __name__ == "__main__":
    main()
