#!/usr/bin/env python3
"""Inputs and expected outputs of the application benchmark (circuits/apps), computed in plain
Python without zkbc: the hashes, signatures and curve operations come from `models.py` (each
model checked there against an independent known answer), the application logic is written
out here again from what each program is meant to do.

Running `python3 circuits/apps/expected.py` writes NAME.json (the inputs) and
NAME.expected.json ({"outputs": [...]}) beside every NAME.zok. Encoding as in
circuits/expected.py: field and uN as decimal strings, bool as true/false, arrays as lists,
structs as objects; main's outputs are listed one by one (a tuple returned by main is its
elements, a single value is one element, no value none).
"""
import hashlib
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import (  # noqa: E402
    BJJ_G, BJJ_L, P, bjj_add, bjj_mul, bjj_on_curve, bytes_of_words, eddsa_sign, eddsa_verify,
    grumpkin_add, grumpkin_mul, grumpkin_on_curve, grumpkin_point, keccak256, poseidon,
    poseidon_permute, sha256, sha256_blocks, sha3_256, words_of)

M32 = 0xffffffff
HERE = os.path.dirname(os.path.abspath(__file__))


def f(x):
    return str(x % P)


def u(x, w):
    assert 0 <= x < 1 << w, (x, w)
    return str(x)


def fl(xs):
    return [f(x) for x in xs]


def ul(xs, w):
    return [u(x, w) for x in xs]


def rand_field(tag, i=0):
    """A deterministic pseudo-random field element."""
    return int.from_bytes(sha256(b"zkbc apps %s %d" % (tag.encode(), i)), "big") % P


def rand_bytes(tag, n):
    out = b""
    i = 0
    while len(out) < n:
        out += sha256(b"zkbc apps bytes %s %d" % (tag.encode(), i))
        i += 1
    return out[:n]


CASES = {}


def case(name, inputs, outputs):
    assert name not in CASES, name
    CASES[name] = (inputs, outputs)


def h2(left, right):
    return poseidon([left, right])


def poseidon_path(tag, leaf, depth, index):
    """Siblings (pseudo-random), directions (true: the sibling is on the left) and the root."""
    siblings = [rand_field(tag, i) for i in range(depth)]
    left = [(index >> i) & 1 == 1 for i in range(depth)]
    node = leaf
    for s, lft in zip(siblings, left):
        node = h2(s, node) if lft else h2(node, s)
    return siblings, left, node


# ---------------------------------------------------------------------------------------------
# Poseidon Merkle membership

# poseidon_merkle16: loop; returns the root
leaf = rand_field("pm16 leaf")
sib, left, root = poseidon_path("pm16", leaf, 16, 0xB5E3)
case("poseidon_merkle16",
     {"root": f(root), "leaf": f(leaf), "siblings": fl(sib), "sibling_left": left},
     [f(root)])

# poseidon_merkle16_unrolled: generated, returns whether the path leads to the root
leaf = rand_field("pm16u leaf")
sib, left, root = poseidon_path("pm16u", leaf, 16, 0x4C1D)
case("poseidon_merkle16_unrolled",
     {"root": f(root), "leaf": f(leaf), "path": fl(sib), "dir": left},
     [True])

# poseidon_merkle20: Semaphore-style group membership, index bits as directions
nul, trap, topic = rand_field("pm20 nullifier"), rand_field("pm20 trapdoor"), 0xC0FFEE
index = 0x9A3F1
commitment = h2(nul, trap)
sib, _, root = poseidon_path("pm20", commitment, 20, index)
case("poseidon_merkle20",
     {"group_root": f(root), "topic": f(topic), "identity_nullifier": f(nul),
      "identity_trapdoor": f(trap), "index": u(index, 32), "siblings": fl(sib)},
     [f(h2(nul, topic))])

# poseidon_merkle20_unrolled: generated, one helper call per level
leaf = rand_field("pm20u leaf")
sib, left, root = poseidon_path("pm20u", leaf, 20, 0x6D2B7)
case("poseidon_merkle20_unrolled",
     {"root": f(root), "leaf": f(leaf), "siblings": fl(sib), "sibling_is_left": left},
     [f(root)])

