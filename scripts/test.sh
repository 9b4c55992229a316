#!/usr/bin/env bash
# Every test the project has: lint, types, build (the CLI tests run the built bin),
# then the unit/property/store/CLI suites with Google's Bigtable emulator running.
set -euo pipefail
cd "$(dirname "$0")/.."

npx biome check .
npx tsc -p tsconfig.json --noEmit
npm run build --silent

# The emulator script builds (installing Debian's Go sources if missing) and starts bttest,
# and prints the host:port; the Bigtable store suite runs against it.
BIGTABLE_EMULATOR_HOST="$(bash scripts/emulator.sh start --owner $$)"
export BIGTABLE_EMULATOR_HOST
trap 'bash scripts/emulator.sh stop "$BIGTABLE_EMULATOR_HOST"' EXIT

# The heatmap page is tested in a real headless Chromium (Debian's package).
bash scripts/ensure-packages.sh /usr/bin/chromium=chromium

npx vitest run "$@"
