#!/usr/bin/env python3
"""The inputs of `examples/poseidon_merkle.zok`, computed outside zkbc: a Poseidon Merkle tree of
depth 4 over the 16 leaves 1000, 1001, ..., 1015, and the path of leaf 1006 (index 6).

A node is Poseidon([left, right]) (t = 3, x^5, 8 full and 57 partial rounds, the state
[0, left, right], the digest its first element), with the constants the Poseidon paper's
Grain LFSR gives (`stdlib/tools/poseidon_constants.py`). The script checks its Poseidon on
the known answer Poseidon([1, 2]) first.

`python3 tests/poseidon_merkle.py > examples/poseidon_merkle.json`.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "stdlib", "tools"))
from poseidon_constants import P, R_F, R_P, parameters  # noqa: E402

C, M = parameters(3)


def poseidon2(left, right):
    state = [0, left, right]
    for r in range(R_F + R_P[3]):
        state = [(s + C[r * 3 + i]) % P for i, s in enumerate(state)]
        full = r < R_F // 2 or r >= R_F // 2 + R_P[3]
        state = [pow(s, 5, P) if full or i == 0 else s for i, s in enumerate(state)]
        state = [sum(M[i][j] * state[j] for j in range(3)) % P for i in range(3)]
    return state[0]


assert poseidon2(1, 2) == \
    7853200120776062878684798364095072458815029376092732009249414926327459813530

DEPTH = 4
INDEX = 6
level = [1000 + i for i in range(2 ** DEPTH)]
leaf = level[INDEX]
path, directions, index = [], [], INDEX
for _ in range(DEPTH):
    path.append(level[index ^ 1])
    directions.append(index & 1 == 1)  # true: the sibling is on the left
    level = [poseidon2(level[2 * i], level[2 * i + 1]) for i in range(len(level) // 2)]
    index //= 2
print(json.dumps({"root": str(level[0]), "leaf": str(leaf), "directions": directions,
                  "path": [str(p) for p in path]}, indent=1))
