#!/usr/bin/env bash
# Renders a usage report's HTML in headless Chromium as a person and a printer see it, for review and for
# the tests: a 1280x800 screenshot, the page printed to PDF (the report's own print stylesheet: letter,
# landscape) and that PDF's text (pdftotext).
#   scripts/render-report.sh REPORT.html [OUTDIR]   (default .build/test-output/usage-report)
# Writes OUTDIR/usage-1280x800.png, OUTDIR/usage.pdf and OUTDIR/usage.pdf.txt, and prints OUTDIR.
# chromium and poppler-utils come from scripts/bootstrap.sh (make bootstrap). When either is missing:
# exit 77 (the tests' "skipped") with what to install, unless CI is set, where it is a failure (exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
html=$(realpath "$1")
out=$(realpath -m "${2:-.build/test-output/usage-report}")
mkdir -p "$out"

browser=$(command -v chromium || command -v chromium-browser || true)
pdftotext=$(command -v pdftotext || true)
if [ -z "$browser" ] || [ -z "$pdftotext" ]; then
  missing=$([ -z "$browser" ] && echo -n "chromium "; [ -z "$pdftotext" ] && echo -n "poppler-utils")
  if [ -n "${CI:-}" ]; then
    echo "render-report: $missing missing in CI; scripts/bootstrap.sh installs them" >&2
    exit 1
  fi
  echo "skipped: $missing not installed; run make bootstrap (scripts/bootstrap.sh) as root" >&2
  exit 77
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Offline on purpose: the report must not need the network (the proxy goes nowhere).
flags=(--headless --no-sandbox --disable-gpu --user-data-dir="$profile" --proxy-server=127.0.0.1:9
  --hide-scrollbars)
rm -f "$out/usage-1280x800.png" "$out/usage.pdf" "$out/usage.pdf.txt"
timeout 120 "$browser" "${flags[@]}" --window-size=1280,800 --screenshot="$out/usage-1280x800.png" \
  "file://$html" >/dev/null 2>&1
timeout 120 "$browser" "${flags[@]}" --no-pdf-header-footer --print-to-pdf="$out/usage.pdf" \
  "file://$html" >/dev/null 2>&1
test -s "$out/usage-1280x800.png"
test -s "$out/usage.pdf"
"$pdftotext" -layout "$out/usage.pdf" "$out/usage.pdf.txt"
echo "$out"
