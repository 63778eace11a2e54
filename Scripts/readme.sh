#!/usr/bin/env bash
# Checks that README.md works as written, so that none of it can rot:
# - every other Swift example (a `<!-- readme-check: NAME -->` block) compiles, after the names
#   it takes as given (Scripts/readme-snippets.py);
# - the app it shows ("Your own app, from a clone") builds, runs and passes its test: every code
#   block after a `<!-- readme: PATH -->` line becomes that file of a new package beside a link
#   to this clone under another folder name (the manifest's `path:` is pointed there, so `name:`
#   is what makes it resolve);
# - every shell block runs (Scripts/readme-commands.sh), on what Scripts/test.sh built.
# Prints "PASS …" / "FAIL …" lines; fails when one fails.
#
# It builds in the shared build folder, so only the examples and the app are compiled.
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
failures=0
check() {
  local name=$1; shift
  if "$@" >"$log" 2>&1; then
    echo "PASS $name"
  else
    tail -n 30 "$log"
    echo "FAIL $name"
    failures=$((failures + 1))
  fi
}
# Every other Swift example (a `<!-- readme-check: NAME -->` block), compiled in a package of its
# own after the names it takes as given (Scripts/readme-snippets.py says how); an error names
# README.md's line.
examples="$work/examples"
if ! python3 Scripts/readme-snippets.py README.md "$examples" "$work/a-clone-named-otherwise" \
  >"$work/examples.txt"; then
  echo "FAIL README: its examples could not be extracted"
  failures=$((failures + 1))
fi
status=0
swift build --package-path "$examples" --scratch-path "$scratch" >"$log" 2>&1 || status=$?
python3 Scripts/readme-snippets.py --report "$log" "$status" "$work/examples.txt" \
  | tee "$work/report.txt"
failures=$((failures + $(grep -c '^FAIL ' "$work/report.txt" || true)))


# NB: after the examples: the app's dependencies are a part of theirs, and a build that needs
# fewer packages deletes the checkouts of the others, which a later build would clone and
# compile again.
echo "readme: the app's files: $files"
check "README: the app builds as written (its test too)" swift build "${flags[@]}" --build-tests
check "README: the app prints its note" bash -c \
  "swift run ${flags[*]} --skip-build Notes | grep -qxF '[\"Write the README\"]'"
check "README: the app's TestStore test passes" swift test "${flags[@]}" --skip-build

# Every shell block, run as written by Scripts/readme-commands.sh (it says what it changes and
# why), in a folder laid out as the clone, so that the files the commands write stay out of it.
mkdir -p "$work/as-the-clone" "$work/home"
for entry in "$root"/* "$root"/.[!.]*; do
  case $(basename "$entry") in .git | .build*) continue ;; esac
  ln -s "$entry" "$work/as-the-clone/"
done
python3 Scripts/readme-snippets.py --commands README.md "$work/commands" >"$work/commands.txt"
while read -r line block; do
  if (cd "$work/as-the-clone" && README_HOME="$work/home" \
    "$root/Scripts/readme-commands.sh" "$block" "$scratch") </dev/null >"$log" 2>&1; then
    echo "PASS README: the commands at line $line run"
  else
    cat "$block"
    tail -n 30 "$log"
    echo "FAIL README: the commands at line $line (above) fail"
    failures=$((failures + 1))
  fi
done <"$work/commands.txt"

[ "$failures" -eq 0 ]
