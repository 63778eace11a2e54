#!/usr/bin/env bash
# Builds, runs and tests the app README.md shows ("Your own app, from a clone") exactly as
# written: every code block after a `<!-- readme: PATH -->` line becomes that file of a new
# package beside a link to this clone under another folder name (the manifest's `path:` is
# pointed there, so `name:` is what makes it resolve). Prints "PASS …" / "FAIL …" lines.
#
# It builds in the shared build folder with test.sh's flags, so only the app is compiled.
set -uo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
scratch=${REDUXKIT_SCRATCH:-$root/.build-shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
app="$work/notes"
mkdir -p "$app"
ln -s "$root" "$work/a-clone-named-otherwise"

# Each marked block, written to its path.
awk -v app="$app" '
  /^<!-- readme: .* -->$/ { path = $3; next }
  path != "" && /^```/ && !inside { inside = 1; file = app "/" path; system("mkdir -p \"$(dirname \"" file "\")\""); printf "" > file; next }
  inside && /^```$/ { inside = 0; close(file); path = ""; next }
  inside { print >> file }
' README.md
files=$(cd "$app" && find . -type f | sort | tr '\n' ' ')
if [ ! -f "$app/Package.swift" ]; then
  echo "FAIL README: no block marked <!-- readme: Package.swift -->"
  exit 1
fi
sed -i 's|path: "\.\./ReduxKit"|path: "../a-clone-named-otherwise"|' "$app/Package.swift"
grep -q 'a-clone-named-otherwise' "$app/Package.swift" \
  || { echo 'FAIL README: the manifest has no path: "../ReduxKit" to point at the clone'; exit 1; }

flags=(--package-path "$app" --scratch-path "$scratch" -Xswiftc -warnings-as-errors)
log="$work/log"
check() {
  local name=$1; shift
  if "$@" >"$log" 2>&1; then
    echo "PASS $name"
  else
    tail -n 30 "$log"
    echo "FAIL $name"
  fi
}
echo "readme: the app's files: $files"
check "README: the app builds as written (its test too)" swift build "${flags[@]}" --build-tests
check "README: the app prints its note" bash -c \
  "swift run ${flags[*]} --skip-build Notes | grep -qxF '[\"Write the README\"]'"
check "README: the app's TestStore test passes" swift test "${flags[@]}" --skip-build
