import { defineConfig } from "vitest/config"
import { selfReference } from "./vitest.config.js"

// The long runs that are not tests of `npm test`: the fault campaign, the soak, restart chaos.
export default defineConfig({
  resolve: { alias: selfReference },
  test: {
    include: [`test/**/*.${process.env["LONG_RUN"] ?? "campaign"}.ts`],
    globalSetup: ["test/support/build-cli.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 60_000,
    reporters: ["verbose"]
  }
})
