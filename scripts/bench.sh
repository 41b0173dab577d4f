#!/usr/bin/env bash
# make bench: the cases of issue 9 through the real CLI (release build), each on a fresh embedded home,
# beside the Python peers run on the same inputs in the same run and the C floor of each case; prints ONE
# table (docs/bench.md explains every column, case, peer and floor).
#
# Sizes (environment). BENCH_SCALE=full: the issue's sizes exactly (100,000 rows per create and import
# case whatever they take, 100,000 grants, and scaling rows at 1,000,000 too); default: a bounded run
# (about 20-30 minutes on a shared 2-core machine) whose table shows the rows each case ran.
#   BENCH_ROWS (100000) create and import rows, at most
#   BENCH_BUDGET (seconds, 120; full: 0 = none): a probe of BENCH_PROBE_ROWS (500) rows first; a create or
#     import case that would take longer runs on fewer rows (1, 2 or 5 x 10^k)
#   BENCH_KEYSTORES (40), BENCH_GRANTS (sweep, 20000; full: 100000), BENCH_SESSIONS (usage, 10000),
#   BENCH_NOOP (1000000), BENCH_LATENCY_ROWS (50000) in batches of BENCH_LATENCY_BATCH (1000)
#   BENCH_PHRASES (2000) recovery phrases per phrase case (1 and 20 accounts each); the eth-account peer's
#     20-account rows run on the first BENCH_PHRASE_PEER (100) of them, once (about 40 ms per account)
#   BENCH_WORKERS_ROWS (6000) keys per workers case, in chunks of BENCH_WORKERS_BATCH (20), BENCH_WORKERS_PARALLEL
#     (1) in flight per process; BENCH_STORE_NOOP (200000) and BENCH_STORE_ROWS (20000): the store cases
#   BENCH_CASES: a subset of "create import keystore phrases sweep usage noop scale latency resume workers
#     store" (default all)
#   BENCH_ROUNDS (3): the create, import, keystore, no-op and latency cases and their peers run this many
#     times, ours and the peer's alternating; each side's fastest round counts (peak RSS: the largest), so
#     a slow spell of this shared machine during one side's run does not decide the ratio
# Resume rows: a hex import of BENCH_ROWS rows and the keystore import, each SIGKILLed once its output holds
# 90% of the rows and resumed: the resumed run's time against a full run's, and what it did again (the
# run report's work counts, docs/engine.md "Work counts").
# Scaling rows: the Ethereum create and hex import again at a tenth of their rows (full: and at ten times),
# each round right after runs of their own rows; the smaller side runs BENCH_SCALE_REPEATS (5) times a round
# (its median time counts); the goal reads the median of the rounds' time ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$(swift build -c release --show-bin-path)
wo="$bin/walletops"
wb="$bin/walletops-bench"
for tool in "$wo" "$wb"; do
  [ -x "$tool" ] || { echo "bench: $tool is missing: swift build -c release --product $(basename "$tool")" >&2; exit 1; }
done

SCALE=${BENCH_SCALE:-default}
if [ "$SCALE" = full ]; then default_budget=0 default_grants=100000; else default_budget=120 default_grants=20000; fi
ROWS=${BENCH_ROWS:-100000}
BUDGET=${BENCH_BUDGET:-$default_budget}
PROBE_ROWS=${BENCH_PROBE_ROWS:-500}
KEYSTORES=${BENCH_KEYSTORES:-40}
GRANTS=${BENCH_GRANTS:-$default_grants}
SESSIONS=${BENCH_SESSIONS:-10000}
NOOP=${BENCH_NOOP:-1000000}
LATENCY_ROWS=${BENCH_LATENCY_ROWS:-50000}
LATENCY_BATCH=${BENCH_LATENCY_BATCH:-1000}
WORKERS_ROWS=${BENCH_WORKERS_ROWS:-6000}
WORKERS_BATCH=${BENCH_WORKERS_BATCH:-20}
WORKERS_PARALLEL=${BENCH_WORKERS_PARALLEL:-1}
STORE_NOOP=${BENCH_STORE_NOOP:-200000}
STORE_ROWS=${BENCH_STORE_ROWS:-20000}
ROUNDS=${BENCH_ROUNDS:-3}
SCALE_REPEATS=${BENCH_SCALE_REPEATS:-5}
PHRASES=${BENCH_PHRASES:-2000}
PHRASE_PEER=${BENCH_PHRASE_PEER:-100}
CASES=${BENCH_CASES:-create import keystore phrases sweep usage noop scale latency resume workers store}
EMAIL=ops@example.com

out=$root/bench/out
inputs=$out/inputs
runs=$out/runs
results=$out/results.tsv
mkdir -p "$inputs" "$runs"
: > "$results"
py=$(scripts/bench-peers.sh)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load=$(cut -d' ' -f1 /proc/loadavg)
log() { echo "bench: $*" >&2; }
wants() { [[ " $CASES " == *" $1 "* ]]; }

# The C floor of every case (CPU time per item, items/s on all cores), built with the same libraries and for
# this CPU, as walletops is (the Makefile's TARGET_CPU).
gcc -O3 -march=native -o "$out/case_floor" bench/floor/case_floor.c \
  $(pkg-config --cflags --libs libcrypto libsecp256k1 libsodium sqlite3)
log "floors (C, CPU time)"
"$out/case_floor" 100 > "$out/floor.tsv" 2> "$out/floor-parts.txt"
floor() { awk -F'\t' -v c="$1" '$1 == c { print $3 }' "$out/floor.tsv"; }

