#!/usr/bin/env bash
# make bench: runs every benchmark case and prints one table.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --show-bin-path)
"$bin/walletops-bench" "$@"