# poseidon_merkle32: a note commitment in a depth-32 tree; the nullifier and the value
note = {"owner": rand_field("pm32 owner"), "value": 123456789012345, "rho": rand_field("pm32 rho"),
        "rcm": rand_field("pm32 rcm")}
cm = poseidon([note["owner"], note["value"], note["rho"], note["rcm"]])
sib, left, root = poseidon_path("pm32", cm, 32, 0xDEADBEEF)
case("poseidon_merkle32",
     {"anchor": f(root),
      "note": {"owner": f(note["owner"]), "value": u(note["value"], 64), "rho": f(note["rho"]),
               "rcm": f(note["rcm"])},
      "path_indices": left, "path_elements": fl(sib)},
     [f(h2(note["rho"], note["owner"])), u(note["value"], 64)])

# poseidon_merkle32_unrolled: generated, scalar parameters; no outputs
leaf = rand_field("pm32u leaf")
sib, left, root = poseidon_path("pm32u", leaf, 32, 0x13572468)
inputs = {"root": f(root), "leaf": f(leaf)}
for i in range(32):
    inputs[f"sibling_{i}"] = f(sib[i])
    inputs[f"left_{i}"] = left[i]
case("poseidon_merkle32_unrolled", inputs, [])

# poseidon_rounds: the permutation written out; hash of (a, b) twice, then a sponge step
a, b, c, d = 1, 2, rand_field("pr c"), rand_field("pr d")
s1 = poseidon_permute([0, a, b])
s2 = poseidon_permute([s1[0], s1[1] + c, s1[2] + d])
case("poseidon_rounds", {"a": f(a), "b": f(b), "c": f(c), "d": f(d)},
     [f(s1[0]), f(poseidon([a, b])), f(s2[1])])

# ---------------------------------------------------------------------------------------------
# SHA-256 Merkle paths


def sha256_packed(fields):
    """hashes/sha256/512bitPacked: four 128-bit halves in, two out."""
    d = sha256(b"".join(x.to_bytes(16, "big") for x in fields))
    return [int.from_bytes(d[:16], "big"), int.from_bytes(d[16:], "big")]


# sha256_merkle16: packed digests, leaf = sha256packed([0, 0, 0, secret])
secret = rand_field("sm16 secret") >> 126
node = sha256_packed([0, 0, 0, secret])
path = [sha256_packed([0, 0, i, rand_field("sm16", i) >> 126]) for i in range(16)]
index = 0x2A5C
left = [(index >> i) & 1 == 1 for i in range(16)]
for s, lft in zip(path, left):
    node = sha256_packed(s + node if lft else node + s)
case("sha256_merkle16",
     {"root": fl(node), "secret": f(secret), "path": [fl(p) for p in path], "sibling_left": left},
     [True])

# sha256_merkle32: leaf = SHA-256 of the account record, parents = bare compression
account = {"address": words_of(rand_bytes("sm32 address", 20)), "balance": [0x1, 0x2540BE400 & M32],
           "nonce": 17}
record = bytes_of_words(account["address"] + account["balance"] + [account["nonce"]])
digest = words_of(sha256(record))
path = [words_of(rand_bytes("sm32 path %d" % i, 32)) for i in range(32)]
direction = [bool((0x8BADF00D >> i) & 1) for i in range(32)]
for s, dr in zip(path, direction):
    digest = sha256_blocks([s + digest if dr else digest + s])
case("sha256_merkle32",
     {"root": ul(digest, 32),
      "account": {"address": ul(account["address"], 32), "balance": ul(account["balance"], 32),
                  "nonce": u(account["nonce"], 32)},
      "direction": direction, "path": [ul(p, 32) for p in path]},
     [ul(digest, 32)])

# ---------------------------------------------------------------------------------------------
# Keccak, SHA-3, EdDSA


def bl(data):
    return [u(x, 8) for x in data]


# keccak_batch
pubkey = rand_bytes("kb pubkey", 64)
signature = b"transfer(address,uint256)"
secret = rand_bytes("kb secret", 32)
calldata = rand_bytes("kb calldata", 136)
address = keccak256(pubkey)[12:]
case("keccak_batch",
     {"pubkey": bl(pubkey), "signature": bl(signature), "secret": bl(secret),
      "calldata": bl(calldata)},
     [bl(address), bl(keccak256(signature)[:4]), bl(keccak256(address + secret)),
      bl(keccak256(calldata))])
