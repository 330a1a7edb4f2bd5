// What a CLI test starts, stopped after it: fake gateways and temporary directories. Importing
// this registers the afterEach in the importing test file.
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach } from "vitest"
import { type FakeGatewayOptions, startFakeGateway } from "../../../fixtures/fake-gateway.js"

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})

export const onCleanup = (cleanup: () => Promise<unknown>) => {
  cleanups.push(cleanup)
}

/** A fake gateway closed after the test. */
export const fakeGateway = async (options: FakeGatewayOptions = {}) => {
  const fake = await startFakeGateway(options)
  onCleanup(() => fake.close())
  return fake
}

/** A temporary directory, with `mode` if given, removed after the test. */
export const tempDir = async (prefix: string, mode?: number) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix))
  if (mode !== undefined) await fs.chmod(dir, mode)
  onCleanup(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * `buddy serve`'s --config file at `file` for Hermes at `home`: Buddy present, hosted personal,
 * English, the Launchpad at https://launchpad.example; `fields` replace those or add (socketGroup).
 */
export const writeServeConfig = (file: string, home: string, fields: Record<string, unknown> = {}) =>
  fs.writeFile(
    file,
    JSON.stringify({
      hermesHome: home,
      launchpadOrigin: "https://launchpad.example",
      buddyOrigin: "https://buddy.example",
      environment: "hosted-personal",
      locale: "en",
      ...fields
    })
  )

/** A fake gateway and a `buddy serve --config` file for it: Buddy present, hosted personal, English. */
export const serveConfig = async (prefix: string, launchpadOrigin = "https://launchpad.example") => {
  const fake = await fakeGateway()
  const dir = await tempDir(prefix)
  const config = path.join(dir, "config.json")
  await writeServeConfig(config, fake.home, { launchpadOrigin })
  return { fake, config, dir }
}
