#!/usr/bin/env bash
# A throw-away PostgreSQL server for the run registry's tests (docs/runs-storage.md).
#
#   scripts/pg-test-server.sh start DIR   initdb into DIR/data, start the server listening only on
#                                         a unix socket (no TCP), create the database
#                                         paratune_test and write its URL to DIR/url
#   scripts/pg-test-server.sh stop DIR    stop that server and remove its data; DIR/log stays
#
# CTest runs these as the fixture tests runs_pg_server_start / runs_pg_server_stop with DIR =
# build/<preset>/pg-test, so the README's test command and .ci/run both get a server, and two
# presets' servers never share a directory. A server left running in DIR by a killed run is
# stopped and its data removed by the next start. When no PostgreSQL binaries are installed, or
# the server does not start, start writes no DIR/url, writes the reason to DIR/status, prints it
# and exits 0: the tests then skip their PostgreSQL half with that reason.
#
# As root (CI, containers) initdb refuses to run, so the server runs as the `postgres` system
# user (Debian's postgresql package creates it) on a DIR/data it owns. The server is for tests
# only: fsync off, authentication "trust" on a socket that only its owner (and root) may open.
set -uo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action="$1"
dir="$2"
case "$action" in start|stop) ;; *) usage ;; esac
mkdir -p "$dir" || exit 2
dir="$(cd "$dir" && pwd)"
data="$dir/data"
logf="$dir/log"
# Where a start put the server's files when DIR was closed to the postgres user (below).
if [ -f "$dir/datadir" ]; then
  case "$(cat "$dir/datadir")" in /tmp/paratune-pg.*) data="$(cat "$dir/datadir")/data"; logf="$(cat "$dir/datadir")/log" ;; esac
fi
port=5432  # the socket's name only (.s.PGSQL.5432): nothing listens on TCP
db=paratune_test
pguser=paratune

# The newest installed server binaries: Debian keeps them in /usr/lib/postgresql/<version>/bin,
# off PATH; elsewhere initdb is usually on PATH.
find_bindir() {
  local d
  d="$(for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && echo "$d"; done |
       sort -V | tail -n 1)"
  if [ -z "$d" ] && command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    d="$(dirname "$(command -v initdb)")"
  fi
  echo "$d"
}

# Percent-encodes a URI query value (RFC 3986 section 2.1), keeping unreserved characters and '/'.
uri_encode() {
  local s="$1" out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c="${s:i:1}"
    case "$c" in [A-Za-z0-9/._~-]) out+="$c" ;; *) out+="$(printf '%%%02X' "'$c")" ;; esac
  done
  echo "$out"
}

