#!/usr/bin/env bash
# The Python peers' environment for make bench: a venv under .build/bench-venv with the packages the
# migration engineer's script uses (installed from PyPI by pip, once; later runs reuse the venv).
# Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/bench-venv
packages=(coincurve eth-account pycryptodome PyNaCl cryptography)
if ! "$venv/bin/python" -c 'import coincurve, eth_account, Crypto, nacl, cryptography' 2>/dev/null; then
  mkdir -p .build
  python3 -m venv "$venv" || { echo "bench-peers: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/pip" install -q --disable-pip-version-check "${packages[@]}" >&2
fi
echo "$venv/bin/python"
