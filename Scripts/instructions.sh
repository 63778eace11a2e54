#!/usr/bin/env bash
# Counts instructions per dispatched action with valgrind's callgrind, which does not depend on
# the machine's load: each contender of Benchmarks/DispatchContenders runs at two sizes, and
# (Ir(n2) - Ir(n1)) / (n2 - n1) is the cost of one action without start-up and teardown.
# Usage: Scripts/instructions.sh [n1 n2]   (default 20000 60000)
# Wall-clock ratios, interleaved in one process:
#   swift run -c release --package-path Benchmarks DispatchContenders interleaved 15 1000000
# and on a state without @Observable (BenchState says why it is a second build):
#   swift run -c release --package-path Benchmarks --scratch-path Benchmarks/.build-plain \
#     -Xswiftc -DPLAIN_BENCH_STATE DispatchContenders interleaved 15 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
n1=${1:-20000}
n2=${2:-60000}
command -v valgrind >/dev/null || { echo "instructions: valgrind is not installed (apt-get install valgrind)"; exit 1; }
swift build -c release --package-path Benchmarks --product DispatchContenders >/dev/null
binary=$(swift build -c release --package-path Benchmarks --show-bin-path)/DispatchContenders
plain=(--package-path Benchmarks --scratch-path Benchmarks/.build-plain -Xswiftc -DPLAIN_BENCH_STATE)
swift build -c release "${plain[@]}" --product DispatchContenders >/dev/null
plain_binary=$(swift build -c release "${plain[@]}" --show-bin-path)/DispatchContenders
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Total instructions (Ir) of one run, all threads.
# NB: valgrind runs one thread at a time. Its default scheduling leaves a producer that retries
# a refused dispatch spinning, for billions of instructions at times, before the main thread
# drains (store-default-capacity once counted 68.7 billion for 20k actions; 354 million with
# --fair-sched=yes), so that contender runs with fair scheduling. The others keep the default,
# which lets the consumer drain large batches as it does natively: under fair scheduling the
# threads alternate so often that the 10 subscribers are refreshed far more often than in a
# native run (store-10: 7,401 instead of ~5,600 instructions/action).
count() {
  local scheduling=()
  [ "$1" != store-default-capacity ] || scheduling=(--fair-sched=yes)
  valgrind --tool=callgrind "${scheduling[@]}" --callgrind-out-file="$work/out" "${3:-$binary}" \
    "$1" "$2" >/dev/null 2>"$work/err"
  awk '/^summary:/ { print $2 }' "$work/out"
}

# The refusals the last run's producer retried (the contender reports them on standard error).
refusals() {
  sed -n 's/.* actions, \([0-9]*\) refusals retried.*/\1/p' "$work/err"
}

declare -A per_action
for contender in bare store sync-store store-10 sync-store-10 store-policy store-recorded; do
  small=$(count "$contender" "$n1")
  large=$(count "$contender" "$n2")
  per_action[$contender]=$(( (large - small) / (n2 - n1) ))
  echo "$contender: ${per_action[$contender]} instructions/action"
done
# NB: how often the retrying producer is refused differs from run to run, so the difference of
# two runs is no cost per action (it came out below the store's at times): each size's whole
# run per action instead, start-up included, with its refusals.
for n in "$n1" "$n2"; do
  total=$(count store-default-capacity "$n")
  echo "store at the default capacity, $n actions: $(( total / n )) instructions/action" \
    "(start-up included), $(refusals) refusals retried: no ratio, the retries count"
done
for contender in bare store; do
  small=$(count "$contender" "$n1" "$plain_binary")
  large=$(count "$contender" "$n2" "$plain_binary")
  per_action[$contender-plain]=$(( (large - small) / (n2 - n1) ))
  echo "$contender, state without @Observable: ${per_action[$contender-plain]} instructions/action"
done
awk -v s="${per_action[store]}" -v b="${per_action[bare]}" \
  -v r="${per_action[sync-store]}" -v s10="${per_action[store-10]}" -v r10="${per_action[sync-store-10]}" \
  -v p="${per_action[store-policy]}" -v rec="${per_action[store-recorded]}" \
  -v bp="${per_action[bare-plain]}" -v sp="${per_action[store-plain]}" \
  'BEGIN { printf "store / bare = %.2f (target <= 2)\n", s / b
           printf "ReSwift-style sync store / store = %.2f (target >= 4)\n", r / s
           printf "with 10 subscribers: ReSwift-style / store = %.2f (target >= 10)\n", r10 / s10
           printf "under an admission policy / store = %.2f (target <= 2)\n", p / s
           printf "recorded by DevTools / store = %.2f (target <= 1.5, issue 34)\n", rec / s
           printf "state without @Observable (no registrar, as the ReSwift-style value state):\n"
           printf "  store / bare = %.2f\n  ReSwift-style sync store / store = %.2f\n", sp / bp, r / sp }'
