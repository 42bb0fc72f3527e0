#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for tests and local trials: initialised under a temporary folder,
# listening on 127.0.0.1 only, owned by the `postgres` system user (initdb refuses root).
#
#   scripts/pg-cluster.sh start    initialise (first time) and start; prints the server URL
#   scripts/pg-cluster.sh stop     stop it (and delete the folder with RMS_PG_KEEP unset)
#   scripts/pg-cluster.sh status   exit 0 when running
#   scripts/pg-cluster.sh url      print the server URL
#
# Every subcommand is idempotent: starting a running cluster or stopping a stopped one is fine.
# Settings (environment):
#   RMS_PG_DIR   folder of the cluster    (default: ${TMPDIR:-/tmp}/rmsgen-pg-cluster)
#   RMS_PG_PORT  port on 127.0.0.1        (default: the first free one from 54329; kept in the folder)
#   RMS_PG_KEEP  non-empty: `stop` keeps the folder, so the next `start` reuses the data
#
# The cluster is made for tests: UTF-8 with the C.UTF-8 locale (lower() folds all of Unicode,
# text sorts by code point), fsync off (a crash may lose it; nothing here outlives the run).
# Only the URL goes to stdout; progress goes to stderr.
set -euo pipefail

DIR="${RMS_PG_DIR:-${TMPDIR:-/tmp}/rmsgen-pg-cluster}"
PASSWORD=rmsgen
DATA="$DIR/data"
PORT_FILE="$DIR/port"

say() { echo "pg-cluster: $*" >&2; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The port: as given, else the one this cluster used last, else the first free one from 54329.
choose_port() {
  if [ -n "${RMS_PG_PORT:-}" ]; then
    PORT=$RMS_PG_PORT
  elif [ -f "$PORT_FILE" ]; then
    PORT=$(cat "$PORT_FILE")
  else
    PORT=54329
    while port_busy "$PORT"; do
      PORT=$((PORT + 1))
      if [ "$PORT" -gt 54429 ]; then
        say "no free port in 54329-54429: set RMS_PG_PORT"
        exit 1
      fi
    done
  fi
  URL="postgres://postgres:$PASSWORD@127.0.0.1:$PORT/postgres"
}

pg_bin() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    say "PostgreSQL server binaries not found under /usr/lib/postgresql: apt-get install -y postgresql"
    exit 1
  fi
  echo "$bin"
}

# Runs a server binary as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

running() {
  [ -f "$DATA/PG_VERSION" ] && as_owner "$BIN/pg_ctl" status -D "$DATA" >/dev/null 2>&1
}

init_cluster() {
  mkdir -p "$DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$DIR"
  chmod 700 "$DIR"
  local pwfile="$DIR/pwfile"
  echo "$PASSWORD" >"$pwfile"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$pwfile"
  say "initialising a cluster in $DATA"
  as_owner "$BIN/initdb" -D "$DATA" -U postgres --pwfile="$pwfile" \
    --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >"$DIR/initdb.log" 2>&1 || {
    cat "$DIR/initdb.log" >&2
    exit 1
  }
  rm -f "$pwfile"
}

start() {
  if running; then
    say "already running on 127.0.0.1:$PORT"
    echo "$URL"
    return
  fi
  [ -f "$DATA/PG_VERSION" ] || init_cluster
  if port_busy "$PORT"; then
    say "port $PORT on 127.0.0.1 is taken by another program: set RMS_PG_PORT"
    exit 1
  fi
  echo "$PORT" >"$PORT_FILE"
  say "starting on 127.0.0.1:$PORT"
  # Several test workers each start servers with their own pools: allow plenty of connections.
  as_owner "$BIN/pg_ctl" start -D "$DATA" -w -t 60 -l "$DIR/server.log" -o \
    "-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$DIR -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    >/dev/null || {
    tail -n 30 "$DIR/server.log" >&2 || true
    exit 1
  }
  echo "$URL"
}

stop() {
  if running; then
    say "stopping"
    as_owner "$BIN/pg_ctl" stop -D "$DATA" -m fast -w -t 60 >/dev/null
  else
    say "not running"
  fi
  if [ -z "${RMS_PG_KEEP:-}" ] && [ -d "$DIR" ]; then
    rm -rf "$DIR"
  fi
}

BIN=$(pg_bin)
choose_port
case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status)
    if running; then
      say "running on 127.0.0.1:$PORT"
    else
      say "not running"
      exit 1
    fi
    ;;
  url) echo "$URL" ;;
  *)
    echo "usage: $0 start|stop|status|url" >&2
    exit 2
    ;;
esac