assert keccak256(signature)[:4].hex() == "a9059cbb"  # ERC-20 transfer's well-known selector

# password_sha3
salt = rand_bytes("pw salt", 16)
password = b"correct horse battery"
padded = password + bytes(24 - len(password))
stored = sha3_256(sha3_256(salt + padded) + salt)
assert stored == hashlib.sha3_256(hashlib.sha3_256(salt + padded).digest() + salt).digest()
case("password_sha3", {"stored_hash": bl(stored), "salt": bl(salt), "password": bl(padded)},
     [True, u(len(password), 32)])

# eddsa_vote
voter_k = int.from_bytes(sha256(b"zkbc apps voter key"), "big") % BJJ_L
election_id, choice = 2024, 2
nonce = words_of(rand_bytes("vote nonce", 32))
ballot = [0x766f7465, election_id, choice, 0, 0, 0, 0, 0]
message = bytes_of_words(ballot + nonce)
R, S, A = eddsa_sign(voter_k, message)
assert eddsa_verify(R, S, A, message)
case("eddsa_vote",
     {"voter_key": fl(A), "election_id": u(election_id, 32), "R": fl(R), "S": f(S),
      "choice": u(choice, 32), "nonce": ul(nonce, 32)},
     [f(poseidon([A[0], A[1], election_id])), u(choice, 32)])

# ---------------------------------------------------------------------------------------------
# Structs and business logic

# credential_check
cred = {"subject": rand_field("cred subject"), "birth": {"year": 1990, "month": 7, "day": 14},
        "country": 276, "kyc_passed": True, "credit_score": 712, "salt": rand_field("cred salt")}
policy = {"today": {"year": 2008, "month": 7, "day": 13}, "min_age": 18,
          "allowed_countries": [40, 56, 250, 276, 380], "min_score": 650, "require_kyc": True}
nonce = rand_field("cred nonce")


def pack_date(d):
    return d["year"] * 10000 + d["month"] * 100 + d["day"]


def age_on(birth, today):
    years = today["year"] - birth["year"]
    before = (today["month"], today["day"]) < (birth["month"], birth["day"])
    return years - 1 if before else years


commitment = poseidon([cred["subject"], pack_date(cred["birth"]), cred["country"],
                       1 if cred["kyc_passed"] else 0, cred["credit_score"], cred["salt"]])
eligible = (age_on(cred["birth"], policy["today"]) >= policy["min_age"]
            and cred["country"] in policy["allowed_countries"]
            and cred["credit_score"] >= policy["min_score"]
            and (not policy["require_kyc"] or cred["kyc_passed"]))
assert not eligible  # one day short of 18: the policy fails, the proof still goes through


def enc_date(d):
    return {k: u(v, 32) for k, v in d.items()}


case("credential_check",
     {"issuer_commitment": f(commitment),
      "policy": {"today": enc_date(policy["today"]), "min_age": u(policy["min_age"], 32),
                 "allowed_countries": ul(policy["allowed_countries"], 32),
                 "min_score": u(policy["min_score"], 32), "require_kyc": policy["require_kyc"]},
      "verifier_nonce": f(nonce),
      "cred": {"subject": f(cred["subject"]), "birth": enc_date(cred["birth"]),
               "country": u(cred["country"], 32), "kyc_passed": cred["kyc_passed"],
               "credit_score": u(cred["credit_score"], 32), "salt": f(cred["salt"])}},
     [eligible, f(poseidon([cred["subject"], nonce]))])

# invoice_settlement
TAX_BPS, TIER_BPS, SHIP = [0, 700, 1900, 2500], [0, 250, 500, 1000], [499, 899, 1499, 2999]


def apply_bps(amount, rate):
    return (amount * rate + 5000) // 10000


lines = [(100234, 3, 1999, 2), (100871, 1, 24900, 2), (200007, 12, 350, 1), (300500, 2, 8999, 3),
         (100234, 1, 1999, 0)]
lines += [(0, 0, 0, 0)] * (8 - len(lines))
customer = {"id": rand_field("invoice customer"),
            "shipping": {"country": 250, "region": 2, "postcode": 75011}, "tier": 2,
            "credit_limit": 250000, "outstanding": 120000}
