#!/usr/bin/env bash
# Renders a usage report's HTML in headless Chromium and writes a screenshot for review.
#   scripts/render-report.sh REPORT.html [SCREENSHOT.png]   (default .build/usage-report.png)
# Installs Debian's `chromium` when it is missing and we are root (apt-get); otherwise exits 77 with a
# message saying what to install (the tests treat 77 as "skipped").
set -euo pipefail
cd "$(dirname "$0")/.."
html=$(realpath "$1")
png=${2:-.build/usage-report.png}
mkdir -p "$(dirname "$png")"
png=$(realpath -m "$png")

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "skipped: chromium is not installed and this is not root; run: sudo apt-get install -y chromium" >&2
    exit 77
  fi
  echo "installing chromium (apt-get)..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
    || { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends chromium >/dev/null; }
  browser=$(command -v chromium)
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Offline on purpose: the report must not need the network. --dump-dom proves the page parsed and its
# script ran (the sortable tables get click handlers; the DOM still holds the SVG chart).
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
  --proxy-server=127.0.0.1:9 --window-size=1400,2000 --screenshot="$png" "file://$html" >/dev/null 2>&1
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
  --proxy-server=127.0.0.1:9 --dump-dom "file://$html" 2>/dev/null > "${png%.png}.dom.html"
test -s "$png"
echo "$png"
