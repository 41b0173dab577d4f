#!/usr/bin/env bash
# make demo: for now, the command line's help; later issues make it run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build --show-bin-path)/walletops
"$bin" --help
