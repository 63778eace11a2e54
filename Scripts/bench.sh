#!/usr/bin/env bash
# Runs the release-build benchmarks in Benchmarks/ (package-benchmark), then prints the ratios
# the issues ask for, each computed from two figures measured in this same run.
# Usage: Scripts/bench.sh [extra `swift package benchmark` arguments, e.g. --target NAME]
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
swift package --allow-writing-to-package-directory benchmark --format markdown "$@" | tee "$out"

python3 - "$out" <<'PY'
import re, sys

# p50 wall clock of every benchmark, in the unit its table states.
p50, unit, name = {}, {}, None
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("### "):
        name = line[4:].strip()
    elif name and line.startswith("| Time (wall clock)"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        p50[name] = float(cells[3])  # columns: metric, p0, p25, p50, ...
        unit[name] = re.search(r"\((\S+)\) ", cells[0]).group(1)

pairs = [
    ("(c) store: 3 middlewares, 3 reducers",
     "(a) bare pipeline: 3 middleware closures around 3 reducers", "target <= 3"),
    ("(b) store: 0 middlewares, 1 reducer",
     "(a) bare pipeline: 3 middleware closures around 3 reducers", ""),
    ("(d) store: 3 middlewares, 3 reducers, onLog",
     "(c) store: 3 middlewares, 3 reducers", "cost of onLog"),
    ("lookup 100k ids: EntityStore", "lookup 100k ids: OrderedDictionary", "target <= 1.3"),
    ("upsert 100k new: EntityStore", "upsert 100k new: OrderedDictionary", "target <= 1.3"),
    ("delete 1000 of 100k: OrderedDictionary", "delete 1000 of 100k: EntityStore",
     "speed-up, target >= 100"),
    ("iterate 100k: EntityStore", "iterate 100k: Array", "target <= 1.5"),
    ("iterate 100k after 1000 deletes: EntityStore", "iterate 100k: Array", "target <= 1.5"),
    ("drain 10 changes: EntityStore of 100k", "drain 10 changes: EntityStore of 1k",
     "O(changes): ~1 expected"),
    ("flush 100k upserts: GRDB prepared loop", "flush 100k upserts: PersistenceSQLite",
     "throughput vs hand-written, target >= 0.5"),
    ("afterReduce unchanged x100k: 100000 entities", "afterReduce unchanged x100k: 100 entities",
     "O(writers): ~1 expected"),
    ("send .none action: FeatureStore", "send .none action: hand-rolled @Observable store",
     "no target; the cost of the pipeline"),
    ("send .none action: DLViewModel", "send .none action: hand-rolled @Observable store",
     "no target; the cost of the pipeline"),
]
print("\nRatios (p50 / p50, same run):")
for top, bottom, note in pairs:
    if top in p50 and bottom in p50 and p50[bottom] > 0:
        print(f"  {top}  /  {bottom}  =  {p50[top] / p50[bottom]:.2f}"
              f"   ({p50[top]:g} / {p50[bottom]:g} {unit[top]}){'   ' + note if note else ''}")
PY
