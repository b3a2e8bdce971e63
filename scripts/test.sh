#!/usr/bin/env bash
# `npm test`: type-check (whole project, then the core without Node types), build, run every test,
# and end with a plain "N passed, N failed" line.
set -euo pipefail
source "$(dirname "$0")/node22.sh"
cd "$(dirname "$0")/.."
npx tsc --noEmit -p tsconfig.json
npx tsc --noEmit -p tsconfig.core.json
npx tsup --silent
mkdir -p .tmp
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest.json "$@" || status=$?
node -e '
const r = JSON.parse(require("node:fs").readFileSync(".tmp/vitest.json", "utf8"))
const skipped = r.numPendingTests + r.numTodoTests
console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""))
' || true
exit "$status"
