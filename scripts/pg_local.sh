#!/usr/bin/env bash
# A local PostgreSQL 15 for trying shelfmark's PostgreSQL store, from Debian's packages
# (apt-get install postgresql-15), in a folder of your own; no docker, no system service.
#
#   scripts/pg_local.sh start DIR [PORT]     initdb DIR (once), start it, print the URL
#   scripts/pg_local.sh stop DIR             stop it (fast shutdown)
#   scripts/pg_local.sh url DIR              print the URL of a started cluster
#   scripts/pg_local.sh replica PRIMARY DIR [PORT]
#                                            a streaming replica of PRIMARY's cluster in DIR
#                                            (pg_basebackup -R), started; prints its URL
#
# The cluster listens on 127.0.0.1 only, with its socket inside DIR, and trusts local
# connections (it is for trying on one machine: give it a password and `scram-sha-256`
# in pg_hba.conf before other machines reach it). The database is `shelfmark`, its owner
# the role `shelfmark`: the URL printed is postgres://shelfmark@127.0.0.1:PORT/shelfmark.
# Run as root, the server runs as the unprivileged user `postgres` (else `nobody`), which
# then owns DIR.
set -euo pipefail

BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
[ -x "$BIN/initdb" ] || BIN=$(dirname "$(command -v initdb 2>/dev/null || echo /none/initdb)")
die() {
  echo "pg_local: $*" >&2
  exit 1
}
[ -x "$BIN/initdb" ] || die "PostgreSQL 15 binaries not found (apt-get install postgresql-15, or set PG_BIN)"

# The user the server runs as, and how to run a command as it.
if [ "$(id -u)" = 0 ]; then
  RUNAS=$(getent passwd postgres >/dev/null && echo postgres || echo nobody)
  # from /, which it can enter (the caller's folder may be closed to it: pg_ctl and initdb
  # then warn "could not change directory")
  as_user() { (cd / && setpriv --reuid="$RUNAS" --regid="$(id -g "$RUNAS")" --init-groups -- "$@"); }
else
  RUNAS=$(id -un)
  as_user() { "$@"; }
fi

url() { echo "postgres://shelfmark@127.0.0.1:$1/shelfmark"; }
port_of() { sed -n 's/^port = \([0-9]*\).*/\1/p' "$1/data/postgresql.auto.conf" | tail -1; }

# A free TCP port at or after $1.
free_port() {
  local p=$1
  while (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}

prepare_dir() {
  mkdir -p "$1"
  local dir
  dir=$(cd "$1" && pwd)
  [ "$(id -u)" = 0 ] && chown "$RUNAS" "$dir"
  chmod 700 "$dir"
  echo "$dir"
}

start_cluster() {
  local dir=$1
  as_user "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null ||
    die "the server did not start; see $dir/server.log"
}

settings() {
  local dir=$1 port=$2
  # postgresql.auto.conf: read last, so these win over postgresql.conf (and a base
  # backup copies the primary's, which the replica then overrides here)
  as_user sh -c "cat >> '$dir/data/postgresql.auto.conf'" <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
EOF
}

# An existing folder's absolute path (the server's commands run from /).
abs() { (cd "$1" 2>/dev/null && pwd) || die "no folder $1"; }

cmd=${1:-}
case "$cmd" in
start)
  [ $# -ge 2 ] || die "usage: pg_local.sh start DIR [PORT]"
  dir=$(prepare_dir "$2")
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    port=$(free_port "${3:-55432}")
    as_user "$BIN/initdb" -D "$dir/data" -U shelfmark --auth=trust -E UTF8 --locale=C.UTF-8 \
      >"$dir/initdb.log" 2>&1 || die "initdb failed; see $dir/initdb.log"
    settings "$dir" "$port"
    start_cluster "$dir"
    as_user "$BIN/createdb" -h "$dir" -p "$port" -U shelfmark -O shelfmark shelfmark
  else
    port=$(port_of "$dir")
    [ -n "${3:-}" ] && [ "$3" != "$port" ] && die "$dir is set up for port $port"
    as_user "$BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 || start_cluster "$dir"
  fi
  url "$port"
  ;;
stop)
  [ $# -ge 2 ] || die "usage: pg_local.sh stop DIR"
  [ -f "$2/data/PG_VERSION" ] || die "no cluster in $2"
  as_user "$BIN/pg_ctl" -D "$(abs "$2")/data" -m fast -w stop >/dev/null
  ;;
url)
  [ $# -ge 2 ] || die "usage: pg_local.sh url DIR"
  [ -f "$2/data/PG_VERSION" ] || die "no cluster in $2"
  url "$(port_of "$2")"
  ;;
replica)
  [ $# -ge 3 ] || die "usage: pg_local.sh replica PRIMARY_DIR DIR [PORT]"
  [ -f "$2/data/PG_VERSION" ] || die "no cluster in $2"
  primary=$(port_of "$2")
  dir=$(prepare_dir "$3")
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    port=$(free_port "${4:-$((primary + 1))}")
    # -R: standby.signal and primary_conninfo; -X stream: the WAL of the copy streams too;
    # -c fast: checkpoint at once (the default spreads it over minutes of checkpoint_timeout)
    as_user "$BIN/pg_basebackup" -h 127.0.0.1 -p "$primary" -U shelfmark -D "$dir/data" \
      -R -X stream -c fast >"$dir/basebackup.log" 2>&1 || die "pg_basebackup failed; see $dir/basebackup.log"
    settings "$dir" "$port"
  else
    port=$(port_of "$dir")
  fi
  as_user "$BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 || start_cluster "$dir"
  url "$port"
  ;;
*)
  die "usage: pg_local.sh start DIR [PORT] | stop DIR | url DIR | replica PRIMARY_DIR DIR [PORT]"
  ;;
esac