# A fresh embedded home, signed in as the operator.
fresh_home() {
  rm -rf "$1"
  "$wo" core init --home "$1" > /dev/null
  "$wo" login --dev --email "$EMAIL" --home "$1" > /dev/null
}

# timed NAME CMD...: runs CMD under /usr/bin/time -v; sets SECONDS_TAKEN, RSS_MIB and STATUS.
timed() {
  local name=$1
  shift
  local dir=$runs/$name
  mkdir -p "$dir"
  set +e
  /usr/bin/time -v -o "$dir/time.txt" "$@" > "$dir/stdout.txt" 2> "$dir/stderr.txt"
  STATUS=$?
  set -e
  SECONDS_TAKEN=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$dir/time.txt")
  RSS_MIB=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$dir/time.txt")
  if [ "$STATUS" -ne 0 ]; then log "$name exited $STATUS (see $dir/stderr.txt)"; fi
}

# Rows of a CSV file whose last column is $2 (line ends CRLF or LF).
rows_with() { if [ -f "$1" ]; then tr -d '\r' < "$1" | grep -c ",$2\$" || true; else echo 0; fi; }

# Data rows of a CSV file (0 when it is missing).
rows_of() { if [ -f "$1" ]; then echo $(($(wc -l < "$1") - 1)); else echo 0; fi; }

# budget_rows SECONDS: the rows that fit in BUDGET at the probe's rate (PROBE_ROWS in SECONDS), rounded
# down to 1, 2 or 5 x 10^k, between PROBE_ROWS and ROWS.
budget_rows() {
  awk -v rows="$ROWS" -v probe="$PROBE_ROWS" -v seconds="$1" -v budget="$BUDGET" 'BEGIN {
    n = probe / seconds * budget
    if (budget == 0 || n >= rows) { print rows; exit }
    p = 1; while (p * 10 <= n) p *= 10
    m = (n >= 5 * p) ? 5 * p : (n >= 2 * p) ? 2 * p : p
    print (m < probe) ? probe : m
  }'
}

# best_round: after a timed round, keeps the fastest time (BEST_SECONDS) and the largest peak RSS (BEST_RSS)
# of this case's rounds; a failed round's status is kept (BEST_STATUS).
best_round() {
  if [ -z "${BEST_SECONDS:-}" ] || awk -v a="$SECONDS_TAKEN" -v b="$BEST_SECONDS" 'BEGIN { exit !(a < b) }'; then
    BEST_SECONDS=$SECONDS_TAKEN
  fi
  if [ -z "${BEST_RSS:-}" ] || awk -v a="$RSS_MIB" -v b="$BEST_RSS" 'BEGIN { exit !(a > b) }'; then BEST_RSS=$RSS_MIB; fi
  if [ "$STATUS" -ne 0 ]; then BEST_STATUS=$STATUS; fi
}

# best_peer: keeps the highest peer rate (BEST_PEER_RATE) and the largest peer RSS of the rounds.
best_peer() {
  if [ -z "${BEST_PEER_RATE:-}" ] || awk -v a="$PEER_RATE" -v b="$BEST_PEER_RATE" 'BEGIN { exit !(a > b) }'; then
    BEST_PEER_RATE=$PEER_RATE
  fi
  if [ -z "${BEST_PEER_RSS:-}" ] || awk -v a="$PEER_RSS" -v b="$BEST_PEER_RSS" 'BEGIN { exit !(a > b) }'; then
    BEST_PEER_RSS=$PEER_RSS
  fi
}

# record CASE ROWS SECONDS RSS PEER_RATE PEER_RSS FLOOR_RATE NOTE [PAIRED]: PAIRED is a scaling case's
# BASE_ROWS:TIME_RATIO:RSS_RATIO:ROUNDS (scale_case).
record() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "${9:-}" >> "$results"; }

# peer MODE SOURCE [ARGS]: runs the key peer; sets PEER_RATE and PEER_RSS.
peer() {
  local line
  line=$("$py" bench/peers/key_peer.py "$1" "$2" "$out/peer" "${@:3}")
  PEER_RATE=$(cut -f4 <<< "$line")
  PEER_RSS=$(cut -f5 <<< "$line")
  rm -f "$out"/peer/peer-*
}

# probe_create TYPE / probe_import FORMAT INPUT: the rows for the case within BUDGET.
probe_create() {
  if [ "$BUDGET" = 0 ]; then echo "$ROWS"; return; fi
  fresh_home "$runs/probe/home"
  timed probe "$wo" run jobs/create-wallets.yaml --home "$runs/probe/home" --var count="$PROBE_ROWS" \
    --var type="$1" --var output="$runs/probe/out.csv"
  budget_rows "$SECONDS_TAKEN"
}
probe_import() {
  if [ "$BUDGET" = 0 ]; then echo "$ROWS"; return; fi
  fresh_home "$runs/probe/home"
  head -n $((PROBE_ROWS + 1)) "$2" > "$runs/probe/input.csv"
  timed probe "$wo" run jobs/import-keys.yaml --home "$runs/probe/home" --var input="$runs/probe/input.csv" \
    --var format="$1" --var output="$runs/probe/out.csv" --var rejects="$runs/probe/rejects.csv"
  budget_rows "$SECONDS_TAKEN"
}

