#!/usr/bin/env bash
# Cheap static checks of the rules in STYLE.md and ARCHITECTURE.md.
set -euo pipefail
cd "$(dirname "$0")/.."

problems=0
fail() {
  echo "check: $*"
  problems=$((problems + 1))
}

# The project's own Swift files: tracked or new, never build folders or checkouts.
mapfile -t swift_files < <(git ls-files -co --exclude-standard '*.swift')
sources=()
for file in "${swift_files[@]}"; do
  case "$file" in */Tests/*|Tests/*) ;; *) sources+=("$file") ;; esac
done

# ReduxCore stays free of Foundation.
for file in "${sources[@]}"; do
  case "$file" in Packages/ReduxCore/Sources/*)
    if grep -nE '^\s*(public |package |internal |@_exported )?import Foundation' "$file"; then
      fail "$file: ReduxCore must not import Foundation"
    fi
  esac
done

# No nonisolated(unsafe) anywhere in the code.
if grep -n 'nonisolated(unsafe)' "${swift_files[@]}"; then
  fail "nonisolated(unsafe) is ruled out"
fi

# Every @unchecked Sendable carries a written proof.
for file in "${sources[@]}"; do
  if grep -q '@unchecked Sendable' "$file" && ! grep -q '// Safety:' "$file"; then
    fail "$file: @unchecked Sendable without a '// Safety:' comment"
  fi
done

# One logging path: library code makes no logger of its own (a global, or a stored default) but
# takes one as a parameter, whose default value may make one; every label it names follows
# ReduxKit.<Module>[.<Type>].
modules='ReduxCore|EntityTracking|Persistence|PersistenceSQLite|PersistenceSync|PersistencePostgres|QueryCache|FeatureKit|DevTools'
for file in "${sources[@]}"; do
  case "$file" in Packages/*/Sources/*|Sources/*) ;; *) continue ;; esac
  if grep -nE '\b(let|var)[[:space:]]+[[:alnum:]_]+([[:space:]]*:[[:space:]]*Logger)?[[:space:]]*=[[:space:]]*Logger\(' "$file" |
    grep -vE '^[0-9]+:[[:space:]]*//'; then
    fail "$file: library code makes its own logger; take it as a parameter (a default is fine)"
  fi
  while IFS= read -r label; do
    [[ "$label" =~ ^ReduxKit\.($modules)(\.[A-Z][[:alnum:]]*)?$ ]] ||
      fail "$file: logger label '$label' does not follow ReduxKit.<Module>[.<Type>]"
  done < <(grep -oE '(Logger\(label:|category: String =) "[^"]*"' "$file" | sed -E 's/.*"([^"]*)"$/\1/')
done

# A platform C library (Glibc, Musl, Darwin, WinSDK) is imported only inside an
# `#if canImport(<that module>)` branch, so every package also builds where it is absent.
unguarded=$(awk '
  FNR == 1 { depth = 0 }
  {
    line = $0
    sub(/^[ \t]+/, "", line)
    if (line ~ /^#if[ \t(!]/) { depth++; condition[depth] = line; next }
    if (line ~ /^#elseif[ \t(!]/) { condition[depth] = line; next }
    if (line ~ /^#else([ \t]|$)/) { condition[depth] = ""; next }
    if (line ~ /^#endif/) { if (depth > 0) depth--; next }
    while (line ~ /^@[A-Za-z_]+(\([^)]*\))?[ \t]+/) sub(/^@[A-Za-z_]+(\([^)]*\))?[ \t]+/, "", line)
    sub(/^(public|package|internal|fileprivate|private)[ \t]+/, "", line)
    if (line !~ /^import[ \t]/) next
    sub(/^import[ \t]+/, "", line)
    sub(/^(typealias|struct|class|enum|protocol|let|var|func)[ \t]+/, "", line)
    module = line
    sub(/[^A-Za-z0-9_].*$/, "", module)
    if (module !~ /^(Glibc|Musl|Darwin|WinSDK)$/) next
    for (level = 1; level <= depth; level++) {
      if (index(condition[level], "canImport(" module ")") > 0) next
    }
    printf "%s:%d: %s\n", FILENAME, FNR, $0
  }
' "${swift_files[@]}")
if [ -n "$unguarded" ]; then
  echo "$unguarded"
  fail "platform imports outside '#if canImport(<module>)' (Glibc, Musl, Darwin, WinSDK)"
fi

# Tests use Swift Testing (STYLE.md); Scripts/sanitize.sh runs them with XCTest disabled.
if grep -nE '^\s*(@[A-Za-z_]+ )*((public|package|internal) )?import XCTest' "${swift_files[@]}"; then
  fail "tests use Swift Testing, not XCTest"
fi

# Every manifest ends with the same shared-settings block and declares the same platforms.
manifests=(Package.swift Packages/*/Package.swift Benchmarks/Package.swift)
footer() { sed -n '/^\/\/ MARK: - Shared settings/,$p' "$1"; }
reference=$(footer Package.swift)
[ -n "$reference" ] || fail "Package.swift has no shared-settings block"
for manifest in "${manifests[@]}"; do
  [ -f "$manifest" ] || continue
  [ "$(footer "$manifest")" = "$reference" ] || fail "$manifest: shared-settings block differs from Package.swift"
  grep -q 'platforms: \[.macOS(.v15), .iOS(.v18)\]' "$manifest" || fail "$manifest: platforms differ"
  grep -q 'swiftLanguageModes: \[.v6\]' "$manifest" || fail "$manifest: not Swift 6 language mode"
done

# Every Swift file is formatted as .swift-format says (Scripts/format.sh fixes what this finds).
if ! swift format lint --strict --configuration .swift-format "${swift_files[@]}"; then
  fail "swift format lint found the problems above; run Scripts/format.sh"
fi

# Generated files stay out of git.
if git ls-files | grep -E '(^|/)(\.build[^/]*/|Package\.resolved$)'; then
  fail "generated files are tracked"
fi

if [ "$problems" -gt 0 ]; then
  echo "check: $problems problem(s)"
  exit 1
fi
echo "check: ok"
