"""Plain-Python models of the primitives the application benchmark uses, written from their
definitions (never from zkbc's output) and checked against independent known answers when the
module is imported:

- SHA-256: hashlib; the bare compression function (the stdlib's `hashes/sha256/sha256` on
  unpadded blocks) is FIPS 180-4 section 6.2.2, checked against hashlib on padded messages;
- Keccak-f[1600] and the Keccak-256 / SHA3-256 sponges (FIPS 202), checked against
  hashlib.sha3_256 and, when pycryptodome is installed, Crypto.Hash.keccak;
- Poseidon over BN254 (x^5, R_F = 8, R_P from the paper's table), its round constants and MDS
  matrices read from zkbc's `stdlib/hashes/poseidon/constants.zok`, checked against
  circomlib's known answer Poseidon([1, 2]);
- Baby Jubjub (EIP-2494) with ZoKrates' generator, and EdDSA as `signatures/verifyEddsa`
  checks it (h = SHA-256(R.x || A.x || M), S = r + h k mod l), checked against ZoKrates' own
  EdDSA test vector;
- Grumpkin, y^2 = x^3 - 17 over BN254's scalar field, affine arithmetic.
"""
import ast
import hashlib
import os
import re
import sys

P = 21888242871839275222246405745257275088548364400416034343698204186575808495617
HERE = os.path.dirname(os.path.abspath(__file__))

# The square root mod P of the corpus' Baby Jubjub model (tests/babyjubjub.py), shared.
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))
from babyjubjub import sqrt_mod  # noqa: E402
STDLIB = os.path.join(HERE, "..", "..", "stdlib")


def inv(x):
    return pow(x % P, P - 2, P)


# ---------------------------------------------------------------------------------------------
# SHA-256

SHA_K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]
SHA_IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
M32 = 0xffffffff


def _rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & M32