# create_case NAME TYPE COUNT [PEER_MODE]: ROUNDS rounds, ours then the peer's.
create_case() {
  local name=$1 type=$2 count=$3 home=$runs/$1/home round done
  BEST_SECONDS= BEST_RSS= BEST_STATUS=0 BEST_PEER_RATE= BEST_PEER_RSS=
  for round in $(seq "$ROUNDS"); do
    log "$name: $count wallets through the CLI (round $round of $ROUNDS)"
    fresh_home "$home"
    timed "$name" "$wo" run jobs/create-wallets.yaml --home "$home" --var count="$count" --var type="$type" \
      --var output="$runs/$name/wallets.csv"
    best_round
    done=$(rows_of "$runs/$name/wallets.csv")
    if [ -n "${4:-}" ]; then log "$name: the Python peer ($4)"; peer "$4" "$count"; best_peer; fi
  done
  record "$name" "$done" "$BEST_SECONDS" "$BEST_RSS" "${BEST_PEER_RATE:--}" "${BEST_PEER_RSS:--}" \
    "$(floor "create-${type:0:3}")" "exit $BEST_STATUS"
  rm -rf "$home"
}

# import_case NAME FORMAT INPUT FLOOR [PEER_MODE [PEER_ARGS...]]: ROUNDS rounds, ours
# then the peer's.
import_case() {
  local name=$1 format=$2 input=$3 floor_case=$4 home=$runs/$1/home round done rounds=$ROUNDS
  local extra=()
  if [ "$format" = keystore-dir ]; then extra=(--var password_file="$inputs/keystores.password"); fi
  BEST_SECONDS= BEST_RSS= BEST_STATUS=0 BEST_PEER_RATE= BEST_PEER_RSS=
  for round in $(seq "$rounds"); do
    log "$name: $input through the CLI (round $round of $rounds)"
    fresh_home "$home"
    timed "$name" "$wo" run jobs/import-keys.yaml --home "$home" --var input="$input" --var format="$format" \
      --var output="$runs/$name/imported.csv" --var rejects="$runs/$name/rejects.csv" "${extra[@]}"
    best_round
    done=$(rows_of "$runs/$name/imported.csv")
    if [ -n "${5:-}" ]; then log "$name: the Python peer ($5)"; peer "$5" "$input" "${@:6}"; best_peer; fi
  done
  record "$name" "$done" "$BEST_SECONDS" "$BEST_RSS" "${BEST_PEER_RATE:--}" "${BEST_PEER_RSS:--}" \
    "$(floor "$floor_case")" "exit $BEST_STATUS, $(rows_of "$runs/$name/rejects.csv") rejected"
  rm -rf "$home"
}

input_hex() { "$py" bench/inputs.py hex "$1" "$inputs"; }
input_sol() { "$py" bench/inputs.py sol "$1" "$inputs"; }

create_rows_eth=$ROWS create_rows_sol=$ROWS import_rows_eth=$ROWS import_rows_sol=$ROWS
if wants create; then
  create_rows_eth=$(probe_create ethereum)
  create_case create-eth ethereum "$create_rows_eth" create-eth
  create_rows_sol=$(probe_create solana)
  create_case create-sol solana "$create_rows_sol" create-sol
fi

if wants import; then
  import_rows_eth=$(probe_import hex-csv "$(input_hex "$ROWS")")
  hex=$(input_hex "$import_rows_eth")
  import_case import-eth hex-csv "$hex" import-eth import-eth-coincurve
  log "import-eth: the eth-account peer"
  peer import-eth-ethaccount "$hex"
  record import-eth/eth-account "$import_rows_eth" - - "$PEER_RATE" "$PEER_RSS" "$(floor import-eth)" "peer only"
  import_rows_sol=$(probe_import base58-csv "$(input_sol "$ROWS")")
  import_case import-sol base58-csv "$(input_sol "$import_rows_sol")" import-sol import-sol
fi

if wants keystore; then
  log "keystores: $KEYSTORES files, scrypt n=2^18 r=8 (made once)"
  keystores=$("$py" bench/inputs.py keystores "$KEYSTORES" "$inputs")
  import_case keystore keystore-dir "$keystores" keystore import-keystore --password-file "$inputs/keystores.password"
fi

