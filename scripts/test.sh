#!/usr/bin/env bash
# `npm test`: type-check (whole project, then the core without Node types), build, run every test.
set -euo pipefail
source "$(dirname "$0")/node22.sh"
cd "$(dirname "$0")/.."
npx tsc --noEmit -p tsconfig.json
npx tsc --noEmit -p tsconfig.core.json
npx tsup --silent
npx vitest run "$@"
