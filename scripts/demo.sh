#!/usr/bin/env bash
# make demo: a fresh demo home on the embedded core; sign in; stage the demo data (examples/seed-demo.yaml);
# then the four jobs of docs/jobs.md on the example inputs; then where the outputs are.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build --show-bin-path)/walletops
demo=$(mktemp -d "${TMPDIR:-/tmp}/walletops-demo.XXXXXX")
home="$demo/home"
out="$demo/out"
mkdir -p "$out"

step() { printf '\n$ walletops %s\n' "$*"; "$bin" "$@"; }
# A job's exit status is shown, not fatal: the import exits 1 because the example has bad rows on purpose.
job() { printf '\n$ walletops run %s\n' "$*"; "$bin" run "$@" --home "$home" || echo "(exit $?)"; }

step core init --home "$home"
step login --dev --email ops@example.com --home "$home"
job examples/seed-demo.yaml --var "transfers=$out/staged-transfers.csv"
job jobs/create-wallets.yaml --var count=5 --var reference_prefix=customer --var "output=$out/wallets.csv"
job jobs/import-keys.yaml --var input=examples/keys-hex.csv --var format=hex-csv \
  --var "output=$out/imported-hex.csv" --var "rejects=$out/rejects-hex.csv"
job jobs/import-keys.yaml --var input=examples/keystores --var format=keystore-dir \
  --var password_file=examples/keystores.password --var "output=$out/imported-keystores.csv" \
  --var "rejects=$out/rejects-keystores.csv"
job jobs/import-keys.yaml --var input=examples/solana-keys --var format=solana-json-dir \
  --var "output=$out/imported-solana.csv" --var "rejects=$out/rejects-solana.csv"
job jobs/usage-report.yaml --var "output_dir=$out/usage"
job jobs/revoke-sweep.yaml --var mode=plan --var select=expired-or-non-caller --var "output=$out/sweep-plan.csv"
job jobs/revoke-sweep.yaml --var mode=apply --var select=expired --var "output=$out/sweep-applied.csv"

printf '\nThe demo home is %s; the outputs are in %s:\n' "$home" "$out"
(cd "$out" && find . -type f | sort | sed 's|^\./|  |')
printf '\nOpen %s/usage/usage.html in a browser (it works offline). Remove %s when done.\n' "$out" "$demo"
