#!/usr/bin/env bash
# Runs the release-build benchmarks in Benchmarks/ (package-benchmark) and prints the ratios
# the issues ask for, computed from figures measured in this same run.
# Usage: Scripts/bench.sh [extra `swift package benchmark` arguments]
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
swift package --allow-writing-to-package-directory benchmark --format markdown "$@" | tee "$out"

# p50 of the wall-clock table row of each benchmark (ns per action).
p50() {
  awk -v name="$1" '
    index($0, "## " name) == 1 || index($0, name) && /^#/ { found = 1 }
    found && /Time \(wall clock\)/ { split($0, c, "|"); gsub(/ /, "", c[4]); print c[4]; exit }
  ' "$out"
}
a=$(p50 "(a) bare pipeline")
c=$(p50 "(c) store: 3 middlewares, 3 reducers")
if [ -n "$a" ] && [ -n "$c" ]; then
  echo
  echo "(c)/(a) = $(python3 -c "print(f'{$c / $a:.2f}')") (p50 $c ns vs $a ns per action; target <= 3)"
fi
