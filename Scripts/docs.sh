#!/usr/bin/env bash
# Builds the DocC documentation of every module with warnings as errors, checks that every public
# declaration has a doc comment, and merges the archives into one (.build/docs/ReduxKit.doccarchive).
#
# Usage: Scripts/docs.sh [MODULE ...]   (default: every module; a module's dependencies come too,
#                                        since its cross-module links resolve against their archives)
#        Scripts/docs.sh --graphs PACKAGE  (only the symbol graphs of PACKAGE, kept for a later run)
#
# Symbol graphs come from `swift package dump-symbol-graph`, after a build with Scripts/test.sh's
# flags, so after test.sh the build step is a no-op. With REDUXKIT_DOCS=1, test.sh itself keeps
# each package's graphs (`--graphs`) right after its tests and converts them at the end (CI's
# way): each package is then built once, and the shared build folder never goes back to a
# package it left (SwiftPM deletes the checkouts a package does not need, and compiles them
# again when a later package does). test.sh runs this with REDUXKIT_KEPT_GRAPHS=1, which takes
# the graphs it kept; otherwise they are dumped again.
#
# Linking to another module's symbol: write ``/ReduxCore/Store`` (leading slash, module first).
# Each module is converted with its dependencies' archives as `--dependency` (DocC's external link
# support), so such a link is checked like a local one, and resolves in the merged archive.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
started=$SECONDS
# The build folder every package shares (Scripts/test.sh says why).
scratch=${REDUXKIT_SCRATCH:-$root/.build-shared}

# Every documented module, each after the modules it depends on: "Module package dependencies...".
table=(
  "ReduxCore Packages/ReduxCore"
  "ReduxCoreTesting Packages/ReduxCore ReduxCore"
  "EntityTracking Packages/EntityTracking"
  "Persistence Packages/Persistence ReduxCore EntityTracking"
  "PersistenceSQLite Packages/Persistence ReduxCore EntityTracking Persistence"
  "PersistenceSync Packages/Persistence ReduxCore EntityTracking Persistence PersistenceSQLite"
  "PersistenceSyncTesting Packages/Persistence Persistence PersistenceSQLite PersistenceSync"
  "PersistencePostgres Packages/PersistencePostgres ReduxCore EntityTracking Persistence"
  "PersistencePostgresTesting Packages/PersistencePostgres"
  "QueryCache Packages/QueryCache ReduxCore"
  "EntityQueries Packages/QueryCache ReduxCore EntityTracking QueryCache"
  "FeatureKit Packages/FeatureKit ReduxCore"
  "FeatureKitTesting Packages/FeatureKit ReduxCore FeatureKit"
  "DevTools Packages/DevTools ReduxCore"
  "DevToolsServer Packages/DevToolsServer ReduxCore DevTools"
  "ReduxKit . ReduxCore EntityTracking Persistence PersistenceSQLite PersistenceSync QueryCache EntityQueries FeatureKit DevTools"
  "TerminalIO ."
)

# Modules whose undocumented public declarations (and, in DocC, undocumented parameters and
# return values) fail the run: every module. A module left out prints its findings without
# failing, for a rewrite in progress.
coverage_enforced=(
  ReduxCore ReduxCoreTesting EntityTracking Persistence PersistenceSQLite PersistenceSync PersistenceSyncTesting PersistencePostgres
  PersistencePostgresTesting QueryCache EntityQueries FeatureKit FeatureKitTesting DevTools DevToolsServer ReduxKit TerminalIO
)

# Known gaps in files that other changes are rewriting right now; each is documented there.
# Printed on every run without failing it. Drop an entry once its declaration is documented (the
# check says so).
coverage_pending=()

declare -A package_of dependencies_of selected
order=()
for row in "${table[@]}"; do
  read -r module package dependencies <<<"$row"
  order+=("$module")
  package_of[$module]=$package
  dependencies_of[$module]=${dependencies:-}
done

if [ "${1:-}" = --graphs ]; then
  : # one package's graphs, below
elif [ "$#" -eq 0 ]; then
  for module in "${order[@]}"; do selected[$module]=1; done
else
  for module in "$@"; do
    if [ -z "${package_of[$module]:-}" ]; then
      echo "docs: unknown module '$module' (known: ${order[*]})" >&2
      exit 2
    fi
    selected[$module]=1
    for dependency in ${dependencies_of[$module]}; do selected[$dependency]=1; done
  done
fi

