#!/usr/bin/env bash
# `npm run demo`: buddy against the Hermes simulator in a private temporary home, showing exactly
# what an operator sees: status, a held sign-in (the simulator approves it after 3 s, as a person
# finishing in the browser would), status, sign-out, status. Installs first on a fresh clone;
# leaves nothing behind (the simulator is stopped and the home removed however the demo ends).
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci --no-audit --no-fund
node scripts/build.js

demo_dir=$(mktemp -d "${TMPDIR:-/tmp}/buddy-demo.XXXXXX")
simulator=""
cleanup() {
  if [ -n "$simulator" ]; then
    kill "$simulator" 2>/dev/null || true
    wait "$simulator" 2>/dev/null || true
  fi
  rm -rf "$demo_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# tsx itself (not an npx wrapper) so that our signal reaches the simulator.
node_modules/.bin/tsx fixtures/simulator.ts --home "$demo_dir/hermes" --approve-after 3 >"$demo_dir/simulator.json" &
simulator=$!
for _ in $(seq 100); do
  [ -s "$demo_dir/simulator.json" ] && break
  sleep 0.1
done
[ -s "$demo_dir/simulator.json" ] || { echo "the simulator did not start" >&2; exit 1; }
origin=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).origin)' "$demo_dir/simulator.json")

export HERMES_HOME="$demo_dir/hermes"
echo "Hermes simulator: home $HERMES_HOME, API $origin."
echo "It approves each sign-in 3 s after it starts, as a person finishing in the browser would."

# Each command's exit code is shown, as a script would test it (`buddy status` is 3 while Buddy
# waits, C8); the demo goes on whatever it is.
buddy() {
  echo
  echo "\$ buddy $*"
  local code=0
  node bin/buddy.js "$@" || code=$?
  echo "(exit $code)"
}

buddy status
buddy sign-in start
buddy status
buddy sign-out
buddy status
