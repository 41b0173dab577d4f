#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and local use (issue 24): nothing is installed or started by
# hand. Its files are in DIR (as root: in a folder of its own under /tmp that DIR names, see below).
#
#   scripts/postgres.sh start DIR   initdb in DIR (if new), start it on a free loopback port, print its URL
#   scripts/postgres.sh url DIR     print the URL of the running cluster in DIR
#   scripts/postgres.sh stop DIR    stop it (fast shutdown); its files stay
#   scripts/postgres.sh remove DIR  stop it and remove its files and DIR
#
# The cluster trusts loopback connections (no password: it is for tests, reachable only from this host)
# and listens on 127.0.0.1 and a Unix socket in DIR. As root it runs as the `postgres` user that
# Debian's package creates (initdb refuses root). PostgreSQL 15 from Debian (scripts/bootstrap.sh).
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: scripts/postgres.sh start|url|stop|remove DIR" >&2
  exit 64
fi

bin=${WALLETOPS_POSTGRES_BIN:-}
if [ -z "$bin" ]; then
  for candidate in /usr/lib/postgresql/*/bin; do [ -x "$candidate/pg_ctl" ] && bin=$candidate; done
fi
if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "postgres.sh: no PostgreSQL server found (install postgresql-15: scripts/bootstrap.sh)" >&2
  exit 69
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# As root the cluster's files live where the postgres user can reach them (DIR may sit under a folder only
# root may enter, such as a mktemp -d clone): a folder of its own under /tmp, named in DIR/cluster.
if [ "$(id -u)" -eq 0 ]; then
  if [ -f "$dir/cluster" ]; then
    cluster=$(cat "$dir/cluster")
  else
    cluster=$(mktemp -d /tmp/walletops-postgres.XXXXXX)
    chown postgres "$cluster"
    echo "$cluster" > "$dir/cluster"
  fi
  cd /
else
  cluster=$dir
fi
data=$cluster/data

# Runs a server program as the cluster's owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

url_of() {
  local port
  port=$(cat "$cluster/port")
  echo "postgresql://postgres@127.0.0.1:$port/postgres"
}

case "$command" in
  start)
    # The server must hold none of the caller's descriptors beyond 0-2 (a test runner's event stream:
    # a server keeping it open makes the runner wait for it forever).
    for fd in /proc/$$/fd/*; do
      fd=${fd##*/}
      if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    if [ ! -f "$data/PG_VERSION" ]; then
      as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
        > "$cluster/initdb.log" 2>&1 || { cat "$cluster/initdb.log" >&2; exit 1; }
    fi
    if as_owner "$bin/pg_ctl" -D "$data" status > /dev/null 2>&1; then
      url_of
      exit 0
    fi
    # A free loopback port, chosen by the kernel.
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' \
      > "$cluster/port"
    as_owner "$bin/pg_ctl" -D "$data" -l "$cluster/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $(cat "$cluster/port") -k $cluster -c fsync=off -c max_connections=200" \
      start > /dev/null || { cat "$cluster/server.log" >&2; exit 1; }
    url_of
    ;;
  url)
    url_of
    ;;
  stop | remove)
    if [ -f "$data/PG_VERSION" ]; then
      as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop > /dev/null 2>&1 || true
    fi
    if [ "$command" = remove ]; then rm -rf "$cluster" "$dir"; fi
    ;;
  *)
    echo "usage: scripts/postgres.sh start|url|stop|remove DIR" >&2
    exit 64
    ;;
esac