is_enforced() {
  local module
  for module in "${coverage_enforced[@]}"; do [ "$module" = "$1" ] && return 0; done
  return 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
output="$root/.build/docs"
if [ "${1:-}" != --graphs ]; then
  rm -rf "$output"
  mkdir -p "$output/modules"
fi
problems=0

# 1. Symbol graphs, one dump per package (a dump writes every module of the package). Its build
# has test.sh's flags, so after test.sh it has nothing to do.
dump_symbol_graphs() {
  swift package --package-path "$1" --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
    $(traits "$1") dump-symbol-graph --emit-extension-block-symbols >"$log" 2>&1
}
# The traits test.sh builds a package with: the root package's DevToolsServer (off by default).
traits() {
  [ "$1" != . ] || echo "--traits DevToolsServer"
}
# Keeps the symbol graphs of `package` in $kept/$package (built first, as test.sh builds it).
keep_graphs() {
  local package=$1 start=$SECONDS graphs
  echo "==> ${package/#./the root package}: symbol graphs"
  # NB: dump-symbol-graph builds the library targets only, but also extracts the test modules,
  # and fails when those were never built (a fresh tree): build as test.sh does first (nothing
  # to do once built), rather than let a first attempt fail and build again.
  if ! swift build --package-path "$package" --scratch-path "$scratch" --build-tests \
    -Xswiftc -warnings-as-errors $(traits "$package") >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "docs: building $package failed"
    exit 1
  fi
  if ! dump_symbol_graphs "$package"; then
    tail -n 40 "$log"
    echo "docs: extracting the symbol graphs of $package failed"
    exit 1
  fi
  graphs=$(sed -n 's/^Files written to //p' "$log")
  if [ ! -d "$graphs" ]; then
    cat "$log"
    echo "docs: cannot find where dump-symbol-graph wrote the symbol graphs of $package"
    exit 1
  fi
  rm -rf "${kept:?}/$(kept_name "$package")"
  mkdir -p "$kept/$(kept_name "$package")"
  cp "$graphs"/*.symbols.json "$kept/$(kept_name "$package")/"
  echo "    ($((SECONDS - start)) s)"
}
# Graphs kept by `--graphs` (test.sh's REDUXKIT_DOCS=1), per package.
kept="$scratch/kept-symbol-graphs"
kept_name() {
  if [ "$1" = . ]; then echo root; else echo "$1"; fi
}
log="$work/dump.log"
if [ "${1:-}" = --graphs ]; then
  keep_graphs "${2:?usage: Scripts/docs.sh --graphs PACKAGE}"
  exit 0
fi
use_kept=${REDUXKIT_KEPT_GRAPHS:-}
declare -A dumped
for module in "${order[@]}"; do
  [ -n "${selected[$module]:-}" ] || continue
  package=${package_of[$module]}
  [ -z "${dumped[$package]:-}" ] || continue
  dumped[$package]=1
  if [ -n "$use_kept" ] && [ -d "$kept/$(kept_name "$package")" ]; then
    echo "==> ${package/#./the root package}: symbol graphs kept by test.sh"
  else
    keep_graphs "$package"
  fi
  mkdir -p "$work/graphs/$package"
  cp "$kept/$(kept_name "$package")"/*.symbols.json "$work/graphs/$package/"
done

# 2. Per module: doc-comment coverage, then the DocC archive, warnings as errors.
archives=()
converted=0
for module in "${order[@]}"; do
  [ -n "${selected[$module]:-}" ] || continue
  package=${package_of[$module]}
  sources="Sources/$module"
  [ "$package" = . ] || sources="$package/Sources/$module"
  graphs="$work/graphs/$package/$module"
  mkdir -p "$graphs"
  cp "$work/graphs/$package/$module.symbols.json" "$graphs/"
  for extension in "$work/graphs/$package/$module@"*.symbols.json; do
    [ ! -e "$extension" ] || cp "$extension" "$graphs/"
  done

  echo "==> $module: doc comments"
  if is_enforced "$module"; then
    if ! python3 Scripts/doc-coverage.py "$module" "$sources" "$graphs" "${coverage_pending[@]}"; then
      echo "docs: $module has undocumented public declarations (listed above)"
      problems=$((problems + 1))
    fi
  else
    python3 Scripts/doc-coverage.py "$module" "$sources" "$graphs" \
      || echo "docs: (not enforced yet for $module: see coverage_enforced in Scripts/docs.sh)"
  fi

  # Without a catalog (the umbrella ReduxKit has none) the doc comments are still converted and
  # checked, but the module's bare page stays out of the merged archive.
  catalog="$sources/$module.docc"
  catalog_argument=("$catalog")
  if [ -d "$catalog" ]; then
    echo "==> $module: DocC"
  else
    echo "==> $module: DocC, doc comments only (no $catalog)"
    catalog_argument=()
  fi
  # Missing `- Parameters`/`- Returns` are coverage too: DocC checks them only where coverage is
  # enforced. Every other warning (a broken link, a bad directive) fails every module.
  validation_options=()
  if ! is_enforced "$module"; then
    validation_options=(--disable-parameters-and-returns-validation)
    echo "docs: (parameters and returns not validated yet for $module)"
  fi
  link_options=()
  for dependency in ${dependencies_of[$module]}; do
    [ ! -d "$output/modules/$dependency.doccarchive" ] \
      || link_options+=(--dependency "$output/modules/$dependency.doccarchive")
  done
  archive="$output/modules/$module.doccarchive"
  if docc convert "${catalog_argument[@]}" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "org.reduxkit.$module" \
    --enable-experimental-external-link-support \
    "${link_options[@]}" "${validation_options[@]}" \
    --warnings-as-errors --ide-console-output \
    --output-path "$archive" >"$work/docc.log" 2>&1; then
    converted=$((converted + 1))
    [ "${#catalog_argument[@]}" -eq 0 ] || archives+=("$archive")
  else
    # One `file:line:column: error: message` per problem; the fix-it suggestions are left out.
    { grep -v -e ': fixit: ' -e '^///' "$work/docc.log" || true; } | sed "s|^$root/||"
    echo "docs: $module: DocC reported the problems above"
    problems=$((problems + 1))
  fi
done

# 3. One archive for everything, where cross-module links lead somewhere.
if [ "$problems" -eq 0 ] && [ "${#archives[@]}" -gt 1 ]; then
  echo "==> merging ${#archives[@]} archives"
  if ! docc merge "${archives[@]}" --synthesized-landing-page-name ReduxKit \
    --output-path "$output/ReduxKit.doccarchive" >"$work/merge.log" 2>&1; then
    cat "$work/merge.log"
    echo "docs: docc merge failed"
    problems=$((problems + 1))
  fi
fi

elapsed=$((SECONDS - started))
if [ "$problems" -gt 0 ]; then
  echo "docs: $problems problem(s) (${elapsed}s)"
  exit 1
fi
echo "docs: ok, $converted modules documented, archives in ${output#"$root"/} (${elapsed}s)"