# phrase_case NAME ACCOUNTS PHRASES_FILE: ROUNDS rounds of the phrase import through the CLI (one CSV row per
# phrase, `count` ACCOUNTS, on m/44'/60'/0'/0/i), each beside the eth-account peer on the same phrases
# (bench/peers/phrase_peer.py: Account.from_mnemonic per account, 2 processes); the 20-account peer runs once
# on the first PHRASE_PEER phrases. Rows are phrases; the floor is the phrases/s the C PBKDF2 alone allows on
# every core.
phrase_case() {
  local name=$1 accounts=$2 phrases=$3 home=$runs/$1/home round done peer_input
  local csv=$inputs/$name.csv
  awk -v n="$accounts" 'BEGIN { print "mnemonic,count,reference" } { printf "%s,%d,phrase-%d\n", $0, n, NR }' \
    "$phrases" > "$csv"
  peer_input=$phrases
  if [ "$accounts" -gt 1 ]; then peer_input=$inputs/$name-peer.txt; head -n "$PHRASE_PEER" "$phrases" > "$peer_input"; fi
  BEST_SECONDS= BEST_RSS= BEST_STATUS=0 BEST_PEER_RATE= BEST_PEER_RSS=
  for round in $(seq "$ROUNDS"); do
    log "$name: $(wc -l < "$phrases") phrases x $accounts accounts through the CLI (round $round of $ROUNDS)"
    fresh_home "$home"
    timed "$name" "$wo" run jobs/import-keys.yaml --home "$home" --var input="$csv" --var format=mnemonic-csv \
      --var type=ethereum --var output="$runs/$name/imported.csv" --var rejects="$runs/$name/rejects.csv"
    best_round
    done=$(($(rows_of "$runs/$name/imported.csv") / accounts))
    if [ "$accounts" -eq 1 ] || [ "$round" -eq 1 ]; then
      log "$name: the eth-account peer (from_mnemonic, $(wc -l < "$peer_input") phrases)"
      PEER_RATE=$("$py" bench/peers/phrase_peer.py "$peer_input" "$accounts" from_mnemonic | cut -f5) PEER_RSS=-
      best_peer
    fi
  done
  record "$name" "$done" "$BEST_SECONDS" "$BEST_RSS" "$BEST_PEER_RATE" - "$PHRASE_FLOOR" \
    "exit $BEST_STATUS, $(rows_of "$runs/$name/rejects.csv") rejected"
  rm -rf "$home"
}

if wants phrases; then
  gcc -O3 -o "$out/crypto_floor" bench/floor/crypto_floor.c $(pkg-config --cflags --libs libcrypto libsecp256k1 libsodium)
  "$out/crypto_floor" > "$out/crypto_floor.tsv"
  pbkdf2_floor_us=$(awk -F'\t' '/^PBKDF2-HMAC-SHA512/ { print $2 }' "$out/crypto_floor.tsv")
  PHRASE_FLOOR=$(awk -v us="$pbkdf2_floor_us" -v cores="$(nproc)" 'BEGIN { printf "%.1f", cores * 1e6 / us }')
  phrases=$("$py" bench/inputs.py phrases "$PHRASES" "$inputs")
  phrase_case phrases-1 1 "$phrases"
  phrase_case phrases-20 20 "$phrases"
  seed_us=$("$wb" phrases --seed-only --floor "$out/crypto_floor.tsv" | tail -n 1)
fi

if wants sweep; then
  home=$runs/sweep/home
  mkdir -p "$runs/sweep"
  fresh_home "$home"
  log "sweep: staging $GRANTS sessions on 100 wallets"
  stage=$("$wb" stage --home "$home" --wallets 100 --sessions "$GRANTS" --email "$EMAIL")
  sweep_vars=(--var select=non-caller --var type=remote --var max_revocations=$((GRANTS + 1000)))
  timed sweep-plan "$wo" run jobs/revoke-sweep.yaml --home "$home" --var mode=plan "${sweep_vars[@]}" \
    --var output="$runs/sweep-plan/plan.csv"
  record sweep-plan "$(rows_with "$runs/sweep-plan/plan.csv" planned)" "$SECONDS_TAKEN" "$RSS_MIB" - - \
    "$(floor sweep-plan)" "exit $STATUS; staged: $(cut -f5 <<< "$stage")"
  timed sweep-apply "$wo" run jobs/revoke-sweep.yaml --home "$home" --var mode=apply "${sweep_vars[@]}" \
    --var output="$runs/sweep-apply/apply.csv"
  record sweep-apply "$(rows_with "$runs/sweep-apply/apply.csv" revoked)" "$SECONDS_TAKEN" "$RSS_MIB" - - \
    "$(floor sweep-apply)" "exit $STATUS"
  rm -rf "$home"
fi

if wants usage; then
  home=$runs/usage/home
  mkdir -p "$runs/usage"
  fresh_home "$home"
  log "usage: staging $SESSIONS sessions on 10 wallets, 200 transfers"
  stage=$("$wb" stage --home "$home" --wallets 10 --sessions "$SESSIONS" --transfers 200 --email "$EMAIL")
  timed usage "$wo" run jobs/usage-report.yaml --home "$home" --var output_dir="$runs/usage/report"
  record usage "$(rows_of "$runs/usage/report/usage.csv")" "$SECONDS_TAKEN" "$RSS_MIB" - - "$(floor usage)" \
    "exit $STATUS; staged: $(cut -f5 <<< "$stage")"
  rm -rf "$home"
fi

if wants noop; then
  input=$inputs/noop-$NOOP.csv
  [ -f "$input" ] || { echo n; seq 1 "$NOOP"; } > "$input"
  home=$runs/noop/home
  mkdir -p "$runs/noop"
  fresh_home "$home"
  BEST_SECONDS= BEST_RSS= BEST_STATUS=0 BEST_PEER_RATE= BEST_PEER_RSS=
  for round in $(seq "$ROUNDS"); do
    fresh_home "$home"
    log "noop: $NOOP items through the CLI (round $round of $ROUNDS)"
    timed noop "$wo" run bench/playbooks/noop.yaml --home "$home" --var input="$input"
    best_round
    log "noop: the Python asyncio + sqlite3 loop"
    peer_line=$(python3 bench/peers/engine_peer.py "$NOOP")
    PEER_RATE=$(cut -f2 <<< "$peer_line") PEER_RSS=$(cut -f3 <<< "$peer_line")
    best_peer
  done
  record noop "$([ "$BEST_STATUS" -eq 0 ] && echo "$NOOP" || echo 0)" "$BEST_SECONDS" "$BEST_RSS" \
    "$BEST_PEER_RATE" "$BEST_PEER_RSS" "$(floor noop)" "exit $BEST_STATUS"
  rm -rf "$home"
