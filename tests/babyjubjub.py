#!/usr/bin/env python3
"""A plain-Python reference for the Baby Jubjub test vectors of `tests/stdlib_builtin.rs` and of
README's EdDSA example: the Pedersen hash of `hashes/pedersen/512bit{,Bool}` and EdDSA as
`signatures/verifyEddsa` checks it, computed from their definitions with integers, never
with zkbc.

- Baby Jubjub (EIP-2494): a x^2 + y^2 = 1 + d x^2 y^2 over BN254's scalar field, a = 168700,
  d = 168696; the subgroup of prime order l; the generator G is ZoKrates' (`ecc/
  babyjubjubParams`).
- Pedersen: the 512 bits and one 0 bit make 171 windows of 3 bits (b0, b1, b2); window j
  contributes (1 + b0 + 2 b1) (-1)^b2 16^(j mod 62) times base point j div 62, and the hash
  is the sum, compressed: the 256 bits of y, most significant first, with the first replaced
  by the parity of x. Base point i is hash to point of `b"%-28s%04X" % (b"test", i)` (SHA-256
  as y, incremented until the curve has a point with that y, the root x above p / 2, times the
  cofactor 8). Here the sum is taken per segment as one integer scalar times the base point.
- EdDSA (ZoKrates' convention): A = k G; R = r G; h = SHA-256(R.x || A.x || M) read as a
  256-bit big-endian integer, R.x and A.x as 32 big-endian bytes, M the 64-byte message;
  S = r + h k mod l. Valid when S G = R + h A.

`python3 tests/babyjubjub.py` prints every vector the tests and README use;
`python3 tests/babyjubjub.py --eddsa-json > examples/eddsa.json` writes README's example inputs.
"""

import hashlib
import json
import sys

P = 21888242871839275222246405745257275088548364400416034343698204186575808495617
A_COEF = 168700
D_COEF = 168696
L = 2736030358979909402780800718157159386076813972158567259200215660948447373041
G = (16540640123574156134436876038791482806971768689494387082833631921987005038935,
     20819045374670962167435360035096875258406992893633759881276124905556507972311)
ZERO = (0, 1)


def inv(x):
    return pow(x % P, P - 2, P)


def add(p, q):
    (x1, y1), (x2, y2) = p, q
    t = D_COEF * x1 * x2 * y1 * y2
    return ((x1 * y2 + y1 * x2) * inv(1 + t) % P, (y1 * y2 - A_COEF * x1 * x2) * inv(1 - t) % P)


def neg(p):
    return ((-p[0]) % P, p[1])


def mul(k, p):
    if k < 0:
        return mul(-k, neg(p))
    acc = ZERO
    for bit in bin(k)[2:]:
        acc = add(acc, acc)
        if bit == "1":
            acc = add(acc, p)
    return acc


def on_curve(p):
    x, y = p
    return (A_COEF * x * x + y * y - 1 - D_COEF * x * x * y * y) % P == 0


