#!/usr/bin/env python3
"""Inputs and expected output of sealed_bid_reveal.zok, computed with hashlib, without zkbc.

sha256packed([0, 0, 0, value]) is SHA-256 of the 512-bit message of four 128-bit words (48 zero
bytes, then value); its digest is two 128-bit halves. Writes sealed_bid_reveal.json and
sealed_bid_reveal.expected.json beside this script.
"""
import hashlib
import json
import os


def sha256_packed(words):
    digest = hashlib.sha256(b"".join(w.to_bytes(16, "big") for w in words)).digest()
    return [int.from_bytes(digest[:16], "big"), int.from_bytes(digest[16:], "big")]


def sealed_bid_reveal(value, reveal, commitment):
    if reveal != 0 and value != reveal:
        return 0
    return int(sha256_packed([0, 0, 0, value]) == commitment)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    value = 123456789
    commitment = sha256_packed([0, 0, 0, value])
    inputs = {"value": str(value), "revealValue": str(value), "hash": [str(t) for t in commitment]}
    outputs = [str(sealed_bid_reveal(value, value, commitment))]
    with open(os.path.join(here, "sealed_bid_reveal.json"), "w") as fh:
        json.dump(inputs, fh, indent=1)
        fh.write("\n")
    with open(os.path.join(here, "sealed_bid_reveal.expected.json"), "w") as fh:
        json.dump({"outputs": outputs}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