fi

# scale_run NAME KIND ROWS: one run of the Ethereum create (KIND create) or hex import (KIND import) of ROWS
# rows on a fresh home; sets SECONDS_TAKEN, RSS_MIB, STATUS and DONE (the rows it output).
scale_run() {
  local name=$1 kind=$2 rows=$3 home=$runs/$1/home
  fresh_home "$home"
  if [ "$kind" = create ]; then
    timed "$name" "$wo" run jobs/create-wallets.yaml --home "$home" --var count="$rows" --var type=ethereum \
      --var output="$runs/$name/out.csv"
  else
    timed "$name" "$wo" run jobs/import-keys.yaml --home "$home" --var input="$(input_hex "$rows")" \
      --var format=hex-csv --var output="$runs/$name/out.csv" --var rejects="$runs/$name/rejects.csv"
  fi
  DONE=$(rows_of "$runs/$name/out.csv")
  rm -rf "$home"
}

# median: the median of the numbers on standard input, one a line.
median() { sort -g | awk '{ r[NR] = $1 } END { print NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'; }

# scale_case NAME KIND BASE_ROWS ROWS: ROUNDS rounds, each of SCALE_REPEATS runs of the smaller side (their
# median time) then one run of the larger, so that each round's runs meet the same machine and the short
# side is timed over about as long as the long one: a 3-second run swings by a third with this machine's
# bursts (100,000 hex keys took 2.58 to 3.49 s within minutes), a 30-second run by a tenth. Records the
# ROWS case (fastest run, largest peak RSS) with the median of the rounds' time ratios (ROWS over
# BASE_ROWS) and the ratio of the two sides' largest peak RSS, for the table's scaling goal (docs/bench.md
# "Scaling").
scale_case() {
  local name=$1 kind=$2 base_rows=$3 rows=$4 round repeat base_seconds rows_seconds base_rss= ratios=() rss_ratio
  local short_name short_rows long_name long_rows times short_seconds
  BEST_SECONDS= BEST_RSS= BEST_STATUS=0
  if [ "$base_rows" -le "$rows" ]; then
    short_name=$name-base short_rows=$base_rows long_name=$name long_rows=$rows
  else
    short_name=$name short_rows=$rows long_name=$name-base long_rows=$base_rows
  fi
  for round in $(seq "$ROUNDS"); do
    log "$name: $short_rows rows $SCALE_REPEATS times, then $long_rows (round $round of $ROUNDS)"
    times=()
    for repeat in $(seq "$SCALE_REPEATS"); do
      scale_run "$short_name" "$kind" "$short_rows"
      times+=("$SECONDS_TAKEN")
      scale_side "$short_name"
    done
    short_seconds=$(printf '%s\n' "${times[@]}" | median)
    scale_run "$long_name" "$kind" "$long_rows"
    scale_side "$long_name"
    if [ "$short_name" = "$name" ]; then
      rows_seconds=$short_seconds base_seconds=$SECONDS_TAKEN
    else
      rows_seconds=$SECONDS_TAKEN base_seconds=$short_seconds
    fi
    ratios+=("$(awk -v a="$rows_seconds" -v b="$base_seconds" 'BEGIN { printf "%.4f", a / b }')")
    log "$name: round $round: $short_rows rows ${times[*]} s (median $short_seconds), $long_rows rows" \
      "$SECONDS_TAKEN s; $rows rows over $base_rows: ${ratios[-1]}x"
  done
  rss_ratio=$(awk -v a="$BEST_RSS" -v b="$base_rss" 'BEGIN { printf "%.4f", a / b }')
  record "$name" "$DONE_ROWS" "$BEST_SECONDS" "$BEST_RSS" - - "$(floor "$kind-eth")" "exit $BEST_STATUS" \
    "$base_rows:$(printf '%s\n' "${ratios[@]}" | median):$rss_ratio:${#ratios[@]}"
}

# scale_side NAME: after a scale_run, keeps the base side's largest peak RSS (base_rss) or the ROWS side's
# fastest time, largest peak RSS and rows output (best_round, DONE_ROWS); a failed run's status is kept.
scale_side() {
  if [ "$1" = "$name-base" ]; then
    if [ -z "$base_rss" ] || awk -v a="$RSS_MIB" -v b="$base_rss" 'BEGIN { exit !(a > b) }'; then base_rss=$RSS_MIB; fi
    if [ "$STATUS" -ne 0 ]; then BEST_STATUS=$STATUS; fi
  else
    best_round
    DONE_ROWS=$DONE
  fi
}

if wants scale; then
  factors=(10)
  if [ "$SCALE" = full ]; then factors+=(0.1); fi
  for f in "${factors[@]}"; do
    n=$(awk -v r="$create_rows_eth" -v f="$f" 'BEGIN { printf "%d", r / f }')
    scale_case "scale-create-eth-$n" create "$create_rows_eth" "$n"
    n=$(awk -v r="$import_rows_eth" -v f="$f" 'BEGIN { printf "%d", r / f }')
    scale_case "scale-import-eth-$n" import "$import_rows_eth" "$n"
  done
fi

