#!/usr/bin/env bash
# Installs the Debian packages the build needs: the C libraries walletops stands on.
# As root it runs apt-get itself; otherwise it prints the exact command to run.
set -euo pipefail

packages=(
  pkg-config
  libssl-dev        # OpenSSL libcrypto: SHA-2, HMAC, HKDF, AES, ChaCha20-Poly1305, P-256/P-384, X25519, X.509
  libsecp256k1-dev  # secp256k1: Ethereum keys and signatures
  libsodium-dev     # Ed25519 (Solana) and scrypt without OpenSSL's memory cap
  libyaml-dev       # playbook YAML with line and column marks
  libsqlite3-dev    # embedded core and run checkpoints
  libmicrohttpd-dev # the core's HTTP server
  libpq-dev         # PostgreSQL's client library: the run store shared by several machines (issue 24)
  libcurl4-openssl-dev # release builds link Foundation statically, and FoundationNetworking needs libcurl
  postgresql-15     # the server for the tests and local use (scripts/postgres.sh makes throwaway clusters)
  valgrind          # make ct-check: memcheck with the secrets marked undefined (issue 28)
  chromium          # the usage report's HTML rendered headless, screenshot and PDF (issue 26)
  poppler-utils     # pdftotext: the printed report's text, checked by the tests (issue 26)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  echo "bootstrap: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "bootstrap: missing Debian packages. Run as root:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
