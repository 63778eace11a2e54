#!/usr/bin/env bash
# Builds every package with warnings as errors and runs its tests, then the root package's, the
# board end to end (tmux), the DevTools pages (Chromium), the README's app (Scripts/readme.sh),
# then the same suites under the sanitizers (Scripts/sanitize.sh). Stops at the first failure.
# Ends with one line: "N passed, N failed".
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
# One build folder for every package: the packages share ReduxCore, swift-log, SwiftNIO and
# more, which each package's own .build compiled again (SwiftNIO four times). Target names are
# unique across the packages, so their products sit side by side. Scripts/docs.sh builds here
# too, with the same flags, so that this script finds everything built.
scratch=${REDUXKIT_SCRATCH:-$root/.build-shared}
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Counts Swift Testing results in $log: passed tests and failed tests.
count() {
  local p f
  p=$(grep -E '^.?.? ?Test [^ ].* passed after' "$log" | grep -vc 'Test run with' || true)
  f=$(grep -E '^.?.? ?Test [^ ].* failed after' "$log" | grep -vc 'Test run with' || true)
  passed=$((passed + p))
  failed=$((failed + f))
}

finish() {
  echo "$passed passed, $failed failed"
  exit "$1"
}

run_tests() {
  local name=$1 start=$SECONDS; shift
  echo "==> $name: build"
  if ! swift build "$@" --scratch-path "$scratch" --build-tests -Xswiftc -warnings-as-errors \
    2>&1 | tail -n 40; then
    echo "==> $name: build failed"
    failed=$((failed + 1))
    finish 1
  fi
  echo "==> $name: test (built in $((SECONDS - start)) s)"
  set +e
  swift test "$@" --scratch-path "$scratch" --skip-build 2>&1 | tee "$log" \
    | grep -E '(✘|Test run with|error:|Fatal)' 
  local status=${PIPESTATUS[0]}
  set -e
  count
  echo "==> $name: $((SECONDS - start)) s in all"
  if [ "$status" -ne 0 ]; then
    echo "==> $name: tests failed (exit $status)"
    [ "$failed" -gt 0 ] || failed=1
    finish 1
  fi
}

# With REDUXKIT_DOCS=1 (CI), each package's symbol graphs are kept right after its tests, and the
# DocC documentation is made from them once every package is tested (Scripts/docs.sh).
docs=${REDUXKIT_DOCS:-}
if [ -n "$docs" ]; then rm -rf "$scratch/kept-symbol-graphs"; fi
keep_graphs() {
  [ -n "$docs" ] || return 0
  if ! Scripts/docs.sh --graphs "$1"; then
    failed=$((failed + 1))
    finish 1
  fi
}

# The packages, in an order where few need a dependency an earlier one made SwiftPM delete:
# building a package deletes the checkouts of the shared folder that it does not need, and a
# later package that needs one clones it again and compiles it, and what depends on it, again.
# The small ones first; then GRDB's, then SwiftNIO's; the root last (it needs almost everything,
# and the README's examples after it need nothing more). DevToolsServer needs no GRDB, so the
# root clones GRDB again: the one package compiled twice.
packages=(
  Packages/ReduxCore Packages/EntityTracking Packages/QueryCache Packages/DevTools
  Packages/FeatureKit Packages/Persistence Packages/PersistencePostgres
  # The board's HTTP server (a package of its own: Hummingbird and postgres-nio): its API on
  # SQLite, and three instances over one PostgreSQL database when the server is there.
  Examples/BoardServer
  Packages/DevToolsServer
  .
)
for manifest in Packages/*/Package.swift; do
  [[ " ${packages[*]} " == *" $(dirname "$manifest") "* ]] \
    || { echo "test.sh: $(dirname "$manifest") is missing from its list of packages"; finish 1; }
done
for package in "${packages[@]}"; do
  if [ "$package" = . ]; then
    # NB: with the board's DevTools page (a trait off by default: `swift run board` builds no
    # HTTP stack), which the browser tests below drive.
    run_tests "ReduxKit (root)" --package-path "$root" --traits DevToolsServer
  else
    run_tests "$package" --package-path "$root/$package"
  fi
  [ "$package" = Examples/BoardServer ] || keep_graphs "$package"
done
if [ -n "$docs" ]; then
  start=$SECONDS
  if ! REDUXKIT_KEPT_GRAPHS=1 Scripts/docs.sh; then
    failed=$((failed + 1))
    finish 1
  fi
  echo "==> the documentation: $((SECONDS - start)) s"
fi

# Runs a script that prints "PASS …" / "FAIL …" lines (a person's view: a terminal, a browser)
# and counts them.
run_script() {
  local name=$1 status start=$SECONDS; shift
  echo "==> $name"
  set +e
  "$@" | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  passed=$((passed + $(grep -c '^PASS ' "$log" || true)))
  failed=$((failed + $(grep -c '^FAIL ' "$log" || true)))
  echo "==> $name: $((SECONDS - start)) s"
  if [ "$status" -ne 0 ]; then
    echo "==> $name: failed (exit $status)"
    [ "$failed" -gt 0 ] || failed=1
    finish 1
  fi
}

# The board end to end in a real terminal (tmux), as a person uses it.
# NB: bounded: a board that does not quit would hold CI until its own limit.
run_script "board: end to end through tmux" timeout 900 Scripts/board-e2e.sh "$scratch/debug/board" \
  "$scratch/debug/board-server" "$scratch/debug/reduxkit-inspect"

# The DevTools page in headless Chromium, as a person uses it: over the demo app (built with
# its package above), then over the board (`board --devtools`).
run_script "DevTools: the page in a browser" python3 Scripts/devtools-browser.py \
  "$scratch/debug/reduxkit-devtools-demo"
run_script "DevTools: the board's page in a browser" python3 Scripts/devtools-browser.py \
  --board "$scratch/debug/board"

# The app README.md shows a newcomer, built, run and tested as written, on a clone under
# another folder name.
run_script "README: your own app" Scripts/readme.sh

# The same suites under ThreadSanitizer and AddressSanitizer/LeakSanitizer (not counted twice:
# a sanitizer's report, or a planted fault it misses, counts as one failure).
if ! Scripts/sanitize.sh; then
  failed=$((failed + 1))
  finish 1
fi
finish 0