# serve_core NAME HOME DELAY_MS: `core serve` on HOME (fresh), through the delay proxy when DELAY_MS > 0;
# sets CORE_URL and SERVED_PIDS, and signs HOME in to it.
serve_core() {
  local name=$1 home=$2 delay=$3 port
  fresh_home "$home"
  port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$wo" core serve --home "$home" --listen "127.0.0.1:$port" > "$runs/$name/serve.log" 2>&1 &
  SERVED_PIDS=$!
  CORE_URL=http://127.0.0.1:$port
  if [ "$delay" -gt 0 ]; then
    "$wb" delay-proxy --to "127.0.0.1:$port" --delay-ms "$delay" > "$runs/$name/proxy.txt" 2>&1 &
    SERVED_PIDS="$SERVED_PIDS $!"
  fi
  for _ in $(seq 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/" && { [ "$delay" -eq 0 ] || [ -s "$runs/$name/proxy.txt" ]; }; then
      break
    fi
    sleep 0.1
  done
  if [ "$delay" -gt 0 ]; then CORE_URL=$(head -1 "$runs/$name/proxy.txt"); fi
  "$wo" login --dev --email "$EMAIL" --home "$home" --core "$CORE_URL" > /dev/null
}

# latency_run NAME DELAY_MS: imports LATENCY_ROWS keys against `core serve` on a fresh home, through the
# delay proxy when DELAY_MS > 0, directly otherwise.
latency_run() {
  local name=$1 delay=$2 home=$runs/$1/home
  mkdir -p "$runs/$name"
  serve_core "$name" "$home" "$delay"
  log "$name: $LATENCY_ROWS imports against core serve (added RTT $((2 * delay)) ms), $parallel in flight"
  timed "$name" "$wo" run jobs/import-keys.yaml --home "$home" --var input="$(input_hex "$LATENCY_ROWS")" \
    --var format=hex-csv --var core="$CORE_URL" --var attestation_root="$home/attestation-root.pem" \
    --var parallel=$parallel --var batch="$LATENCY_BATCH" --var output="$runs/$name/imported.csv" \
    --var rejects="$runs/$name/rejects.csv"
  # shellcheck disable=SC2086
  kill $SERVED_PIDS 2> /dev/null || true
  # shellcheck disable=SC2086
  wait $SERVED_PIDS 2> /dev/null || true
  rm -rf "$home"
}

if wants latency; then
  parallel=8
  # The same import without the delay: the rate the delay may not cut by more than 20%. ROUNDS rounds of
  # each, alternating, fastest of each side (a 20,000-key run lasts about a second, so one slow second of
  # a shared machine decided the row when each side ran once).
  direct_seconds= direct_rss= direct_status=0 delayed_seconds= delayed_rss= delayed_status=0
  for round in $(seq "$ROUNDS"); do
    BEST_SECONDS=$direct_seconds BEST_RSS=$direct_rss BEST_STATUS=$direct_status
    latency_run latency-direct 0
    best_round
    direct_seconds=$BEST_SECONDS direct_rss=$BEST_RSS direct_status=$BEST_STATUS
    BEST_SECONDS=$delayed_seconds BEST_RSS=$delayed_rss BEST_STATUS=$delayed_status
    latency_run latency 10
    best_round
    delayed_seconds=$BEST_SECONDS delayed_rss=$BEST_RSS delayed_status=$BEST_STATUS
  done
  record latency-direct "$(rows_of "$runs/latency-direct/imported.csv")" "$direct_seconds" "$direct_rss" - - \
    "$(floor import-eth)" "exit $direct_status; served core, no added delay"
  record latency "$(rows_of "$runs/latency/imported.csv")" "$delayed_seconds" "$delayed_rss" - - \
    "$(floor import-eth)" "exit $delayed_status; parallel $parallel, RTT +20 ms (delay proxy), batch $LATENCY_BATCH"
fi

# A throwaway PostgreSQL cluster for the cases that share a run store (scripts/postgres.sh); each run gets a
# database of its own. PG_URL is the server's maintenance database.
PG_URL=
pg_database() {
  if [ -z "$PG_URL" ]; then PG_URL=$(scripts/postgres.sh start "$out/postgres"); fi
  local name="bench_${1//[^a-z0-9]/_}_$RANDOM$RANDOM"
  psql "$PG_URL" -q -c "CREATE DATABASE $name" > /dev/null
  echo "${PG_URL%/postgres}/$name"
}

# workers_run NAME WORKERS: WORKERS_ROWS keys imported against a fresh `core serve` behind the delay proxy
# (RTT +20 ms), by `walletops run` on a fresh PostgreSQL store and WORKERS-1 `walletops worker`s beside it
# (each with the run's concurrency and a credential of its own: a copy of the run's home, whose core files
# give `login --dev` the same development issuer, signed in again to the served core as another host would
# be); the run's time is the case's (it ends when every chunk is done).
workers_run() {
  local name=$1 workers=$2 home=$runs/$1/home store pids= i
  mkdir -p "$runs/$name"
  serve_core "$name" "$home" 10
  store=$(pg_database "$name")
  for i in $(seq 2 "$workers"); do
    rm -rf "$runs/$name/worker-$i"
    cp -a "$home" "$runs/$name/worker-$i"
    "$wo" login --dev --email "$EMAIL" --home "$runs/$name/worker-$i" --core "$CORE_URL" > /dev/null
    "$wo" worker --home "$runs/$name/worker-$i" --core "$CORE_URL" --store "$store" --poll 20ms \
      --idle-exit 60s > "$runs/$name/worker-$i.txt" 2>&1 &
    pids="$pids $!"
  done
  log "$name: $WORKERS_ROWS imports, $workers process(es) on one PostgreSQL store, RTT +20 ms," \
    "$WORKERS_PARALLEL chunk(s) of $WORKERS_BATCH in flight each"
  timed "$name" "$wo" run jobs/import-keys.yaml --home "$home" --store "$store" \
    --var input="$(input_hex "$WORKERS_ROWS")" --var format=hex-csv --var core="$CORE_URL" \
    --var attestation_root="$home/attestation-root.pem" --var parallel="$WORKERS_PARALLEL" \
    --var batch="$WORKERS_BATCH" --var output="$runs/$name/imported.csv" --var rejects="$runs/$name/rejects.csv"
  # shellcheck disable=SC2086
  kill -TERM $pids $SERVED_PIDS 2> /dev/null || true
  # shellcheck disable=SC2086
  wait $pids $SERVED_PIDS 2> /dev/null || true
  rm -rf "$home"
}

if wants workers; then
  for n in 1 2 4; do
    BEST_SECONDS= BEST_RSS= BEST_STATUS=0
    for round in $(seq "$ROUNDS"); do
      workers_run "workers-$n" "$n"
      best_round
    done
    record "workers-$n" "$(rows_of "$runs/workers-$n/imported.csv")" "$BEST_SECONDS" "$BEST_RSS" - - \
      "$(floor import-eth)" "exit $BEST_STATUS; $n process(es), parallel $WORKERS_PARALLEL, batch $WORKERS_BATCH, RTT +20 ms"
  done
fi

# The cost of the shared store: the no-op engine case and the hex import on a PostgreSQL store beside the
# same on SQLite, alternating in each round (fastest of each side).
if wants store; then
  input=$inputs/noop-$STORE_NOOP.csv
  [ -f "$input" ] || { echo n; seq 1 "$STORE_NOOP"; } > "$input"
  hex=$(input_hex "$STORE_ROWS")
  # The fastest round of each case and side, keyed "noop-sqlite", "import-postgresql", ...
  declare -A store_seconds=() store_rss=() store_status=()
  # store_round CASE SIDE CMD...: one timed round of CASE on SIDE, kept when it is the fastest.
  store_round() {
    local key=$1-$2
    shift 2
    BEST_SECONDS=${store_seconds[$key]:-} BEST_RSS=${store_rss[$key]:-} BEST_STATUS=${store_status[$key]:-0}
    timed "$key" "$@"
    best_round
    store_seconds[$key]=$BEST_SECONDS store_rss[$key]=$BEST_RSS store_status[$key]=$BEST_STATUS
  }
  for round in $(seq "$ROUNDS"); do
    for side in sqlite postgresql; do
      home=$runs/store-$side/home
      mkdir -p "$runs/store-$side"
      fresh_home "$home"
      store=$home/runs.sqlite
      if [ "$side" = postgresql ]; then store=$(pg_database noop); fi
      log "store: $STORE_NOOP no-op items on $side (round $round of $ROUNDS)"
      store_round noop "$side" "$wo" run bench/playbooks/noop.yaml --home "$home" --store "$store" --var input="$input"
      fresh_home "$home"
      store=$home/runs.sqlite
      if [ "$side" = postgresql ]; then store=$(pg_database import); fi
      log "store: $STORE_ROWS hex imports on $side (round $round of $ROUNDS)"
      store_round import "$side" "$wo" run jobs/import-keys.yaml --home "$home" --store "$store" --var input="$hex" \
        --var format=hex-csv --var output="$runs/store-$side/imported.csv" --var rejects="$runs/store-$side/rejects.csv"
      rm -rf "$home"
    done
  done
  for side in sqlite postgresql; do
    record "noop-$side" "$([ "${store_status[noop-$side]}" -eq 0 ] && echo "$STORE_NOOP" || echo 0)" \
      "${store_seconds[noop-$side]}" "${store_rss[noop-$side]}" - - "$(floor noop)" \
      "exit ${store_status[noop-$side]}; run store $side"
    record "import-$side" "$(rows_of "$runs/store-$side/imported.csv")" "${store_seconds[import-$side]}" \
      "${store_rss[import-$side]}" - - "$(floor import-eth)" "exit ${store_status[import-$side]}; run store $side"
  done
fi
if [ -n "$PG_URL" ]; then scripts/postgres.sh stop "$out/postgres" > /dev/null; fi

# kill_at NAME OUTPUT BYTES CMD...: starts CMD in the background and SIGKILLs it once OUTPUT holds BYTES
# (polled every 5 ms: a stat, not a read); sets KILLED_AT (the data rows then) and KILLED (1 when the signal
# ended it, 0 when it had ended first).
kill_at() {
  local name=$1 output=$2 target=$3 pid status
  shift 3
  mkdir -p "$runs/$name"
  "$@" > "$runs/$name/killed-stdout.txt" 2> "$runs/$name/killed-stderr.txt" &
  pid=$!
  while kill -0 "$pid" 2> /dev/null; do
    if [ "$(stat -c %s "$output" 2> /dev/null || echo 0)" -ge "$target" ]; then break; fi
    sleep 0.005
  done
  kill -KILL "$pid" 2> /dev/null || true
  KILLED_AT=$(rows_of "$output")
  set +e
  wait "$pid"
  status=$?
  set -e
  KILLED=$([ "$status" -eq 137 ] && echo 1 || echo 0)
}

# work_of STDOUT: the first step's resumed count and work counts from the report its run printed
# (`report: <home>/reports/N.md`), as "resumed sent found decrypted".
work_of() {
  python3 - "$1" << 'PY'
import json, sys
line = next(l for l in open(sys.argv[1]) if l.startswith("report: "))
step = json.load(open(line[len("report: "):].strip()[:-len(".md")] + ".json"))["steps"][0]
work = step.get("work", {})
print(step["resumed"], work.get("sent", 0), work.get("found", 0), work.get("decrypted", 0))
PY
}

# resume_case NAME FORMAT INPUT ROWS BOUND VARS...: ROUNDS rounds of a full import, then the same import
# SIGKILLed at 90% of ROWS in its output and resumed, each on a fresh home; records the fastest resumed run
# beside the fastest full one, with the most work any resumed run did again (BOUND: what was in flight).
resume_case() {
  local name=$1 format=$2 input=$3 rows=$4 bound=$5 home=$runs/$1/home round full= again=0 sent=0 left=0
  local decrypted=0 resumed found work target killed_at=
  shift 5
  local run=(run jobs/import-keys.yaml --home "$home" --var input="$input" --var format="$format"
    --var output="$runs/$name/imported.csv" --var rejects="$runs/$name/rejects.csv" "$@")
  BEST_SECONDS= BEST_RSS= BEST_STATUS=0
  for round in $(seq "$ROUNDS"); do
    log "$name: a full import of $rows rows (round $round of $ROUNDS)"
    fresh_home "$home"
    timed "$name-full" "$wo" "${run[@]}"
    if [ -z "$full" ] || awk -v a="$SECONDS_TAKEN" -v b="$full" 'BEGIN { exit !(a < b) }'; then full=$SECONDS_TAKEN; fi
    if [ "$STATUS" -ne 0 ]; then BEST_STATUS=$STATUS; fi
    fresh_home "$home"
    # The kill's moment: the size of the full run's output up to its row at 90 % (the rows are the same
    # length in every run: the same sources, references and addresses, ids of one length). The full
    # run's outputs then go: the poll reads the killed run's own progress.
    target=$(head -n $((rows * 9 / 10 + 1)) "$runs/$name/imported.csv" | wc -c)
    rm -f "$runs/$name/imported.csv" "$runs/$name/rejects.csv"
    kill_at "$name" "$runs/$name/imported.csv" "$target" "$wo" "${run[@]}"
    if [ "$KILLED" -ne 1 ]; then log "$name: the run ended before the kill"; BEST_STATUS=1; continue; fi
    if [ -z "$killed_at" ] || [ "$KILLED_AT" -lt "$killed_at" ]; then killed_at=$KILLED_AT; fi
    log "$name: SIGKILLed with $KILLED_AT rows in the output; resuming"
    timed "$name" "$wo" "${run[@]}"
    best_round
    read -r resumed work found decrypted <<< "$(work_of "$runs/$name/stdout.txt")"
    log "$name: round $round: full $full s, resumed $SECONDS_TAKEN s; $resumed rows resumed, sent $work, found" \
      "$found (sent again), decrypted $decrypted"
    if [ "$found" -gt "$again" ]; then again=$found; fi
    if [ "$work" -gt "$sent" ]; then sent=$work left=$((rows - resumed)); fi
    if [ "$decrypted" -gt "${most_decrypted:-0}" ]; then most_decrypted=$decrypted; fi
  done
  record "$name" "$(rows_of "$runs/$name/imported.csv")" "$BEST_SECONDS" "$BEST_RSS" - - - \
    "exit $BEST_STATUS, $(rows_of "$runs/$name/rejects.csv") rejected" \
    "resume:$full:$again:$bound:$sent:$left:${most_decrypted:-0}:${killed_at:-0}"
  most_decrypted=
  rm -rf "$home"
}

if wants resume; then
  # The import's defaults, explicit: 3 chunks of 3,000 rows in flight.
  resume_case resume-import-eth hex-csv "$(input_hex "$ROWS")" "$ROWS" $((3 * 3000)) --var parallel=3 \
    --var batch=3000
  # One keystore a chunk, as many chunks in flight as the decryption pool has slots.
  slots=$(python3 -c 'import sys; sys.path.insert(0, "bench"); import report; print(report.pool_slots())')
  keystores=$("$py" bench/inputs.py keystores "$KEYSTORES" "$inputs")
  resume_case resume-keystore keystore-dir "$keystores" "$KEYSTORES" "$slots" \
    --var password_file="$inputs/keystores.password" --var parallel="$slots" --var batch=1
fi

echo "## make bench ($started to $(date -u +%H:%M:%SZ), $(nproc) cores, load average at start $load, release build;" \
  "rows <= $ROWS (budget ${BUDGET}s per case), keystores $KEYSTORES, grants $GRANTS, sessions $SESSIONS," \
  "no-op $NOOP, scale $SCALE)"
echo
python3 bench/report.py "$results" "$LATENCY_BATCH"
echo
echo "C floor $(cat "$out/floor-parts.txt") (CPU time, fastest round)"
if wants phrases; then
  echo "Phrases: rows are phrases, items/s phrases/s; floor: every core on the C PBKDF2 alone. BIP-39 seed" \
    "(PBKDF2-HMAC-SHA512, 2,048 rounds, one thread, CPU per call): $seed_us"
fi
