#!/usr/bin/env bash
# make bench-micro: the micro tables (crypto primitives beside the C floor, Ed25519 public keys beside
# libsodium, engine beside its Python peer, core requests, remote access, attested imports), in-process;
# the issue-9 table is scripts/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --show-bin-path)
out=bench/out
mkdir -p "$out"
gcc -O3 -o "$out/crypto_floor" bench/floor/crypto_floor.c $(pkg-config --cflags --libs libcrypto libsecp256k1 libsodium)
"$out/crypto_floor" > "$out/crypto_floor.tsv"
"$bin/walletops-bench" crypto --floor "$out/crypto_floor.tsv"
# Ed25519 public keys: libsodium beside WalletCrypto's Swift derivation, one per call and batched.
"$bin/walletops-bench" ed25519

# The engine beside its Python peer (asyncio + sqlite3, same checkpoint scheme), in the same run.
python3 bench/peers/engine_peer.py 100000 1000000 > "$out/engine_peer.tsv"
"$bin/walletops-bench" engine --peer "$out/engine_peer.tsv"

# The core's requests per second, in-process and over HTTP.
"$bin/walletops-bench" core
"$bin/walletops-bench" access
"$bin/walletops-bench" import
# Recovery phrases (issue 27): phrases/s with 1 and 20 accounts beside eth-account in 2 processes, the
# seed against the C floor's PBKDF2 (needs the oracle venv: scripts/python-oracles.sh).
scripts/python-oracles.sh
"$bin/walletops-bench" phrases --python .build/oracle-venv/bin/python --floor "$out/crypto_floor.tsv"