def sha256_compress(h, block):
    """One SHA-256 compression of the sixteen 32-bit words `block` into the state `h`."""
    w = list(block)
    for t in range(16, 64):
        s0 = _rotr(w[t - 15], 7) ^ _rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
        s1 = _rotr(w[t - 2], 17) ^ _rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
        w.append((w[t - 16] + s0 + w[t - 7] + s1) & M32)
    a, b, c, d, e, f, g, hh = h
    for t in range(64):
        t1 = (hh + (_rotr(e, 6) ^ _rotr(e, 11) ^ _rotr(e, 25)) + ((e & f) ^ (~e & g))
              + SHA_K[t] + w[t]) & M32
        t2 = ((_rotr(a, 2) ^ _rotr(a, 13) ^ _rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) & M32
        a, b, c, d, e, f, g, hh = (t1 + t2) & M32, a, b, c, (d + t1) & M32, e, f, g
    return [(x + y) & M32 for x, y in zip(h, [a, b, c, d, e, f, g, hh])]


def sha256_blocks(blocks):
    """The stdlib's `hashes/sha256/sha256::<N>`: compress each block from the IV, no padding."""
    h = list(SHA_IV)
    for blk in blocks:
        h = sha256_compress(h, blk)
    return h


def words_of(data):
    return [int.from_bytes(data[i:i + 4], "big") for i in range(0, len(data), 4)]


def bytes_of_words(ws):
    return b"".join(w.to_bytes(4, "big") for w in ws)


def sha256(data):
    return hashlib.sha256(data).digest()


def _check_sha():
    for msg in [b"", b"abc", bytes(range(64)), bytes(range(100))]:
        padded = msg + b"\x80" + bytes((55 - len(msg)) % 64) + (8 * len(msg)).to_bytes(8, "big")
        blocks = [words_of(padded[i:i + 64]) for i in range(0, len(padded), 64)]
        assert bytes_of_words(sha256_blocks(blocks)) == sha256(msg)


# ---------------------------------------------------------------------------------------------
# Keccak (FIPS 202)

KECCAK_RC = [
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]
M64 = (1 << 64) - 1


def _rho_offsets():
    # FIPS 202 algorithm 2: offsets along the walk (x, y) -> (y, 2x + 3y) from (1, 0).
    r = [[0] * 5 for _ in range(5)]
    x, y = 1, 0
    for t in range(24):
        r[x][y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return r


RHO = _rho_offsets()


def _rotl64(v, n):
    return ((v << n) | (v >> (64 - n))) & M64 if n else v


def keccak_f(lanes):
    """KECCAK-f[1600] on 25 lanes, lane (x, y) at index x + 5 y."""
    a = [[lanes[x + 5 * y] for y in range(5)] for x in range(5)]
    for rc in KECCAK_RC:
        c = [a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4] for x in range(5)]
        d = [c[(x - 1) % 5] ^ _rotl64(c[(x + 1) % 5], 1) for x in range(5)]
        a = [[a[x][y] ^ d[x] for y in range(5)] for x in range(5)]
        b = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                b[y][(2 * x + 3 * y) % 5] = _rotl64(a[x][y], RHO[x][y])
        a = [[b[x][y] ^ (~b[(x + 1) % 5][y] & b[(x + 2) % 5][y]) for y in range(5)]
             for x in range(5)]
        a[0][0] ^= rc
    return [a[i % 5][i // 5] for i in range(25)]


def keccak_sponge(data, out_bytes, delim):
    rate = 200 - 2 * out_bytes
    msg = bytearray(data) + bytes([delim])
    msg += bytes((-len(msg)) % rate)
    msg[-1] |= 0x80
    lanes = [0] * 25
    for off in range(0, len(msg), rate):
        block = msg[off:off + rate]
        for i in range(rate // 8):
            lanes[i] ^= int.from_bytes(block[8 * i:8 * i + 8], "little")
        lanes = keccak_f(lanes)
    out = b"".join(v.to_bytes(8, "little") for v in lanes)
    return out[:out_bytes]


def keccak256(data):
    return keccak_sponge(data, 32, 0x01)


def sha3_256(data):
    return keccak_sponge(data, 32, 0x06)


def _check_keccak():
    for msg in [b"", b"abc", bytes(range(135)), bytes(range(136)), bytes(range(200))]:
        assert sha3_256(msg) == hashlib.sha3_256(msg).digest()
    # The Ethereum known answer: keccak256("") = c5d2460186f7...a470.
    assert keccak256(b"").hex() == \
        "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    try:
        from Crypto.Hash import keccak as ckeccak  # pycryptodome, when installed
    except ImportError:
        return
    for msg in [b"abc", bytes(range(64)), bytes(range(136)), bytes(range(250))]:
        assert keccak256(msg) == ckeccak.new(digest_bits=256, data=msg).digest()


# ---------------------------------------------------------------------------------------------
# Poseidon, from zkbc's stdlib constants

def _zok_const(text, name):
    m = re.search(r"const\s+field(?:\[\d+\])+\s+" + name + r"\s*=\s*(\[.*?\]);", text, re.S)
    body = re.sub(r"//[^\n]*", "", m.group(1))
    return ast.literal_eval(body)


def _poseidon_params():
    with open(os.path.join(STDLIB, "hashes", "poseidon", "constants.zok")) as fh:
        text = fh.read()
    return _zok_const(text, "POSEIDON_C"), _zok_const(text, "POSEIDON_M")


POSEIDON_C, POSEIDON_M = _poseidon_params()
POSEIDON_RP = [56, 57, 56, 60, 60, 63]


def poseidon_permute(state):
    """The Poseidon permutation of width t = len(state), 2 <= t <= 7."""
    t = len(state)
    c, m, rp = POSEIDON_C[t - 2], POSEIDON_M[t - 2], POSEIDON_RP[t - 2]
    state = list(state)
    for r in range(8 + rp):
        state = [(s + c[r * t + i]) % P for i, s in enumerate(state)]
        full = r < 4 or r >= 4 + rp
        state = [pow(s, 5, P) if full or i == 0 else s for i, s in enumerate(state)]
        state = [sum(m[i][j] * state[j] for j in range(t)) % P for i in range(t)]
    return state


def poseidon(inputs):
    return poseidon_permute([0] + [x % P for x in inputs])[0]


def _check_poseidon():
    # circomlib's known answer
    assert poseidon([1, 2]) == \
        7853200120776062878684798364095072458815029376092732009249414926327459813530


# ---------------------------------------------------------------------------------------------
# Baby Jubjub and EdDSA

BJJ_A = 168700
BJJ_D = 168696
BJJ_L = 2736030358979909402780800718157159386076813972158567259200215660948447373041
BJJ_G = (16540640123574156134436876038791482806971768689494387082833631921987005038935,
         20819045374670962167435360035096875258406992893633759881276124905556507972311)
BJJ_ZERO = (0, 1)


def bjj_add(p, q):
    (x1, y1), (x2, y2) = p, q
    t = BJJ_D * x1 * x2 * y1 * y2
    return ((x1 * y2 + y1 * x2) * inv(1 + t) % P, (y1 * y2 - BJJ_A * x1 * x2) * inv(1 - t) % P)


def bjj_mul(k, p):
    acc = BJJ_ZERO
    for bit in bin(k)[2:]:
        acc = bjj_add(acc, acc)
        if bit == "1":
            acc = bjj_add(acc, p)
    return acc


def bjj_on_curve(p):
    x, y = p
    return (BJJ_A * x * x + y * y - 1 - BJJ_D * x * x * y * y) % P == 0


def eddsa_hash(r_point, a_point, message):
    data = r_point[0].to_bytes(32, "big") + a_point[0].to_bytes(32, "big") + message
    return int.from_bytes(sha256(data), "big")


def eddsa_sign(k, message):
    """(R, S, A): the signature of the 64-byte message under the key k (deterministic r)."""
    assert len(message) == 64
    a_point = bjj_mul(k, BJJ_G)
    r = int.from_bytes(sha256(k.to_bytes(32, "big") + message), "big") % BJJ_L
    r_point = bjj_mul(r, BJJ_G)
    s = (r + eddsa_hash(r_point, a_point, message) * k) % BJJ_L
    return r_point, s, a_point


def eddsa_verify(r_point, s, a_point, message):
    h = eddsa_hash(r_point, a_point, message)
    return bjj_mul(s, BJJ_G) == bjj_add(r_point, bjj_mul(h, a_point))


def _check_eddsa():
    assert bjj_on_curve(BJJ_G) and bjj_mul(BJJ_L, BJJ_G) == BJJ_ZERO
    # ZoKrates' own EdDSA test vector (zokrates_stdlib tests, message 0...05).
    zr = (20197911405516193152560090893341588680064377398162745404177962124159545390767,
          9171190326927340493105240100684097896571028312802691203521747450053192554927)
    zs = 6050429445242986634735172402304257690628456074852538287769363221635064371045
    za = (14897476871502190904409029696666322856887678969656209656241038339251270171395,
          16668832459046858928951622951481252834155254151733002984053501254009901876174)
    assert eddsa_verify(zr, zs, za, bytes(63) + bytes([5]))


# ---------------------------------------------------------------------------------------------
# Grumpkin: y^2 = x^3 - 17 over BN254's scalar field; None is the point at infinity.

GRUMPKIN_B = P - 17


def grumpkin_point(x):
    """The point of Grumpkin with abscissa x and the smaller of the two ordinates."""
    y = sqrt_mod(x ** 3 + GRUMPKIN_B)
    assert y is not None
    return (x, min(y, P - y))


def grumpkin_on_curve(p):
    return p is None or (p[1] ** 2 - p[0] ** 3 - GRUMPKIN_B) % P == 0


def grumpkin_add(p, q):
    if p is None:
        return q
    if q is None:
        return p
    (x1, y1), (x2, y2) = p, q
    if x1 == x2:
        if (y1 + y2) % P == 0:
            return None
        lam = 3 * x1 * x1 * inv(2 * y1) % P
    else:
        lam = (y2 - y1) * inv(x2 - x1) % P
    x3 = (lam * lam - x1 - x2) % P
    return (x3, (lam * (x1 - x3) - y1) % P)


def grumpkin_mul(k, p):
    acc = None
    for bit in bin(k)[2:]:
        acc = grumpkin_add(acc, acc)
        if bit == "1":
            acc = grumpkin_add(acc, p)
    return acc


def _check_grumpkin():
    g = grumpkin_point(1)
    assert grumpkin_on_curve(g)
    a, b = grumpkin_mul(123456789, g), grumpkin_mul(987654321, g)
    assert grumpkin_add(a, b) == grumpkin_mul(123456789 + 987654321, g)
    assert grumpkin_on_curve(grumpkin_add(a, b))


_check_sha()
_check_keccak()
_check_poseidon()
_check_eddsa()
_check_grumpkin()
