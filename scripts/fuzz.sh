#!/usr/bin/env bash
# `npm run fuzz`: the property-based tests of test/fuzz with many more inputs (DOCKSIDE_FUZZ_RUNS times
# the default run's, 20 unless set) and a random seed, printed first so a failure can be replayed:
#   DOCKSIDE_FUZZ_SEED=<seed> npm run fuzz            (same inputs again)
#   DOCKSIDE_FUZZ_RUNS=100 npm run fuzz -- push         (longer, one file)
# fast-check's failure message also carries the seed and the path of the shrunk counterexample.
set -euo pipefail
source "$(dirname "$0")/node22.sh"
cd "$(dirname "$0")/.."
export DOCKSIDE_FUZZ_RUNS="${DOCKSIDE_FUZZ_RUNS:-20}"
export DOCKSIDE_FUZZ_SEED="${DOCKSIDE_FUZZ_SEED:-$(node -p 'Math.floor(Math.random() * 2 ** 31)')}"
echo "dockside fuzz: seed ${DOCKSIDE_FUZZ_SEED}, ${DOCKSIDE_FUZZ_RUNS}x the default runs (replay: DOCKSIDE_FUZZ_SEED=${DOCKSIDE_FUZZ_SEED} DOCKSIDE_FUZZ_RUNS=${DOCKSIDE_FUZZ_RUNS} npm run fuzz)"
[ -f dist/cli.js ] || npx tsup --silent
status=0
npx vitest run test/fuzz "$@" || status=$?
echo "dockside fuzz: seed ${DOCKSIDE_FUZZ_SEED}, ${DOCKSIDE_FUZZ_RUNS}x the default runs"
exit "$status"
