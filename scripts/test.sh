#!/usr/bin/env bash
# Every test the project has: lint, types, build (the CLI tests run the built bin),
# then the unit/property/store/CLI suites with Google's Bigtable emulator running, twice: on this
# machine's Node with the locked @google-cloud/bigtable (6.x), and on Node 24 LTS with the 7.x
# client (both installed from the npm registry into .node24 by scripts/node24.sh). The simulator,
# advisor and lab-model suites and the CLI tests of the commands that run them (vitest.config.ts's
# "lab" project: pure computation, over half the suite's test time) run once, on the first pass:
# they touch neither the Node APIs that changed nor the Bigtable client.
set -euo pipefail
cd "$(dirname "$0")/.."

# `npm test -- --update-golden` rewrites the golden files (test/golden.ts) instead of comparing.
args=()
for arg in "$@"; do
  if [[ "$arg" == "--update-golden" ]]; then export KEYSPREAD_UPDATE_GOLDEN=1; else args+=("$arg"); fi
done
set -- ${args[@]+"${args[@]}"}

# Node 24 and its client download (on a fresh clone) while the first pass runs; the second waits.
node24_bin="$(mktemp)"
trap 'rm -f "$node24_bin"' EXIT
bash scripts/node24.sh >"$node24_bin" &
node24=$!

npx biome check .
# The type check and the build are each one single-threaded tsc: side by side on two cores.
{ npx tsc -p tsconfig.json --noEmit && npx tsc -p src/studio/page/tsconfig.json; } &
typecheck=$!
npm run build --silent
wait "$typecheck"

# The emulator script builds (installing Debian's Go sources if missing) and starts bttest,
# and prints the host:port; the Bigtable store suite runs against it.
BIGTABLE_EMULATOR_HOST="$(bash scripts/emulator.sh start --owner $$)"
export BIGTABLE_EMULATOR_HOST
trap 'rm -f "$node24_bin"; bash scripts/emulator.sh stop "$BIGTABLE_EMULATOR_HOST"' EXIT

# The heatmap page is tested in a real headless Chromium (Debian's package).
bash scripts/ensure-packages.sh /usr/bin/chromium=chromium

echo "test.sh: Node $(node --version), @google-cloud/bigtable $(node -p 'require("@google-cloud/bigtable/package.json").version')" >&2
npx vitest run "$@"

wait "$node24"
NODE24_BIN="$(cat "$node24_bin")"
(
  export PATH="$NODE24_BIN:$PATH" NODE_OPTIONS="--import $PWD/scripts/bigtable-7.mjs"
  versions="$(node -p 'process.versions.node.split(".")[0] + " " + require("@google-cloud/bigtable/package.json").version.split(".")[0]')"
  [[ "$versions" == "24 7" ]] || { echo "test.sh: the Node 24 run got Node/client majors '$versions', expected '24 7'" >&2; exit 1; }
  echo "test.sh: Node $(node --version), @google-cloud/bigtable $(node -p 'require("@google-cloud/bigtable/package.json").version')" >&2
  npx vitest run --project library --project mocked "$@"
)
