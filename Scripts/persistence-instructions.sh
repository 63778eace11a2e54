#!/usr/bin/env bash
# Counts instructions per persisted row with valgrind's callgrind, which does not depend on the
# machine's load. Each contender of Benchmarks/PersistenceContenders runs at two sizes, and so
# does `setup` (the rows, the app's reduces into an EntityStore, a fresh database): per row =
# ((Ir(c, n2) - Ir(setup, n2)) - (Ir(c, n1) - Ir(setup, n1))) / (n2 - n1), the contender's own
# work without start-up, setup and teardown. For PersistenceSQLite that work is the drains
# (`afterReduce` after each of 10 reduces) and the flush: everything an app pays for it.
# `persistence-update` (every row already stored and loaded, then changed: each written at its
# version, the conflict check) is counted against its own setup, `setup-update`.
# Fails when the drains and the flush of a row exceed their budget, or when a generic iterator
# of the standard library runs unspecialized once per row (the drains' regression of 0.3).
# Then the same for a load (hydration) against a bare GRDB Row fetch of its rows.
# Usage: Scripts/persistence-instructions.sh [n1 n2]   (default 10000 30000)
#   PERSISTENCE_CONTENDERS=path/to/PersistenceContenders counts another build of the same
#   program (an earlier release's, to compare its flush with this one's).
# Wall-clock ratios, interleaved in one process:
#   .build/release/PersistenceContenders interleaved 15 100000   (after this script's build)
#   .build/release/PersistenceContenders hydration 9 100000
set -euo pipefail
cd "$(dirname "$0")/.."
n1=${1:-10000}
n2=${2:-30000}
command -v valgrind >/dev/null || { echo "persistence-instructions: valgrind is not installed (apt-get install valgrind)"; exit 1; }
scratch=${SCRATCH_PATH:-Benchmarks/.build}
swift build -c release --package-path Benchmarks --scratch-path "$scratch" --product PersistenceContenders >/dev/null
binary=${PERSISTENCE_CONTENDERS:-$(swift build -c release --package-path Benchmarks --scratch-path "$scratch" --show-bin-path)/PersistenceContenders}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Total instructions (Ir) of one run, all threads; the profile of the last run stays in
# $work/out.
count() {
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$binary" "$1" "$2" >/dev/null 2>&1
  awk '/^summary:/ { print $2 }' "$work/out"
}

setup_small=$(count setup "$n1")
setup_large=$(count setup "$n2")
declare -A per_row
for contender in persistence grdb-json grdb-jsonencoder grdb-columns; do
  small=$(count "$contender" "$n1")
  cp "$work/out" "$work/small"
  large=$(count "$contender" "$n2")
  per_row[$contender]=$(( ((large - setup_large) - (small - setup_small)) / (n2 - n1) ))
  echo "$contender: ${per_row[$contender]} instructions/row"
  if [ "$contender" = persistence ]; then
    # The flush alone: the transaction (`SQLiteDatabase.commit`'s closure on the writer queue,
    # inclusive) at both sizes, from the profiles of the two runs.
    transaction() {
      callgrind_annotate --inclusive=yes "$1" 2>/dev/null \
        | awk '/SQLiteDatabase.swift:.*PersistenceSQLite0B8DatabaseC6commit.*FlushV4GRDB0C0CYbKXEfU0_ / && !found { gsub(",", "", $1); print $1; found = 1 }'
    }
    flush_small=$(transaction "$work/small")
    flush_large=$(transaction "$work/out")
    if [ -n "$flush_small" ] && [ -n "$flush_large" ]; then
      flush_alone=$(( (flush_large - flush_small) / (n2 - n1) ))
      echo "persistence, the flush alone (its transaction): $flush_alone instructions/row"
    fi
    # The guard: no generic iterator of the standard library may run unspecialized once per row
    # of the drains and the flush (each such `next()` looks its generic metadata up: thousands
    # of instructions a row). Their inclusive cost per row, at n2 rows.
    callgrind_annotate --inclusive=yes "$work/out" 2>/dev/null \
      | awk -v rows="$n2" '/EnumeratedSequenceV8IteratorV4next|LazyMapSequenceV8IteratorV4next|LazyFilterSequenceV8IteratorV4next|Zip2SequenceV8IteratorV4next/ {
          gsub(",", "", $1); if ($1 / rows > 200) { printf "unspecialized iteration per row: %d instructions/row in %s\n", $1 / rows, $3; bad = 1 }
        } END { exit bad }' > "$work/iterators" || true
    if [ -s "$work/iterators" ]; then
      cat "$work/iterators"
      unspecialized=1
    fi
  fi
done
update_small=$(( $(count persistence-update "$n1") - $(count setup-update "$n1") ))
update_large=$(( $(count persistence-update "$n2") - $(count setup-update "$n2") ))
echo "persistence-update: $(( (update_large - update_small) / (n2 - n1) )) instructions/row"
p=${per_row[persistence]}
if [ -n "${flush_alone:-}" ]; then
  awk -v b="${per_row[grdb-columns]}" -v f="$flush_alone" \
    'BEGIN { printf "the flush alone / grdb-columns = %.2f (target >= 0.8)\n", b / f }'
fi
for baseline in grdb-columns grdb-jsonencoder grdb-json; do
  awk -v b="${per_row[$baseline]}" -v p="$p" -v name="$baseline" \
    'BEGIN { printf "persistence throughput / %s = %.2f%s\n", name, b / p, (name == "grdb-columns" ? " (target >= 0.5: the same columns by a hand-written prepared upsert)" : "") }'
done
# Hydration: SQLiteDatabase.load of the stored rows against GRDB Rows of the same SELECT, each
# counted against `setup-load` (the rows stored, nothing loaded). Target: load <= 2x the fetch.
load_small=$(( $(count setup-load "$n1") ))
load_large=$(( $(count setup-load "$n2") ))
declare -A hydration
for contender in load grdb-rows; do
  small=$(count "$contender" "$n1")
  large=$(count "$contender" "$n2")
  hydration[$contender]=$(( ((large - load_large) - (small - load_small)) / (n2 - n1) ))
  echo "$contender: ${hydration[$contender]} instructions/row"
done
awk -v l="${hydration[load]}" -v r="${hydration[grdb-rows]}" \
  'BEGIN { printf "load / grdb-rows = %.2f (target <= 2: hydration against a bare Row fetch)\n", l / r }'
# The budget of the drains and the flush of a new row: what this release costs (20,167 once
# new rows and log records were written many to a statement; 31,064 before, 49,972 before
# the drain and the flush's version work were specialized for the app's entity), with room
# for the runs' spread, so that a regression fails here (PERSISTENCE_BUDGET overrides it).
budget=${PERSISTENCE_BUDGET:-22500}
if [ "$p" -gt "$budget" ]; then
  echo "persistence-instructions: FAIL: $p instructions/row, over the budget of $budget"
  exit 1
fi
if [ "${hydration[load]}" -gt $(( 2 * ${hydration[grdb-rows]} )) ]; then
  echo "persistence-instructions: FAIL: a load costs over twice a bare Row fetch"
  exit 1
fi
if [ -n "${unspecialized:-}" ]; then
  echo "persistence-instructions: FAIL: a generic iterator runs unspecialized once per row"
  exit 1
fi
echo "persistence-instructions: ok ($p instructions/row, budget $budget)"