order = {"customer": customer, "lines": lines, "line_count": 5, "coupon": 300}
rate = max(TIER_BPS[customer["tier"]], order["coupon"])
subtotal = discount = tax = 0
for i, (sku, qty, price, cls) in enumerate(lines):
    if i >= order["line_count"]:
        continue
    amount = qty * price
    off = apply_bps(amount, rate)
    subtotal, discount = subtotal + amount, discount + off
    tax += apply_bps(amount - off, TAX_BPS[cls])
goods = subtotal - discount
shipping = 0 if goods >= 50000 else SHIP[min(customer["shipping"]["region"], 3)]
total = goods + tax + shipping
approved = (customer["outstanding"] <= customer["credit_limit"]
            and total <= customer["credit_limit"] - customer["outstanding"]
            and total <= 2000000 and customer["shipping"]["country"] not in (408, 364, 760))
acc = poseidon([customer["id"], order["line_count"], order["coupon"]])
for sku, qty, price, cls in lines:
    acc = poseidon([acc, sku, qty, price, cls])
case("invoice_settlement",
     {"order_commitment": f(acc),
      "order": {"customer": {"id": f(customer["id"]),
                             "shipping": {k: u(v, 32) for k, v in customer["shipping"].items()},
                             "tier": u(customer["tier"], 8),
                             "credit_limit": u(customer["credit_limit"], 64),
                             "outstanding": u(customer["outstanding"], 64)},
                "lines": [{"sku": u(s, 32), "quantity": u(q, 32), "unit_price": u(p, 64),
                           "tax_class": u(c, 8)} for s, q, p, c in lines],
                "line_count": u(order["line_count"], 32), "coupon": u(order["coupon"], 64)}},
     [{"subtotal": u(subtotal, 64), "discount": u(discount, 64), "tax": u(tax, 64),
       "shipping": u(shipping, 64), "total": u(total, 64)}, approved])

# ---------------------------------------------------------------------------------------------
# Games and auctions

