#!/usr/bin/env bash
# PersistencePostgres under load, on a throwaway PostgreSQL cluster (Scripts/postgres.sh) unless
# REDUXKIT_POSTGRES_URL names a server already:
# 1. flush throughput: Benchmarks' PostgresContenders, interleaved rounds in one process, as a
#    ratio to a hand-written postgres-nio batch of the same rows' columns (target >= 0.7);
# 2. two board-server instances (release build) over one database, each loaded by wrk on
#    loopback at the same time (70 % GET /cards/:id, 30 % POST /cards): requests/s and latency
#    percentiles per instance; then the time until both hold the same board, and their /health.
# Usage: Scripts/postgres-bench.sh [rounds rows seconds]   (default 9 10000 15)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${1:-9}
rows=${2:-10000}
seconds=${3:-15}

if ! command -v wrk >/dev/null; then
  SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
  { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq wrk; } >&2
fi
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -n "${started_cluster:-}" ]; then Scripts/postgres.sh stop; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${REDUXKIT_POSTGRES_URL:-}" ]; then
  eval "$(Scripts/postgres.sh start)"
  started_cluster=1
fi

echo "==> flush throughput: PostgresContenders $rounds rounds of $rows rows"
swift build -c release --package-path Benchmarks --product PostgresContenders >/dev/null
"$(swift build -c release --package-path Benchmarks --show-bin-path)/PostgresContenders" "$rounds" "$rows"

echo "==> two board-server instances over one database, wrk for ${seconds}s each at once"
swift build -c release --package-path Examples/BoardServer --product board-server >/dev/null
server=$(swift build -c release --package-path Examples/BoardServer --show-bin-path)/board-server
database=load_$(date +%s)_$$
psql "$REDUXKIT_POSTGRES_URL" -qc "CREATE DATABASE $database"
url=${REDUXKIT_POSTGRES_URL%/*}/$database

# Starts an instance on a free port; prints the port once it listens.
start() {
  DATABASE_URL=$url "$server" --port 0 --instance "$1" >"$work/$1.out" 2>"$work/$1.log" &
  pids+=($!)
  for _ in $(seq 600); do
    port=$(sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$work/$1.out")
    [ -n "$port" ] && { echo "$port"; return; }
    sleep 0.1
  done
  echo "postgres-bench: $1 did not start: $(cat "$work/$1.log")" >&2
  exit 1
}
port_a=$(start load-a)
port_b=$(start load-b)

column=$(curl -sf -X POST -H 'Content-Type: application/json' -d '{"name": "Todo"}' \
  "http://127.0.0.1:$port_a/columns" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
for n in $(seq 100); do
  curl -sf -X POST -H 'Content-Type: application/json' \
    -d "{\"columnID\": \"$column\", \"title\": \"seed $n\"}" "http://127.0.0.1:$port_a/cards" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
done >"$work/ids"

cards() { curl -sf "http://127.0.0.1:$1/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["cards"])'; }
for _ in $(seq 300); do [ "$(cards "$port_b")" = 100 ] && break; sleep 0.1; done

cat >"$work/load.lua" <<LUA
local ids = {}
local counter = 0
local column = "$column"
for line in io.lines("$work/ids") do ids[#ids + 1] = line end
request = function()
  counter = counter + 1
  if counter % 10 < 3 then
    return wrk.format("POST", "/cards", { ["Content-Type"] = "application/json" },
      '{"columnID": "' .. column .. '", "title": "load ' .. counter .. '"}')
  end
  return wrk.format("GET", "/cards/" .. ids[(counter % #ids) + 1])
end
LUA
wrk -t1 -c8 -d"${seconds}s" --latency -s "$work/load.lua" "http://127.0.0.1:$port_a" >"$work/wrk-a" &
load_a=$!
wrk -t1 -c8 -d"${seconds}s" --latency -s "$work/load.lua" "http://127.0.0.1:$port_b" >"$work/wrk-b"
wait "$load_a"
stopped=$(date +%s.%N)

for instance in a b; do
  python3 - "$work/wrk-$instance" "$instance" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rate = re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)
latency = dict(re.findall(r"^\s+(50|90|99)%\s+(\S+)", text, re.M))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(f"instance {sys.argv[2]}: {rate} requests/s, p50 {latency.get('50')}, p90 {latency.get('90')}, "
      f"p99 {latency.get('99')}, non-2xx {errors.group(1) if errors else 0}")
PY
done

for _ in $(seq 600); do
  a=$(cards "$port_a")
  b=$(cards "$port_b")
  [ "$a" = "$b" ] && break
  sleep 0.05
done
echo "both instances hold $a and $b cards, $(python3 -c "import time; print(f'{time.time() - $stopped:.2f}')") s after the load stopped"
stored=$(psql "$url" -tAc "SELECT count(*) FROM cards")
echo "the database holds $stored cards"
for port in "$port_a" "$port_b"; do curl -sf "http://127.0.0.1:$port/health"; echo; done
[ "$a" = "$b" ] && [ "$a" = "$stored" ] || { echo "postgres-bench: the instances did not converge"; exit 1; }
