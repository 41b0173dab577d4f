#!/usr/bin/env python3
"""Inputs for `make bench`, made once and cached by size under bench/out/inputs (random test keys,
never real ones). Run with the bench venv (scripts/bench-peers.sh), which has eth-account and PyNaCl.

    inputs.py hex N DIR        DIR/hex-N.csv       private_key,reference (64 hex digits, 0x-prefixed)
    inputs.py sol N DIR        DIR/sol-N.csv       private_key,reference (base58 of a 32-byte seed)
    inputs.py keystores N DIR  DIR/keystores-N/    N keystore V3 files, scrypt n=2^18 r=8 p=1,
                                                   password in DIR/keystores.password
    inputs.py phrases N DIR    DIR/phrases-N.txt   N BIP-39 phrases of 12 words (fresh entropy), one a line
Prints the path made (or found)."""
import multiprocessing
import os
import sys

ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
PASSWORD = "bench-keystore-password"


def b58encode(data):
    number = int.from_bytes(data, "big")
    out = []
    while number:
        number, rem = divmod(number, 58)
        out.append(ALPHABET[rem])
    pad = len(data) - len(data.lstrip(b"\0"))
    return "1" * pad + "".join(reversed(out))


def secp_key():
    while True:
        key = os.urandom(32)
        if 0 < int.from_bytes(key, "big") < SECP256K1_N:
            return key


def sol_seed_text():
    # Base58 text of exactly 32 or 64 characters is refused as ambiguous (docs/key-formats.md).
    while True:
        text = b58encode(os.urandom(32))
        if len(text) not in (32, 64):
            return text


def write_csv(path, count, cell):
    tmp = path + ".tmp"
    with open(tmp, "w") as out:
        out.write("private_key,reference\n")
        for row in range(1, count + 1):
            out.write("%s,bench-%d\n" % (cell(), row))
    os.replace(tmp, path)


def keystore(index_and_dir):
    from eth_account import Account
    import json
    index, folder = index_and_dir
    keyfile = Account.encrypt(secp_key(), PASSWORD, kdf="scrypt", iterations=2**18)
    assert keyfile["crypto"]["kdfparams"]["n"] == 2**18 and keyfile["crypto"]["kdfparams"]["r"] == 8
    with open(os.path.join(folder, "ks-%03d.json" % index), "w") as out:
        json.dump(keyfile, out)


def main():
    kind, count, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(folder, exist_ok=True)
    if kind == "hex":
        path = os.path.join(folder, "hex-%d.csv" % count)
        if not os.path.exists(path):
            write_csv(path, count, lambda: "0x" + secp_key().hex())
    elif kind == "sol":
        path = os.path.join(folder, "sol-%d.csv" % count)
        if not os.path.exists(path):
            write_csv(path, count, sol_seed_text)
    elif kind == "keystores":
        path = os.path.join(folder, "keystores-%d" % count)
        with open(os.path.join(folder, "keystores.password"), "w") as out:
            out.write(PASSWORD)
        if not os.path.isdir(path) or len(os.listdir(path)) != count:
            tmp = path + ".tmp"
            os.makedirs(tmp, exist_ok=True)
            with multiprocessing.Pool(2) as pool:
                pool.map(keystore, [(i, tmp) for i in range(1, count + 1)])
            if os.path.isdir(path):
                import shutil
                shutil.rmtree(path)
            os.replace(tmp, path)
    elif kind == "phrases":
        from eth_account.hdaccount.mnemonic import Mnemonic
        path = os.path.join(folder, "phrases-%d.txt" % count)
        if not os.path.exists(path):
            words = Mnemonic()
            with open(path + ".tmp", "w") as out:
                for _ in range(count):
                    out.write(words.to_mnemonic(os.urandom(16)) + "\n")
            os.replace(path + ".tmp", path)
    else:
        sys.exit("usage: inputs.py hex|sol|keystores|phrases N DIR")
    print(path)


if __name__ == "__main__":
    main()
