#!/usr/bin/env bash
# Runs the test suites under the sanitizers and fails on any report:
# - ThreadSanitizer: every package's suite but EntityTracking's (see `packages` below;
#   PersistencePostgres and DevToolsServer included) and the root package's, with one suppression file,
#   Scripts/sanitizers/tsan-suppressions.txt (its comment says why each rule cannot hide a race);
# - AddressSanitizer with LeakSanitizer (ASAN_OPTIONS=detect_leaks=1): the library packages'.
# After each sanitizer's ReduxCore run it runs the faults planted for it
# (Packages/ReduxCore/Tests/SanitizerCanaryTests) and fails unless they are reported: a
# suppression that hides real races, or a leak check switched off, would otherwise pass in silence.
#
# Usage: Scripts/sanitize.sh [thread] [address]     (both when none is named)
#
# The packages build into one .build-shared-tsan or .build-shared-asan folder. XCTest is disabled: the
# suites are Swift Testing (check.sh rejects `import XCTest`), and XCTest's empty run leaks 368
# bytes of its own, which would otherwise need a suppression. The tests set REDUXKIT_SANITIZER,
# which the crash-kill test reads to skip itself. Results are not counted here (Scripts/test.sh
# counts the uninstrumented run); the last line says ok, or the script stops at the first failure.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# NB: in an order where no package needs a checkout an earlier one made SwiftPM delete (test.sh
# says why): the root, without its DevToolsServer trait, between GRDB's and SwiftNIO's.
# EntityTracking is not among them: it has no thread, no class and no unsafe code (value types
# used on one actor), so neither sanitizer has anything to watch there; its 80 s went to CI's
# 25-minute budget.
packages=(ReduxCore QueryCache FeatureKit DevTools Persistence)
# The most concurrent packages, on SwiftNIO: ThreadSanitizer only (AddressSanitizer would build
# SwiftNIO a third time for little: their memory is the libraries'). PersistencePostgres's
# suite needs the server `Scripts/postgres.sh start` runs, as in test.sh.
thread_only=(PersistencePostgres DevToolsServer)
# Packages whose leaks are known and being fixed: AddressSanitizer still runs there, only leak
# detection waits. None now (QueryCache's gc-timer retain cycle is fixed).
leaks_pending=()

sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(thread address)

reports='WARNING: ThreadSanitizer|ERROR: (AddressSanitizer|LeakSanitizer)'

# Prints the sanitizer's reports in $log, demangled, or the end of the log when it has none,
# and keeps the whole log in the step's scratch folder.
fail() {
  echo "sanitize: $*"
  if grep -qE "$reports" "$log"; then
    # NB: awk, not head, stops the output: head would end the pipe early, and under pipefail the
    # SIGPIPE ended this script before it said FAILED.
    swift demangle --simplified < "$log" \
      | awk -v reports="$reports" '$0 ~ reports { found = 1 } found && shown++ < 200'
  else
    tail -n 60 "$log"
  fi
  if [ -n "${kept_log:-}" ]; then
    mkdir -p "$(dirname "$kept_log")"
    cp "$log" "$kept_log"
    echo "sanitize: the whole log is in $kept_log"
  fi
  echo "sanitize: FAILED: $*"
  exit 1
}

# The environment and scratch folder of one sanitizer, for `package`.
options() {
  local sanitizer=$1 package=$2
  case $sanitizer in
    thread)
      echo "TSAN_OPTIONS=suppressions=$root/Scripts/sanitizers/tsan-suppressions.txt"
      ;;
    address)
      local leaks=1
      for pending in "${leaks_pending[@]}"; do
        [ "$package" != "Packages/$pending" ] || leaks=0
      done
      echo "ASAN_OPTIONS=detect_leaks=$leaks"
      ;;
    *)
      echo "sanitize: unknown sanitizer '$sanitizer' (thread or address)" >&2
      exit 2
      ;;
  esac
}

# One build folder per sanitizer, shared by every package (Scripts/test.sh says why).
scratch() {
  case $1 in thread) echo "$root/.build-shared-tsan" ;; address) echo "$root/.build-shared-asan" ;; esac
}