def sqrt_mod(n):
    """A square root of n mod P by brute-force-free Tonelli-Shanks; None for a non-square."""
    n %= P
    if n == 0:
        return 0
    if pow(n, (P - 1) // 2, P) != 1:
        return None
    q, s = P - 1, 0
    while q % 2 == 0:
        q, s = q // 2, s + 1
    z = next(z for z in range(2, 100) if pow(z, (P - 1) // 2, P) == P - 1)
    m, c, t, r = s, pow(z, q, P), pow(n, q, P), pow(n, (q + 1) // 2, P)
    while t != 1:
        i, t2 = 0, t
        while t2 != 1:
            t2, i = t2 * t2 % P, i + 1
        b = pow(c, 1 << (m - i - 1), P)
        m, c, t, r = i, b * b % P, t * b * b % P, r * b % P
    return r


def hash_to_point(data):
    y = int.from_bytes(hashlib.sha256(data).digest(), "big") % P
    while True:
        x = sqrt_mod((y * y - 1) * inv(D_COEF * y * y - A_COEF))
        if x is not None:
            break
        y += 1
    x = max(x, P - x)
    return mul(8, (x, y))


def pedersen(bits):
    """The compressed Pedersen hash of 512 bits (a list of 0/1, in order) as 256 bits."""
    assert len(bits) == 512
    bits = bits + [0]
    total = ZERO
    for seg in range(3):
        scalar = 0
        for j in range(62):
            w = 62 * seg + j
            if w == 171:
                break
            b0, b1, b2 = bits[3 * w: 3 * w + 3]
            scalar += (1 + b0 + 2 * b1) * (-1) ** b2 * 16 ** j
        base = hash_to_point(b"%-28s%04X" % (b"test", seg))
        total = add(total, mul(scalar, base))
    x, y = total
    word = y | ((x & 1) << 255)
    return [int(c) for c in format(word, "0256b")]


def bits_of_bytes(data):
    return [int(c) for byte in data for c in format(byte, "08b")]


def words(bits):
    return ["0x%08x" % int("".join(map(str, bits[i: i + 32])), 2) for i in range(0, len(bits), 32)]


def eddsa_hash(r_point, a_point, message):
    data = r_point[0].to_bytes(32, "big") + a_point[0].to_bytes(32, "big") + message
    return int.from_bytes(hashlib.sha256(data).digest(), "big")


def sign(k, message):
    a_point = mul(k, G)
    r = int.from_bytes(hashlib.sha256(k.to_bytes(32, "big") + message).digest(), "big") % L
    r_point = mul(r, G)
    s = (r + eddsa_hash(r_point, a_point, message) * k) % L
    return r_point, s, a_point


def verify(r_point, s, a_point, message):
    h = eddsa_hash(r_point, a_point, message)
    return mul(s, G) == add(r_point, mul(h, a_point))


def example_signature():
    """README's example: a key derived from a phrase signs a 64-byte message."""
    k = int.from_bytes(hashlib.sha256(b"zkbc EdDSA example secret key").digest(), "big") % L
    message = b"zkbc checks an EdDSA signature over Baby Jubjub in one circuit.."
    assert len(message) == 64
    r_point, s, a_point = sign(k, message)
    return r_point, s, a_point, message


def main():
    r_point, s, a_point, message = example_signature()
    assert verify(r_point, s, a_point, message)
    if sys.argv[1:] == ["--eddsa-json"]:
        print(json.dumps({"R": [str(c) for c in r_point], "S": str(s),
                          "A": [str(c) for c in a_point],
                          "M0": words(bits_of_bytes(message[:32])),
                          "M1": words(bits_of_bytes(message[32:]))}, indent=1))
        return
    assert on_curve(G) and mul(L, G) == ZERO
    zokrates_entropy = bytes.fromhex(
        "17d2e6d95c74e97c4bf60cc0c6a6b417bafc54e9205c8080261f42449634d6df"
        "8e7f5e066a296ecf1dc1838c791c8f5aee9eca332100f189c96b0288c6b1501f")
    vectors = {
        "ZoKrates' entropy": zokrates_entropy,
        "bytes 0x00..0x3f": bytes(range(64)),
        "all zero bits": bytes(64),
        "all one bits": bytes([255] * 64),
    }
    for name, data in vectors.items():
        print(f"pedersen({name}) = {words(pedersen(bits_of_bytes(data)))}")

    # ZoKrates' own EdDSA test vector verifies under this definition.
    zr = (20197911405516193152560090893341588680064377398162745404177962124159545390767,
          9171190326927340493105240100684097896571028312802691203521747450053192554927)
    zs = 6050429445242986634735172402304257690628456074852538287769363221635064371045
    za = (14897476871502190904409029696666322856887678969656209656241038339251270171395,
          16668832459046858928951622951481252834155254151733002984053501254009901876174)
    zm = bytes(63) + bytes([5])
    print(f"ZoKrates' EdDSA vector verifies: {verify(zr, zs, za, zm)}")

    assert not verify(r_point, (s + 1) % L, a_point, message)
    print("EdDSA example (inputs of examples/eddsa.zok):")
    print(f"  R = [\"{r_point[0]}\", \"{r_point[1]}\"]")
    print(f"  S = \"{s}\"")
    print(f"  A = [\"{a_point[0]}\", \"{a_point[1]}\"]")
    print(f"  M0 = {words(bits_of_bytes(message[:32]))}")
    print(f"  M1 = {words(bits_of_bytes(message[32:]))}")
    print(f"  with S + 1 it verifies: {verify(r_point, s + 1, a_point, message)}")


if __name__ == "__main__":
    main()
