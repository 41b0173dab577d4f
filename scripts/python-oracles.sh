#!/usr/bin/env bash
# Installs the independent oracles the tests compare against (PyPI: cryptography, PyJWT, eth-account, PyNaCl,
# solders) into a virtual environment under .build, once. Tests find it through WALLETOPS_PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/oracle-venv
stamp=$venv/.installed-v2
if [ -f "$stamp" ]; then exit 0; fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  "cryptography>=42" "PyJWT>=2.8" "eth-account>=0.11" "solders>=0.21" "PyNaCl>=1.5"
touch "$stamp"
