#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `eval "$(Scripts/postgres.sh start)"` installs
# PostgreSQL from Debian's packages when missing, starts a cluster in a temp directory on a free
# loopback port (as a non-root user: the server refuses root), with password authentication, and
# prints the exports the tests read (REDUXKIT_POSTGRES_URL, REDUXKIT_POSTGRES_DIR);
# `Scripts/postgres.sh stop` stops it and deletes its files.
set -euo pipefail

bin_dir() {
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
    dirname "$(command -v initdb)"
    return
  fi
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$found" ] && echo "$found"
}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

case "${1:-}" in
start)
  if [ -z "$(bin_dir)" ]; then
    SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
    {
      # NB: waits for another apt's lock rather than failing at once.
      $SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
        postgresql
    } >&2
  fi
  bin=$(bin_dir)
  [ -n "$bin" ] || { echo "postgres.sh: no PostgreSQL after installing it" >&2; exit 1; }
  owner=$(id -un)
  if [ "$(id -u)" -eq 0 ]; then
    owner=reduxkit-pg
    id "$owner" >/dev/null 2>&1 || useradd --system --no-create-home "$owner" >&2
  fi
  dir=$(mktemp -d /tmp/reduxkit-pg.XXXXXX)
  chown "$owner" "$dir"
  password=reduxkit-test
  echo "$password" >"$dir/password"
  chown "$owner" "$dir/password"
  as_owner "$bin/initdb" -D "$dir/data" -U reduxkit --pwfile="$dir/password" \
    --auth-host=scram-sha-256 --auth-local=trust -E UTF8 >&2
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off" start >&2
  echo "export REDUXKIT_POSTGRES_URL=postgres://reduxkit:$password@127.0.0.1:$port/postgres"
  echo "export REDUXKIT_POSTGRES_DIR=$dir"
  ;;
stop)
  dir=${REDUXKIT_POSTGRES_DIR:?postgres.sh stop: REDUXKIT_POSTGRES_DIR is not set}
  bin=$(bin_dir)
  owner=$(stat -c %U "$dir")
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir"
  ;;
*)
  echo "usage: Scripts/postgres.sh start | stop" >&2
  exit 2
  ;;
esac
