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

/** A fake gateway and a `buddy serve --config` file for it: Buddy present, hosted personal, English. */
export const serveConfig = async (prefix: string, launchpadOrigin = "https://launchpad.example") => {
  const fake = await fakeGateway()
  const dir = await tempDir(prefix)
  const config = path.join(dir, "config.json")
  await fs.writeFile(
    config,
    JSON.stringify({
      hermesHome: fake.home,
      launchpadOrigin,
      buddyOrigin: "https://buddy.example",
      environment: "hosted-personal",
      locale: "en"
    })
  )
  return { fake, config, dir }
}
