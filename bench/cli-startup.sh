#!/usr/bin/env bash
# Start-up of the `buddy` executable, as a ratio to `node -e 0` measured in the same run (hyperfine,
# a new process per run): `buddy --version` (no Hermes involved) and `buddy status --json` against
# the Hermes simulator. With --alternatives it also measures what docs/decisions.md D9 rejected:
# the TypeScript source through tsx, and a per-file `tsc` build.
#   bash bench/cli-startup.sh [--alternatives]      (RUNS=30 by default; needs hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install -y hyperfine)" >&2; exit 2; }

node scripts/build.js
work=$(mktemp -d "${TMPDIR:-/tmp}/buddy-bench.XXXXXX")
# Inside the clone, so the per-file build resolves node_modules as a build in dist/ would.
tsc_out="$PWD/.bench-tsc-$$"
simulator=""
cleanup() {
  if [ -n "$simulator" ]; then
    kill "$simulator" 2>/dev/null || true
    wait "$simulator" 2>/dev/null || true
  fi
  rm -rf "$work" "$tsc_out"
}
trap cleanup EXIT

node_modules/.bin/tsx fixtures/simulator.ts --home "$work/hermes" >"$work/simulator.json" &
simulator=$!
for _ in $(seq 100); do
  [ -s "$work/simulator.json" ] && break
  sleep 0.1
done

commands=(
  -n "node -e 0" "node -e 0"
  -n "buddy --version" "node bin/buddy.js --version"
  -n "buddy status --json" "node bin/buddy.js status --json --home $work/hermes"
)
if [ "${1:-}" = "--alternatives" ]; then
  cat >"$work/tsconfig.json" <<JSON
{ "extends": "$PWD/tsconfig.json",
  "compilerOptions": { "noEmit": false, "allowImportingTsExtensions": false, "typeRoots": ["$PWD/node_modules/@types"],
                       "rootDir": "$PWD/src", "outDir": "$tsc_out" },
  "include": [], "files": ["$PWD/src/cli/main.ts"] }
JSON
  node_modules/.bin/tsc -p "$work/tsconfig.json"
  commands+=(
    -n "tsc per-file build: --version" "node $tsc_out/cli/main.js --version"
    -n "tsx from source: --version" "node --import tsx src/cli/main.ts --version"
  )
fi

hyperfine -N --warmup 3 --runs "${RUNS:-30}" --style basic --export-json "$work/results.json" "${commands[@]}"

node - "$work/results.json" <<'JS'
const { results } = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"))
const base = results[0].median
console.log(`\nmedian, and ratio to "node -e 0" in this run`)
for (const r of results) {
  console.log(`${r.command.padEnd(32)} ${(r.median * 1000).toFixed(0).padStart(6)} ms  x${(r.median / base).toFixed(1)}`)
}
JS
