#!/usr/bin/env bash
# The constant-time check of issue 28, ctgrind's way: each case of walletops-ctcheck runs under valgrind's
# memcheck with its secret bytes marked undefined, so memcheck reports every branch and every memory
# address computed from them. A baseline run (secrets not marked) must report nothing, so what the
# marked run reports comes from the secrets.
#   self-test: branches on a marked byte on purpose; memcheck must report it (the marking works).
#   Ed25519 derivation (single and four/eight-lane paths): no report at all is allowed.
#   ROMix: no branch on the secret is allowed; its second loop reads V[Integerify(X) mod N] by design
#   (RFC 7914, the memory-hard part), so addresses from the secret are expected and counted, not failed.
set -uo pipefail
cd "$(dirname "$0")/.."
binary=${CT_BINARY:-.build/debug/walletops-ctcheck}
command -v valgrind >/dev/null || { echo "ct-check: valgrind is not installed (Debian package valgrind)" >&2; exit 1; }
mkdir -p .build/ct-check
status=0
printf '%-15s %9s %9s %9s  %s\n' case baseline branches addresses verdict
for case in ${CT_CASES:-self-test ed25519-single ed25519-lanes romix romix-pair}; do
  counts=()
  for run in baseline secrets; do
    log=.build/ct-check/$case-$run.log
    flag=$([ $run = baseline ] && echo --no-secrets || true)
    valgrind --tool=memcheck --error-limit=no --leak-check=no --track-origins=yes --num-callers=30 \
      "$binary" "$case" $flag >"$log" 2>&1
    code=$?
    if [ $code -ne 0 ] || ! grep -q "results match" "$log"; then
      echo "ct-check: $case ($run) failed (exit $code); see $log" >&2
      status=1
    fi
    counts+=("$(grep -c 'Conditional jump or move depends on uninitialised' "$log")")
    counts+=("$(grep -c 'Use of uninitialised value of size' "$log")")
  done
  base=$((counts[0] + counts[1]))
  branches=${counts[2]}
  addresses=${counts[3]}
  verdict=ok
  if [ "$case" = self-test ]; then
    if [ "$base" -eq 0 ] && [ "$branches" -gt 0 ]; then verdict="ok (memcheck sees a branch on a marked byte)"
    else verdict="MEMCHECK DID NOT SEE THE BRANCH: the check proves nothing"; status=1; fi
  elif [ "$base" -ne 0 ]; then verdict="baseline reports $base errors"; status=1
  elif [ "$branches" -ne 0 ]; then verdict="BRANCH ON SECRET"; status=1
  elif [ "$addresses" -ne 0 ] && [ "${case#romix}" = "$case" ]; then verdict="ADDRESS FROM SECRET"; status=1
  elif [ "$addresses" -ne 0 ]; then verdict="ok (secret-dependent reads of V, by design)"
  fi
  printf '%-15s %9s %9s %9s  %s\n' "$case" "$base" "$branches" "$addresses" "$verdict"
done
[ $status -eq 0 ] || echo "ct-check: see .build/ct-check/*.log" >&2
exit $status
