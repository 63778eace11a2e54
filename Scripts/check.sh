#!/usr/bin/env bash
# Cheap static checks of the rules in STYLE.md and ARCHITECTURE.md.
set -euo pipefail
cd "$(dirname "$0")/.."

problems=0
fail() {
  echo "check: $*"
  problems=$((problems + 1))
}

# ReduxCore stays free of Foundation.
if grep -rn --include='*.swift' -E '^\s*(public |package |internal |@_exported )?import Foundation' \
  Packages/ReduxCore/Sources; then
  fail "ReduxCore must not import Foundation"
fi

# No nonisolated(unsafe) anywhere in the code.
if grep -rn --include='*.swift' 'nonisolated(unsafe)' Packages Sources Examples Tests 2>/dev/null; then
  fail "nonisolated(unsafe) is ruled out"
fi

# Every @unchecked Sendable carries a written proof.
while IFS= read -r file; do
  grep -q '// Safety:' "$file" || fail "$file: @unchecked Sendable without a '// Safety:' comment"
done < <(grep -rl --include='*.swift' '@unchecked Sendable' Packages Sources Examples 2>/dev/null || true)

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

# Generated files stay out of git.
if git ls-files | grep -E '(^|/)(\.build[^/]*/|Package\.resolved$)'; then
  fail "generated files are tracked"
fi

if [ "$problems" -gt 0 ]; then
  echo "check: $problems problem(s)"
  exit 1
fi
echo "check: ok"
