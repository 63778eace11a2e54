#!/usr/bin/env bash
# Runs one shell block of README.md (written by `Scripts/readme-snippets.py --commands`) as a
# person would type it in the clone, against what Scripts/test.sh built:
# - `swift run [--package-path P] [--traits T] PRODUCT [--] ARGS` checks with SwiftPM that P has
#   that executable, then runs the one Scripts/test.sh built in the shared build folder, with
#   no input: the board reads its commands from standard input, so it starts, loads its file and
#   ends; a product still running after 10 s (a server) has started, and is stopped; one sent to
#   the background (README_BACKGROUND=1) runs until the block ends;
# - HOME is README_HOME, a folder of the test's own, so the board's default file
#   (~/.local/share/…) is the test's, and the next block finds it;
# - a PostgreSQL cluster the block starts is stopped with it, and every background job too.
#
# Usage: Scripts/readme-commands.sh BLOCK.sh SCRATCH   (from a folder laid out as the clone)
set -euo pipefail

block=$1
scratch=$2
export HOME=${README_HOME:?readme-commands.sh: README_HOME is not set}
unset XDG_DATA_HOME
parent_postgres=${REDUXKIT_POSTGRES_DIR:-}

finish() {
  local status=$?
  local jobs
  jobs=$(jobs -p)
  [ -z "$jobs" ] || kill $jobs 2>/dev/null || true
  wait 2>/dev/null || true
  if [ -n "${REDUXKIT_POSTGRES_DIR:-}" ] && [ "$REDUXKIT_POSTGRES_DIR" != "$parent_postgres" ]; then
    Scripts/postgres.sh stop >/dev/null 2>&1 || true
  fi
  exit "$status"
}
trap finish EXIT

swift() {
  if [ "${1:-}" != run ]; then
    command swift "$@"
    return
  fi
  shift
  local package=. product="" arguments=()
  while [ $# -gt 0 ] && [ -z "$product" ]; do
    case $1 in
      --package-path) package=$2; shift 2 ;;
      --traits) shift 2 ;;
      -*) echo "readme: an option of swift run this script does not know: $1" >&2; return 2 ;;
      *) product=$1; shift ;;
    esac
  done
  [ "${1:-}" != -- ] || shift
  arguments=("$@")
  # What `swift run` would find: the package and its product, from SwiftPM itself.
  command swift package --package-path "$package" --scratch-path "$scratch" describe --type json \
    2>/dev/null | python3 -c 'import json, sys
products = [p["name"] for p in json.load(sys.stdin)["products"] if "executable" in p["type"]]
sys.exit(0 if sys.argv[1] in products else f"readme: {sys.argv[2]} has no executable {sys.argv[1]} (it has {products})")' \
    "$product" "$package" || return 1
  if [ -n "${README_BACKGROUND:-}" ]; then
    # NB: exec, so that the job the block's end stops is timeout itself, which stops the product.
    exec timeout --kill-after=5 600 "$scratch/debug/$product" "${arguments[@]}" </dev/null
  fi
  local seconds=10 status=0
  timeout --kill-after=5 "$seconds" "$scratch/debug/$product" "${arguments[@]}" </dev/null \
    || status=$?
  if [ "$status" -eq 124 ]; then
    echo "readme: $product still runs after $seconds s, as a server does: stopped"
    return 0
  fi
  return "$status"
}

# Waits (up to a minute) until a server the block started listens on the loopback `port`.
readme_wait_for_port() {
  local port=$1 tries=0
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -gt 600 ]; then
      echo "readme: nothing listens on port $port after a minute" >&2
      return 1
    fi
    sleep 0.1
  done
}

# shellcheck disable=SC1090
source "$block"
