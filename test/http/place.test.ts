// Where a request is for the app (admission's placeOf): the root it is served under and the path
// below it, from the two targets a router leaves (`originalUrl` whole, `url` with a mount prefix cut
// off), for every way D20 mounts the app, and for an absolute-form target (`GET http://host/path`),
// which the platform gives as `originalUrl` while `url` is its path.
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { placeOf } from "../../src/http/admission.js"

/** `originalUrl` is the target as sent, `url` what a router left of it (the same when served whole). */
const place = (originalUrl: string, url: string = originalUrl) => Option.getOrNull(placeOf({ originalUrl, url }))

describe("placeOf", () => {
  it("served whole: C6's root, the path below it, the query left out", () => {
    expect(place("/api/buddy")).toStrictEqual({ root: "/api/buddy", path: "" })
    expect(place("/api/buddy/sign-in/start?x=/y")).toStrictEqual({ root: "/api/buddy", path: "/sign-in/start" })
    expect(place("/api/buddy/")).toStrictEqual({ root: "/api/buddy", path: "/" })
  })

  it("served whole: not Buddy's outside the root, however close", () => {
    expect(place("/api/buddyx")).toBeNull()
    expect(place("/api")).toBeNull()
    expect(place("/")).toBeNull()
  })

  it("mounted under a prefix: the whole prefix is the root, the rest the path", () => {
    expect(place("/launchpad/buddy/sign-in/poll", "/sign-in/poll")).toStrictEqual({
      root: "/launchpad/buddy",
      path: "/sign-in/poll"
    })
    expect(place("/launchpad/buddy/openapi.json?v=1", "/openapi.json?v=1")).toStrictEqual({
      root: "/launchpad/buddy",
      path: "/openapi.json"
    })
    // The prefix alone: the router leaves `/`, and the root itself is asked.
    expect(place("/launchpad/buddy", "/")).toStrictEqual({ root: "/launchpad/buddy", path: "" })
    expect(place("/launchpad/buddy?v=1", "?v=1")).toStrictEqual({ root: "/launchpad/buddy", path: "" })
    // A prefix ending in a slash leaves `/` that is the target's own last character.
    expect(place("/launchpad/buddy/", "/")).toStrictEqual({ root: "/launchpad/buddy", path: "/" })
  })

  it("a url that is not the original's end (a router rewrote it) is placed by itself", () => {
    expect(place("/launchpad/api/buddy", "/api/buddy/sign-out")).toStrictEqual({
      root: "/api/buddy",
      path: "/sign-out"
    })
    expect(place("/launchpad/x", "/elsewhere")).toBeNull()
  })

  it("an absolute-form target is read from its path, with or without a mount prefix", () => {
    expect(place("http://127.0.0.1:8080/api/buddy/sign-out", "/api/buddy/sign-out")).toStrictEqual({
      root: "/api/buddy",
      path: "/sign-out"
    })
    expect(place("http://127.0.0.1:8080/launchpad/buddy/sign-out", "/sign-out")).toStrictEqual({
      root: "/launchpad/buddy",
      path: "/sign-out"
    })
    // No path at all is `/`, which is not Buddy's.
    expect(place("http://127.0.0.1:8080", "/")).toBeNull()
  })

  it("a web request through the web handler has an absolute originalUrl, and is placed as the same path", () => {
    const web = HttpServerRequest.fromWeb(new Request("http://127.0.0.1:8080/launchpad/buddy/sign-in/cancel?x=1"))
    expect(Option.getOrNull(placeOf(web))).toBeNull()
    expect(Option.getOrNull(placeOf(web.modify({ url: "/sign-in/cancel?x=1" })))).toStrictEqual({
      root: "/launchpad/buddy",
      path: "/sign-in/cancel"
    })
  })
})