# Runs a command as the server's owner: the postgres system user when we are root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# The socket directory: DIR/socket when its socket path fits the 107-byte limit of a unix
# socket address (sun_path), else a short directory under /tmp recorded in DIR/socketdir.
socket_dir() {
  if [ -f "$dir/socketdir" ]; then cat "$dir/socketdir"; return; fi
  local s="$dir/socket"
  if [ $(( ${#s} + 16 )) -gt 100 ]; then
    s="$(mktemp -d /tmp/paratune-pg.XXXXXX)" || return 1
  fi
  echo "$s" > "$dir/socketdir"
  echo "$s"
}

# Stops whatever server runs on DIR/data (a stale one from a killed run too) and removes the data.
stop_server() {
  local bindir="$1"
  if [ -f "$data/postmaster.pid" ]; then
    local pid
    pid="$(head -n 1 "$data/postmaster.pid" 2>/dev/null)"
    if [ -n "$bindir" ]; then
      as_owner "$bindir/pg_ctl" stop -D "$data" -m fast -w -t 20 >/dev/null 2>&1 ||
        as_owner "$bindir/pg_ctl" stop -D "$data" -m immediate -w -t 10 >/dev/null 2>&1
    fi
    # Still alive (no binaries left, or pg_ctl failed): the postmaster's pid, if it is a postgres.
    if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
       grep -q postgres "/proc/$pid/comm" 2>/dev/null; then
      kill -9 "$pid" 2>/dev/null
      sleep 1
    fi
  fi
  rm -rf "$data"
  if [ -f "$dir/datadir" ]; then
    local b
    b="$(cat "$dir/datadir")"
    [ "$logf" = "$dir/log" ] || cp "$logf" "$dir/log" 2>/dev/null || true
    case "$b" in /tmp/paratune-pg.*) rm -rf "$b" ;; esac
    rm -f "$dir/datadir"
    data="$dir/data"
    logf="$dir/log"
  fi
  if [ -f "$dir/socketdir" ]; then
    local s
    s="$(cat "$dir/socketdir")"
    case "$s" in "$dir/socket"|/tmp/paratune-pg.*) rm -rf "$s" ;; esac
    rm -f "$dir/socketdir"
  fi
}

# start failed or impossible: say why, leave no URL, succeed (the tests skip PostgreSQL).
unavailable() {
  echo "PostgreSQL test server not started: $1" | tee "$dir/status"
  exit 0
}

bindir="$(find_bindir)"
rm -f "$dir/url"

if [ "$action" = stop ]; then
  stop_server "$bindir"
  echo "PostgreSQL test server in $dir stopped"
  exit 0
fi

stop_server "$bindir"  # a stale server from a killed run
rm -f "$dir/status"
[ -n "$bindir" ] || unavailable "no initdb/pg_ctl found (install Debian's postgresql: scripts/install-deps.sh)"
if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
  unavailable "running as root and there is no 'postgres' system user to run the server as"
fi
sock="$(socket_dir)" || unavailable "cannot create a socket directory"
mkdir -p "$data" "$sock" || unavailable "cannot create $data"
: > "$dir/log"
if [ "$(id -u)" -eq 0 ]; then
  chown postgres "$data" "$sock" "$dir/log" || unavailable "cannot give $data to the postgres user"
  if ! as_owner test -w "$data"; then
    # A parent directory of DIR is closed to the postgres user (a clone under a 0700 directory,
    # as mktemp -d makes): the server's data, socket and log go under /tmp instead, recorded in
    # DIR/datadir, and stop copies the log back to DIR/log.
    rm -rf "$data"
    [ "$sock" = "$dir/socket" ] && rm -rf "$sock"
    base="$(mktemp -d /tmp/paratune-pg.XXXXXX)" || unavailable "cannot create a directory under /tmp"
    echo "$base" > "$dir/datadir"
    echo "$base" > "$dir/socketdir"
    data="$base/data"
    sock="$base"
    logf="$base/log"
    mkdir -p "$data" && : > "$logf" || unavailable "cannot create $data"
    chown -R postgres "$base" || unavailable "cannot give $base to the postgres user"
    as_owner test -w "$data" || unavailable "the postgres user cannot write $data"
  fi
fi
chmod 700 "$data" "$sock"

if ! as_owner "$bindir/initdb" -D "$data" -U "$pguser" --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 \
     >> "$logf" 2>&1; then
  tail -n 5 "$logf" >&2
  unavailable "initdb failed (see $logf)"
fi
opts="-c listen_addresses='' -c unix_socket_directories='$sock' -c unix_socket_permissions=0700"
opts+=" -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=100 -p $port"
if ! as_owner "$bindir/pg_ctl" start -D "$data" -w -t 60 -l "$logf" -o "$opts" >/dev/null 2>&1; then
  tail -n 5 "$logf" >&2
  stop_server "$bindir"
  unavailable "the server did not start (see $logf)"
fi
if ! as_owner "$bindir/createdb" -h "$sock" -p "$port" -U "$pguser" "$db" >> "$logf" 2>&1; then
  tail -n 5 "$logf" >&2
  stop_server "$bindir"
  unavailable "createdb $db failed (see $logf)"
fi
# libpq URI (PostgreSQL manual, "Connection URIs"): no host part, the socket directory as host=.
echo "postgresql:///$db?host=$(uri_encode "$sock")&port=$port&user=$pguser" > "$dir/url.tmp" && mv "$dir/url.tmp" "$dir/url"
echo "PostgreSQL test server ($("$bindir/postgres" --version 2>/dev/null)) running: $(cat "$dir/url")"
