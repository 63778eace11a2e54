#!/usr/bin/env bash
# Formats every Swift file with the toolchain's swift-format and .swift-format.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -co --exclude-standard "*.swift" | xargs swift format format --in-place --configuration .swift-format
