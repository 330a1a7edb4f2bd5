// The names others see (D37): each service's key in an Effect Context and each closed error's
// `_tag`. A key is a service's identity in a Context, so a Launchpad that provides its own services
// beside ours must never meet one of its keys; every key here is namespaced `buddy/` and unique.
// A `_tag` is what `catchTag` and a host's own error handling switch on: renaming one is a change of
// API. Pinned here, where a module-level mutant of either is killed the moment the module loads.
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { Refused } from "../../src/http/refusal.js"
import { ServedBy } from "../../src/http/served-by.js"
import { ConfigUnusable } from "../../src/serve/config-file.js"
import { SocketPlaceUnsafe } from "../../src/serve/socket-place.js"
import { ServeStop } from "../../src/serve/stop.js"
import { BuddyConfig, ConfigInvalid } from "../../src/services/BuddyConfig.js"
import { CallError } from "../../src/services/CallError.js"
import { ExchangeLimit } from "../../src/services/ExchangeLimit.js"
import { GatewayError } from "../../src/services/GatewayError.js"
import { GatewaySocket } from "../../src/services/GatewaySocket.js"
import { ContractMissing, HermesApi } from "../../src/services/HermesApi.js"
import { HolderBusy, HolderLock } from "../../src/services/HolderLock.js"
import { Journal, JournalLines } from "../../src/services/Journal.js"
import { DirectoryUnsafe } from "../../src/services/private-directory.js"
import { SetupReport } from "../../src/services/SetupReport.js"
import { Blocked, SignIn, Unavailable } from "../../src/services/SignIn.js"
import { Status } from "../../src/services/Status.js"
import { Ticket } from "../../src/services/Ticket.js"
import { FakeGateway, FakeGatewayError } from "../../src/testing/gateway.js"

describe("the names others see", () => {
  it("each service's key, namespaced and unique", () => {
    const keys = [
      BuddyConfig.key,
      ExchangeLimit.key,
      GatewaySocket.key,
      HermesApi.key,
      HolderLock.key,
      Journal.key,
      JournalLines.key,
      SignIn.key,
      Status.key,
      Ticket.key,
      SetupReport.key,
      ServedBy.key,
      FakeGateway.key
    ]
    expect(keys).toStrictEqual([
      "buddy/BuddyConfig",
      "buddy/ExchangeLimit",
      "buddy/GatewaySocket",
      "buddy/HermesApi",
      "buddy/HolderLock",
      "buddy/Journal",
      "buddy/JournalLines",
      "buddy/SignIn",
      "buddy/Status",
      "buddy/Ticket",
      "buddy/SetupReport",
      "buddy/ServedBy",
      "buddy/testing/FakeGateway"
    ])
  })

  it("each closed error's tag", () => {
    const instance = { instanceId: "i", contract: false }
    const tags = [
      new ConfigInvalid({ reason: "environment" }),
      new CallError({ reason: "timeout", instance, mayHaveRun: false }),
      new GatewayError({ reason: "timeout" }),
      new ContractMissing({ instance }),
      new HolderBusy({ reason: "held", holder: Option.none(), place: Option.none() }),
      new DirectoryUnsafe({ reason: "link", path: "/x" }),
      new Blocked({ reason: "sign-in-running" }),
      new Unavailable({ reason: "timeout" }),
      new Refused({ reason: "not-found" }),
      new ConfigUnusable({ lines: [] }),
      new SocketPlaceUnsafe({ reason: "too-long", path: "/x" }),
      new ServeStop({ code: 1, line: "" }),
      new FakeGatewayError({ reason: "no-pending-sign-in" })
    ].map((error) => error._tag)
    expect(tags).toStrictEqual([
      "ConfigInvalid",
      "CallError",
      "GatewayError",
      "ContractMissing",
      "HolderBusy",
      "DirectoryUnsafe",
      "Blocked",
      "Unavailable",
      "Refused",
      "ConfigUnusable",
      "SocketPlaceUnsafe",
      "ServeStop",
      "FakeGatewayError"
    ])
  })
})