# sudoku: a valid grid (the base pattern with digits, rows and columns permuted), clues kept
# where a pseudo-random byte is below 96 (about 38%)
perm = [5, 3, 9, 1, 7, 2, 8, 4, 6]
rows = [r for band in [1, 0, 2] for r in [3 * band + k for k in [2, 0, 1]]]
cols = [c for stack in [2, 1, 0] for c in [3 * stack + k for k in [1, 2, 0]]]
base = [[(3 * (r % 3) + r // 3 + c) % 9 for c in range(9)] for r in range(9)]
solution = [[perm[base[rows[r]][cols[c]]] for c in range(9)] for r in range(9)]
for k in range(9):
    assert sorted(solution[k]) == list(range(1, 10))
    assert sorted(solution[r][k] for r in range(9)) == list(range(1, 10))
    assert sorted(solution[3 * (k // 3) + i // 3][3 * (k % 3) + i % 3] for i in range(9)) == \
        list(range(1, 10))
mask = rand_bytes("sudoku clues", 81)
puzzle = [[solution[r][c] if mask[9 * r + c] < 96 else 0 for c in range(9)] for r in range(9)]
blanks = sum(row.count(0) for row in puzzle)
packed = []
for i in range(3):
    rv = [int("".join(map(str, solution[3 * i + k]))) for k in range(3)]
    packed.append(rv[0] * 10 ** 18 + rv[1] * 10 ** 9 + rv[2])
case("sudoku", {"puzzle": [ul(r, 8) for r in puzzle], "solution": [ul(r, 8) for r in solution]},
     [u(blanks, 32), f(poseidon(packed))])

# sealed_bid_auction
amounts = [1_250_000, 4_999_999_999, 3_100_000_000, 4_999_999_999, 720_000_000]
reserve = 1_000_000_000
salts = [words_of(rand_bytes("bid salt %d" % i, 24)) for i in range(5)]
commitments = [words_of(sha256(a.to_bytes(8, "big") + bytes_of_words(s)))
               for a, s in zip(amounts, salts)]
best = max(amounts)
winner = amounts.index(best)
second = sorted(amounts)[-2]
case("sealed_bid_auction",
     {"commitments": [ul(c, 32) for c in commitments], "reserve": u(reserve, 64),
      "bids": [{"amount": u(a, 64), "salt": ul(s, 32)} for a, s in zip(amounts, salts)]},
     [u(winner, 32), u(max(second, reserve), 64)])

# hangman
word = b"cryptography"
salt = rand_bytes("hangman salt", 20)
guess = ord("y")
case("hangman",
     {"word_commitment": ul(words_of(sha256(word + salt)), 32), "guess": u(guess, 8),
      "word": ul(list(word) + [0] * (12 - len(word)), 8), "salt": ul(list(salt), 8)},
     [[c == guess for c in list(word) + [0] * (12 - len(word))], u(word.count(b"y"), 32)])

# battleship
fleet = [((1, 1), 5, False), ((8, 0), 4, True), ((3, 4), 3, True), ((5, 7), 3, False),
         ((0, 9), 2, False)]
fleet_salt = rand_field("battleship salt")
board = {}
for i, ((x, y), length, vertical) in enumerate(fleet):
    for k in range(length):
        cell = (x, y + k) if vertical else (x + k, y)
        assert cell not in board and max(cell) < 10
        board[cell] = i
codes = [x + 16 * y + 256 * length + (4096 if vertical else 0) for (x, y), length, vertical in fleet]
shot = (3, 5)
case("battleship",
     {"commitment": f(poseidon(codes + [fleet_salt])), "shot": {"x": u(shot[0], 8), "y": u(shot[1], 8)},
      "fleet": {"ships": [{"bow": {"x": u(x, 8), "y": u(y, 8)}, "length": u(length, 8),
                           "vertical": vertical} for (x, y), length, vertical in fleet],
                "salt": f(fleet_salt)}},
     [shot in board, u(board.get(shot, 5), 32)])

# ---------------------------------------------------------------------------------------------
# Claims, tallies, reserves, curves, rollups

# airdrop_claim
nul, sec, amount = rand_field("airdrop nullifier"), rand_field("airdrop secret"), 250 * 10 ** 15
airdrop_id, recipient, leaf_index = 77, rand_field("airdrop recipient") >> 94, 0xA5F0C3
sib, _, root = poseidon_path("airdrop", poseidon([nul, sec, amount]), 24, leaf_index)
case("airdrop_claim",
     {"root": f(root), "airdrop_id": f(airdrop_id), "recipient": f(recipient), "nullifier": f(nul),
      "secret": f(sec), "amount": u(amount, 64), "leaf_index": u(leaf_index, 32), "path": fl(sib)},
     [f(poseidon([nul, airdrop_id])), u(amount, 64)])

# voting_tally
ballots = []
for i in range(32):
    r = rand_bytes("ballot %d" % i, 8)
    ballots.append((rand_field("voter", i), r[0] % 5, 1 + int.from_bytes(r[1:4], "big") % 5000))
tally = [0] * 5
chain = 0
for voter, choice, weight in ballots:
    tally[choice] += weight
    chain = poseidon([chain, voter, choice, weight])
winner = max(range(5), key=lambda k: (tally[k], -k))
case("voting_tally",
     {"ballots_commitment": f(chain),
      "ballots": [{"voter": f(v), "choice": u(c, 32), "weight": u(w, 32)} for v, c, w in ballots]},
     [ul(tally, 32), u(winner, 32), u(sum(tally), 32)])

# range_proof_u64
balances = [int.from_bytes(rand_bytes("reserve %d" % i, 8), "big") % (10 ** 18) + 10 ** 15
            for i in range(8)]
lower, upper, liabilities = 10 ** 15, 10 ** 18 + 10 ** 15, 3 * 10 ** 18
blinding = rand_field("reserves blinding")
c = blinding
for v in balances:
    c = poseidon([c, v])
total = sum(balances)
assert total < 1 << 64 and all(lower <= v <= upper for v in balances)
case("range_proof_u64",
     {"lower": u(lower, 64), "upper": u(upper, 64), "liabilities": u(liabilities, 64),
      "commitment": f(c), "balances": ul(balances, 64), "blinding": f(blinding)},
     [total >= liabilities, u(max(total - liabilities, 0), 64)])

# babyjubjub_ecdh
sk = int.from_bytes(sha256(b"zkbc apps ecdh mine"), "big") % BJJ_L
peer = int.from_bytes(sha256(b"zkbc apps ecdh theirs"), "big") % BJJ_L
mine, theirs = bjj_mul(sk, BJJ_G), bjj_mul(peer, BJJ_G)
shared = bjj_mul(sk, theirs)
assert shared == bjj_mul(peer, mine) and bjj_on_curve(shared)
case("babyjubjub_ecdh", {"my_key": fl(mine), "their_key": fl(theirs), "sk": f(sk)},
     [f(poseidon(list(shared))), fl(bjj_add(mine, theirs))])

# grumpkin_pedersen
GG = grumpkin_point(1)
hx = int.from_bytes(sha256(b"zkbc apps grumpkin H"), "big") % P
while True:
    try:
        GH = grumpkin_point(hx)
        break
    except AssertionError:
        hx += 1


def gcommit(v, r):
    return grumpkin_add(grumpkin_mul(v, GG), grumpkin_mul(r, GH))


def genc(p):
    return {"x": "0", "y": "0", "infinity": True} if p is None else \
        {"x": f(p[0]), "y": f(p[1]), "infinity": False}


v1, v2 = 15_000_000_000, 9_999_999_999_999_999_999
r1, r2 = rand_field("grumpkin r1") >> 126, rand_field("grumpkin r2") >> 126
c1, c2 = gcommit(v1, r1), gcommit(v2, r2)
assert grumpkin_add(c1, c2) == gcommit(v1 + v2, r1 + r2)
assert grumpkin_on_curve(c1) and grumpkin_on_curve(c2)
case("grumpkin_pedersen", {"v1": u(v1, 64), "r1": f(r1), "v2": u(v2, 64), "r2": f(r2)},
     [genc(c1), genc(c2), genc(grumpkin_add(c1, c2))])


# rollup_transfers
def rollup_root(accts):
    level = [poseidon([pk, bal, n]) for pk, bal, n in accts]
    while len(level) > 1:
        level = [poseidon([level[2 * i], level[2 * i + 1]]) for i in range(len(level) // 2)]
    return level[0]


accounts = [[rand_field("rollup key", i), (i + 1) * 10 ** 9 + i * 12345, i % 3] for i in range(8)]
txs = [(3, 5, 1_500_000_000, 1000), (5, 1, 2_000_000_000, 2000), (7, 3, 123, 1),
       (3, 6, 2_000_000_000, 500), (1, 0, 999_999, 0), (5, 2, 4_000_000_000, 10)]
old_root = rollup_root(accounts)
state = [list(a) for a in accounts]
tx_inputs = []
volume = 0
for frm, to, amount, fee in txs:
    tx_inputs.append({"sender": u(frm, 32), "receiver": u(to, 32), "amount": u(amount, 64),
                      "fee": u(fee, 64), "nonce": u(state[frm][2], 32)})
    assert state[frm][1] >= amount + fee
    state[frm][1] -= amount + fee
    state[frm][2] += 1
    state[to][1] += amount
    state[0][1] += fee
    volume += amount
case("rollup_transfers",
     {"old_root": f(old_root),
      "accounts": [{"pubkey": f(pk), "balance": u(b, 64), "nonce": u(n, 32)} for pk, b, n in accounts],
      "txs": tx_inputs},
     [f(rollup_root(state)), u(volume, 64)])

# sha256_preimage
pre = [0xC0DE0001, rand_field("preimage b") >> 126, rand_field("preimage c") >> 126, 42]
case("sha256_preimage",
     {"digest": fl(sha256_packed(pre)), "a": f(pre[0]), "b": f(pre[1]), "c": f(pre[2]),
      "d": f(pre[3])},
     [])


def main():
    names = sys.argv[1:] or sorted(CASES)
    for name in names:
        inputs, outputs = CASES[name]
        assert os.path.exists(os.path.join(HERE, name + ".zok")), name
        with open(os.path.join(HERE, name + ".json"), "w") as fh:
            json.dump(inputs, fh, indent=1)
            fh.write("\n")
        with open(os.path.join(HERE, name + ".expected.json"), "w") as fh:
            json.dump({"outputs": outputs}, fh, indent=1)
            fh.write("\n")
    print(f"wrote {len(names)} cases")


if __name__ == "__main__":
    main()
