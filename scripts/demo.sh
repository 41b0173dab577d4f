#!/usr/bin/env bash
# make demo: a short operator's tour on the embedded core of a temporary home: init, sign in with the
# development issuer, create wallets, list them, issue an ID token and verify it against the JWKS.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build --show-bin-path)/walletops
home=$(mktemp -d "${TMPDIR:-/tmp}/walletops-demo.XXXXXX")
trap 'rm -rf "$home"' EXIT
export WALLETOPS_HOME="$home/home"

step() { printf '\n$ walletops %s\n' "$*"; "$bin" "$@"; }

step core init
step login --dev --email demo@example.com
step wallet create --type ethereum --reference treasury
step wallet create --type solana --reference payouts
step wallet list
step wallet list --format json
wallet=$("$bin" wallet list --format csv | sed -n 2p | cut -d, -f1)
step wallet use "$wallet"
printf '\n$ walletops token issue --ttl 300 --claim tier=3\n'
token=$("$bin" token issue --ttl 300 --claim tier=3)
echo "$token"
"$bin" jwks > "$home/jwks.json"
printf '\n$ walletops token verify "$token" --issuer http://127.0.0.1:8787 --audience prj_local --jwks jwks.json\n'
"$bin" token verify "$token" --issuer http://127.0.0.1:8787 --audience prj_local --jwks "$home/jwks.json"
step logout
