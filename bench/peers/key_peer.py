#!/usr/bin/env python3
"""The key peer for `make bench`: the migration engineer's script of issue 9, written the way such a
script is written. Two processes (multiprocessing), each on its half of the rows:

    parse (hex / base58 / keystore V3) or make (os.urandom) a key
    -> derive the address (coincurve + pycryptodome keccak, or eth-account; PyNaCl for Solana)
    -> AES-256-GCM encrypt the key under a KEK (cryptography), the address as associated data
    -> sqlite3: insert the wallet and a checkpoint row for the item, commit every 1,000 rows.

Each process writes its own SQLite file (WAL, synchronous=NORMAL): the most generous reading of
"2 processes", since they never wait on each other's locks.

    key_peer.py MODE INPUT|COUNT OUTDIR [--password-file FILE]

MODE: import-eth-coincurve, import-eth-ethaccount (INPUT: CSV private_key,reference of hex keys),
import-sol (INPUT: CSV private_key,reference of base58 seeds), import-keystore (INPUT: a directory of
keystore V3 files, --password-file), create-eth, create-sol (COUNT keys from os.urandom).
Prints one line: "mode<TAB>rows<TAB>seconds<TAB>keys_per_s<TAB>peak_rss_mib" (peak RSS from getrusage:
this process plus twice the largest child, since the two workers run at the same time)."""
import csv
import json
import multiprocessing
import os
import resource
import sqlite3
import sys
import time

from Crypto.Hash import keccak
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

COMMIT_EVERY = 1000
PROCESSES = 2
ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
INDEX = {c: i for i, c in enumerate(ALPHABET)}


def b58encode(data):
    number = int.from_bytes(data, "big")
    out = []
    while number:
        number, rem = divmod(number, 58)
        out.append(ALPHABET[rem])
    pad = len(data) - len(data.lstrip(b"\0"))
    return "1" * pad + "".join(reversed(out))


def b58decode(text):
    number = 0
    for c in text:
        number = number * 58 + INDEX[c]
    pad = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * pad + body


def keccak256(data):
    return keccak.new(digest_bits=256, data=data).digest()


def eip55(address_bytes):
    lower = address_bytes.hex()
    digest = keccak256(lower.encode()).hex()
    return "0x" + "".join(c.upper() if int(digest[i], 16) >= 8 else c for i, c in enumerate(lower))


def eth_address_coincurve(key):
    from coincurve import PrivateKey
    public = PrivateKey(key).public_key.format(compressed=False)[1:]
    return eip55(keccak256(public)[12:])


def eth_address_ethaccount(key):
    from eth_account import Account
    return Account.from_key(key).address


def sol_address(seed):
    from nacl.signing import SigningKey
    return b58encode(bytes(SigningKey(seed).verify_key))


def parse_hex(cell):
    text = cell.strip()
    if text.startswith(("0x", "0X")):
        text = text[2:]
    key = bytes.fromhex(text)
    if len(key) != 32:
        raise ValueError("wrong length")
    return key


def parse_base58_seed(cell):
    key = b58decode(cell.strip())
    if len(key) == 64:
        key = key[:32]
    if len(key) != 32:
        raise ValueError("wrong length")
    return key


def open_store(path):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS wallets(reference TEXT PRIMARY KEY, address TEXT UNIQUE,"
               " nonce BLOB, sealed BLOB)")
    db.execute("CREATE TABLE IF NOT EXISTS checkpoints(item INTEGER PRIMARY KEY, state TEXT, at REAL)")
    return db


def rows_for(mode, source, part, password):
    """This worker's half of the rows, as (item, reference, key)."""
    if mode.startswith("create"):
        count = int(source)
        lo, hi = count * part // PROCESSES, count * (part + 1) // PROCESSES
        for item in range(lo, hi):
            yield item, "wallet-%d" % (item + 1), os.urandom(32)
    elif mode == "import-keystore":
        from eth_account import Account
        names = sorted(os.listdir(source))
        lo, hi = len(names) * part // PROCESSES, len(names) * (part + 1) // PROCESSES
        for item in range(lo, hi):
            with open(os.path.join(source, names[item])) as handle:
                keyfile = json.load(handle)
            yield item, names[item].rsplit(".", 1)[0], bytes(Account.decrypt(keyfile, password))
    else:
        with open(source, newline="") as handle:
            rows = list(csv.DictReader(handle))
        lo, hi = len(rows) * part // PROCESSES, len(rows) * (part + 1) // PROCESSES
        parse = parse_base58_seed if mode == "import-sol" else parse_hex
        for item in range(lo, hi):
            row = rows[item]
            yield item, row.get("reference") or "import-%d" % (item + 1), parse(row["private_key"])


def worker(job):
    mode, source, outdir, part, password = job
    address_of = {
        "import-eth-coincurve": eth_address_coincurve, "import-eth-ethaccount": eth_address_ethaccount,
        "import-keystore": eth_address_coincurve, "create-eth": eth_address_coincurve,
        "import-sol": sol_address, "create-sol": sol_address,
    }[mode]
    kek = AESGCM(os.urandom(32))
    db = open_store(os.path.join(outdir, "peer-%s-%d.sqlite" % (mode, part)))
    done = 0
    db.execute("BEGIN")
    for item, reference, key in rows_for(mode, source, part, password):
        address = address_of(key)
        nonce = os.urandom(12)
        sealed = kek.encrypt(nonce, key, address.encode())
        db.execute("INSERT INTO wallets VALUES (?, ?, ?, ?)", (reference, address, nonce, sealed))
        db.execute("INSERT OR REPLACE INTO checkpoints VALUES (?, 'done', ?)", (item, time.time()))
        done += 1
        if done % COMMIT_EVERY == 0:
            db.execute("COMMIT")
            db.execute("BEGIN")
    db.execute("COMMIT")
    db.close()
    return done


def main():
    args = sys.argv[1:]
    password = None
    if "--password-file" in args:
        index = args.index("--password-file")
        with open(args[index + 1], "rb") as handle:
            password = handle.read().rstrip(b"\r\n")
        del args[index:index + 2]
    mode, source, outdir = args
    os.makedirs(outdir, exist_ok=True)
    for name in os.listdir(outdir):
        if name.startswith("peer-%s-" % mode):
            os.remove(os.path.join(outdir, name))
    start = time.perf_counter()
    with multiprocessing.Pool(PROCESSES) as pool:
        rows = sum(pool.map(worker, [(mode, source, outdir, part, password) for part in range(PROCESSES)]))
    seconds = time.perf_counter() - start
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            + PROCESSES * resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024  # KiB on Linux
    print("%s\t%d\t%.3f\t%.1f\t%.1f" % (mode, rows, seconds, rows / seconds, peak), flush=True)


if __name__ == "__main__":
    main()
