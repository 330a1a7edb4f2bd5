// The README's two mounting examples run as written: each serves the Launchpad's own page and
// buddy's routes side by side, against the fake gateway. The README shows these files verbatim.
import { HttpServer } from "@effect/platform"
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import type { AddressInfo } from "node:net"
import { launchpad as effectLaunchpad } from "../examples/mount-effect.js"
import { launchpad as nodeLaunchpad } from "../examples/mount-node.js"
import { makeFakeGateway } from "../fixtures/fake-gateway.js"
import { BuddyConfig } from "../src/services/BuddyConfig.js"

const get = (port: number, path: string) =>
  Effect.async<{ status: number; body: string }>((resume) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = ""
      res.on("data", (chunk: Buffer) => (body += chunk.toString()))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body })))
    })
    req.end()
  })

const configFor = (home: string) =>
  BuddyConfig.make({
    hermesHome: home,
    launchpadOrigin: "https://launchpad.example",
    buddyOrigin: "https://buddy.example",
    environment: "hosted-personal",
    locale: "en"
  })

const buddyBody = "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"

it.scopedLive("the @effect/platform example serves the Launchpad and buddy's routes together", () =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway()
    const context = yield* Layer.build(effectLaunchpad(configFor(fake.home), 0))
    const address = (yield* Effect.provide(HttpServer.HttpServer, context)).address
    const port = address._tag === "TcpAddress" ? address.port : 0
    expect(yield* get(port, "/")).toStrictEqual({ status: 200, body: "the Launchpad" })
    expect(yield* get(port, "/api/buddy")).toStrictEqual({ status: 200, body: buddyBody })
    expect(yield* get(port, "/api/buddy/nope")).toStrictEqual({ status: 404, body: "{\"error\":\"not-found\"}" })
  }))

it.scopedLive("the plain node:http example serves the Launchpad and buddy's routes together", () =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway()
    const { close, server } = yield* Effect.promise(() => nodeLaunchpad(configFor(fake.home)))
    yield* Effect.addFinalizer(() => Effect.promise(close))
    yield* Effect.async<void>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.void))
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => server.close()))
    const { port } = server.address() as AddressInfo
    expect(yield* get(port, "/")).toStrictEqual({ status: 200, body: "the Launchpad" })
    expect(yield* get(port, "/api/buddy")).toStrictEqual({ status: 200, body: buddyBody })
  }))

it("the README shows both examples exactly as they are in examples/", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
  for (const file of ["mount-effect.ts", "mount-node.ts"]) {
    const code = readFileSync(new URL(`../examples/${file}`, import.meta.url), "utf8")
    const body = code.split("\n").filter((line) => !line.startsWith("//")).join("\n").trim()
    expect(readme).toContain(body)
  }
})
