#!/usr/bin/env bash
# Times `walletops run jobs/import-keys.yaml` on the embedded core (issue 9): N hex keys and N Solana
# seeds (base58), each on a fresh home, with /usr/bin/time -v for peak RSS. Test keys only, generated
# here from a fixed seed. Usage: scripts/import-bench.sh [N=100000] [WORKDIR=/tmp/import-bench]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
work=${2:-/tmp/import-bench}
bin=${WALLETOPS_BIN:-.build/release/walletops}
mkdir -p "$work"
python3 - "$n" "$work" <<'PY'
import random, sys
n, work = int(sys.argv[1]), sys.argv[2]
rng = random.Random(9)
order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141
alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
def b58(b):
    v = int.from_bytes(b, "big"); out = ""
    while v: v, r = divmod(v, 58); out = alphabet[r] + out
    return "1" * (len(b) - len(b.lstrip(b"\0"))) + out
with open(f"{work}/hex-{n}.csv", "w") as f:
    f.write("private_key\n")
    for _ in range(n): f.write("%064x\n" % rng.randrange(1, order))
with open(f"{work}/sol-{n}.csv", "w") as f:
    f.write("private_key\n")
    i = 0
    while i < n:
        s = b58(rng.randbytes(32))
        if len(s) in (32, 64): continue  # refused as ambiguous
        f.write(s + "\n"); i += 1
PY
for kind in hex sol; do
  home="$work/home-$kind-$n"
  rm -rf "$home" "$work/out-$kind-$n.csv" "$work/rej-$kind-$n.csv"
  "$bin" core init --home "$home" >/dev/null
  "$bin" login --dev --email ops@example.com --home "$home" >/dev/null
  format=hex-csv; [ "$kind" = sol ] && format=base58-csv
  echo "== $kind: $n rows ($format)"
  /usr/bin/time -v "$bin" run jobs/import-keys.yaml --home "$home" --var input="$work/$kind-$n.csv" \
    --var format=$format --var output="$work/out-$kind-$n.csv" --var rejects="$work/rej-$kind-$n.csv" \
    --log-format json >"$work/log-$kind-$n.json" 2>"$work/time-$kind-$n.txt" || true
  grep -E "Elapsed|Maximum resident|Exit status|User time|System time" "$work/time-$kind-$n.txt"
  echo "imported rows: $(($(wc -l <"$work/out-$kind-$n.csv") - 1)), rejects: $(($(wc -l <"$work/rej-$kind-$n.csv") - 1))"
done
