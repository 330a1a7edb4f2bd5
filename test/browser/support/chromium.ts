// Debian's Chromium for the browser tests: where it is, whether this machine has it (CI must, D32),
// and the flags this machine needs (env notes: a closed network refuses Chromium's background
// connections); playwright-core gives each launch a new, empty profile.
import { existsSync } from "node:fs"
import { requires } from "../../support/required.js"

export const chromiumPath = "/usr/bin/chromium"
export const hasChromium = requires(existsSync(chromiumPath), chromiumPath, "apt-get install chromium")

export const chromiumArgs: ReadonlyArray<string> = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]
