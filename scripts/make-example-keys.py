#!/usr/bin/env python3
"""Writes the example inputs of examples/ (TEST KEYS ONLY: derived from public labels, never fund them).

Needs eth-account and solders (scripts/python-oracles.sh installs them into .build/oracle-venv):
    .build/oracle-venv/bin/python scripts/make-example-keys.py
"""
import hashlib
import json
import os

from eth_account import Account
from solders.keypair import Keypair

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def key(label):
    return hashlib.sha256(("walletops example " + label).encode()).hexdigest()


def main():
    os.makedirs(ROOT, exist_ok=True)
    good = [key("eth-%d" % i) for i in range(1, 6)]
    other = key("eth-other")
    rows = [
        ("0x" + good[0], "legacy-alice", "", Account.from_key(good[0]).address),
        (good[1], "legacy-bob", "ethereum", ""),
        ("  0x" + good[2].upper() + " ", "", "", ""),
        (good[3][:40], "short-key", "", ""),                       # too short
        ("zz" + good[3][2:], "not-hex", "", ""),                   # not hex
        ("0" * 64, "zero-key", "", ""),                            # zero scalar
        ("%064x" % N, "key-equal-n", "", ""),                      # >= n
        (good[4], "wrong-address", "", Account.from_key(other).address),  # expected_address mismatch
        (good[1], "bob-again", "", ""),                            # duplicate of row 2
    ]
    with open(os.path.join(ROOT, "keys-hex.csv"), "w", newline="") as f:
        f.write("private_key,reference,type,expected_address\r\n")
        for row in rows:
            f.write(",".join(row) + "\r\n")

    keystores = os.path.join(ROOT, "keystores")
    os.makedirs(keystores, exist_ok=True)
    password = "example-password-not-secret"
    with open(os.path.join(keystores, "..", "keystores.password"), "w") as f:
        f.write(password + "\n")
    for name, kdf in (("scrypt-1", "scrypt"), ("pbkdf2-1", "pbkdf2")):
        secret = key("keystore-" + name)
        iterations = 1024 if kdf == "scrypt" else 2048
        document = Account.encrypt(secret, password, kdf=kdf, iterations=iterations)
        with open(os.path.join(keystores, name + ".json"), "w") as f:
            json.dump(document, f, indent=1)

    solana = os.path.join(ROOT, "solana-keys")
    os.makedirs(solana, exist_ok=True)
    for i in range(1, 4):
        seed = bytes.fromhex(key("sol-%d" % i))
        pair = Keypair.from_seed(seed)
        with open(os.path.join(solana, "sol-%d.json" % i), "w") as f:
            json.dump(list(bytes(pair)), f)

    with open(os.path.join(ROOT, "references.csv"), "w") as f:
        f.write("reference\r\n" + "".join("customer-%03d\r\n" % i for i in range(1, 6)))


if __name__ == "__main__":
    main()
