import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

/** Inside the repository "@lazurio/buddy" is its own source, as tsconfig.json's paths say (not the built dist/lib). */
export const selfReference = [
  { find: /^@lazurio\/buddy$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  { find: /^@lazurio\/buddy\/client$/, replacement: fileURLToPath(new URL("./src/client/index.ts", import.meta.url)) },
  { find: /^@lazurio\/buddy\/testing$/, replacement: fileURLToPath(new URL("./src/testing/index.ts", import.meta.url)) }
]

export default defineConfig({
  resolve: { alias: selfReference },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/build-cli.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