# Builds and runs `package`'s tests under `sanitizer`; fails on a failed test or any report.
sanitized_suite() {
  local sanitizer=$1 package=$2 environment status start=$SECONDS traits=()
  environment=$(options "$sanitizer" "$package")
  kept_log=$(scratch "$sanitizer" "$package")/sanitize.log
  # NB: the root package without its DevToolsServer trait (off by default): `board
  # --devtools`'s server (Hummingbird and SwiftNIO, minutes to build instrumented) is not under
  # test here; DevToolsServer's own suite runs under ThreadSanitizer (`thread_only`).
  [ "$package" != . ] || traits=(--disable-default-traits)
  set +e
  env "$environment" REDUXKIT_SANITIZER="$sanitizer" \
    swift test --package-path "$package" --sanitize="$sanitizer" --disable-xctest \
    "${traits[@]}" --scratch-path "$(scratch "$sanitizer" "$package")" > "$log" 2>&1
  status=$?
  set -e
  local name=$package summary
  [ "$package" != . ] || name="ReduxKit (root)"
  summary=$(grep -E 'Test run with [0-9]+ test' "$log" | tail -n 1 || true)
  echo "==> $name under the $sanitizer sanitizer ($((SECONDS - start)) s, ${environment//$root\//}):"
  echo "    ${summary:-no test summary}"
  if grep -qE "$reports" "$log"; then
    fail "$package: the $sanitizer sanitizer reported the problems above"
  fi
  [ "$status" -eq 0 ] || fail "$package: tests failed under the $sanitizer sanitizer (exit $status)"
}

# Runs the faults planted for `sanitizer` (already built by sanitized_suite) and fails unless
# each `expected` frame appears in a report.
canary() {
  local sanitizer=$1 fault=$2 suite=$3 pattern=$4; shift 4
  local environment status
  environment=$(options "$sanitizer" Packages/ReduxCore)
  kept_log=$(scratch "$sanitizer" Packages/ReduxCore)/sanitize-canary.log
  set +e
  env "$environment" REDUXKIT_SANITIZER="$sanitizer" REDUXKIT_CANARY="$fault" \
    swift test --package-path Packages/ReduxCore --sanitize="$sanitizer" --disable-xctest \
    --scratch-path "$(scratch "$sanitizer" Packages/ReduxCore)" --skip-build --filter "$suite" \
    > "$log" 2>&1
  status=$?
  set -e
  grep -qE 'Test run with [1-9][0-9]* test' "$log" || fail "the planted $fault did not run"
  local found
  found=$(swift demangle --simplified < "$log" | awk -v pattern="$pattern" '$0 ~ pattern { found = 1 } found')
  [ "$status" -ne 0 ] && [ -n "$found" ] \
    || fail "the $sanitizer sanitizer did not report the planted $fault (exit $status)"
  for expected in "$@"; do
    grep -qF "$expected" <<< "$found" \
      || fail "the $sanitizer sanitizer did not report the planted $fault in $expected"
  done
  echo "==> the planted $fault is reported by the $sanitizer sanitizer, in each of its $# test(s)"
}

# One sanitizer's suites, in order; stops at the first failure (fail exits).
run_sanitizer() {
  options "$1" . > /dev/null
  case $1 in
    thread)
      sanitized_suite thread Packages/ReduxCore
      canary thread race PlantedRaceTests 'WARNING: ThreadSanitizer' \
        'PlantedRaceTests.aRaceInAReducerBehindTheActionRecorderIsReported()' \
        'PlantedRaceTests.aRaceInAMiddlewareTaskIsReported()'
      for package in "${packages[@]:1}"; do sanitized_suite thread "Packages/$package"; done
      sanitized_suite thread .
      for package in "${thread_only[@]}"; do sanitized_suite thread "Packages/$package"; done
      ;;
    address)
      sanitized_suite address Packages/ReduxCore
      canary address leak PlantedLeakTests 'ERROR: LeakSanitizer' \
        'PlantedLeakTests.aReferenceCycleIsReportedAsALeak()'
      for package in "${packages[@]:1}"; do sanitized_suite address "Packages/$package"; done
      ;;
  esac
}

# NB: both at once when both are asked for: each is mostly compiling, in a build folder of its
# own, and the cores one leaves idle (while it links, plans a build or runs a suite) the other
# uses: about a minute and a half less on 2 cores. The second one's report follows the first's.
if [ ${#sanitizers[@]} -eq 2 ]; then
  second_log=$(mktemp)
  (
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    run_sanitizer "${sanitizers[1]}"
  ) >"$second_log" 2>&1 &
  second=$!
  first_status=0
  (run_sanitizer "${sanitizers[0]}") || first_status=$?
  second_status=0
  wait "$second" || second_status=$?
  cat "$second_log"
  rm -f "$second_log"
  [ "$first_status" -eq 0 ] && [ "$second_status" -eq 0 ] || exit 1
else
  for sanitizer in "${sanitizers[@]}"; do run_sanitizer "$sanitizer"; done
fi
echo "sanitize: ok (${sanitizers[*]})"
