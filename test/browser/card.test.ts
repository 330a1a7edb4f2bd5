// The person's card (C10) in real Chromium (Debian's, driven by playwright-core), on `npm run demo:web`'s
// own Launchpad page (fixtures/web-demo.ts): the Hermes simulator, the real `buddy serve`, and the
// card bundled by esbuild, served under `default-src 'self'`. Walked by keyboard alone, in Czech and in
// English: start, the code (focused when it appears), Hermes's approval, signed in, sign-out with its
// confirmation, and each ending the simulator can give. axe-core runs in every state, light and dark;
// the page breaks no CSP rule; it reflows at 320 px and at 200 % zoom; motion stops for a person who
// asked for less; and the Launchpad's own sign-in expiring mid-hold is the card's own state, with
// polling stopped. Screenshots of the main states go to docs/element/ (BUDDY_SCREENSHOTS=1).
import { mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startWebDemo, type WebDemo } from "../../fixtures/web-demo.js"
import { words } from "../../src/element/words.js"
import { chromiumArgs, chromiumPath, hasChromium } from "./support/chromium.js"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
const screenshots = process.env["BUDDY_SCREENSHOTS"] === "1"
const shotsDir = path.resolve(import.meta.dirname, "../../docs/element")

type Locale = "cs" | "en"
const POLL = 200

let demo: WebDemo
let browser: Browser

/** What the card shows now: its live region's words, its parts, and where focus is in it. */
interface Seen {
  readonly status: string
  readonly parts: ReadonlyArray<string>
  readonly focused: string | undefined
  readonly code: string | undefined
}

const seen = (page: Page): Promise<Seen> =>
  page.evaluate(() => {
    const root = document.querySelector("buddy-sign-in")?.shadowRoot
    const parts = [...(root?.querySelectorAll("[part]") ?? [])].map((node) => node.getAttribute("part") ?? "")
    return {
      status: root?.querySelector("[part~=status]")?.textContent ?? "",
      parts,
      focused: root?.activeElement?.getAttribute("part") ?? undefined,
      code: root?.querySelector("[part~=code]")?.textContent ?? undefined
    }
  })

/** Waits until the card's live region says exactly `words`. */
const until = async (page: Page, text: string) => {
  await page.waitForFunction(
    (expected) =>
      document.querySelector("buddy-sign-in")?.shadowRoot?.querySelector("[part~=status]")?.textContent === expected,
    text,
    { timeout: 10_000 }
  )
}

/** Presses Tab until focus is on the card's part `part`, then Enter. */
const press = async (page: Page, part: string) => {
  for (let tabs = 0; tabs < 12; tabs++) {
    const focused = await page.evaluate(() =>
      document.querySelector("buddy-sign-in")?.shadowRoot?.activeElement?.getAttribute("part") ?? ""
    )
    if (focused.split(" ").includes(part)) {
      await page.keyboard.press("Enter")
      return
    }
    await page.keyboard.press("Tab")
  }
  throw new Error(`no ${part} reached by Tab`)
}

/** axe-core's violations in the page as it is now, WCAG 2.2 A and AA. */
const axe = async (page: Page): Promise<ReadonlyArray<string>> => {
  await page.evaluate(axeSource)
  return page.evaluate(async () => {
    const result = await (window as unknown as {
      axe: {
        run: (
          context: unknown,
          options: unknown
        ) => Promise<{ violations: ReadonlyArray<{ id: string; nodes: ReadonlyArray<unknown> }> }>
      }
    }).axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] } })
    return result.violations.map((violation) => `${violation.id} (${violation.nodes.length})`)
  })
}

/** Light and dark: axe-core finds nothing in either. */
const accessible = async (page: Page, state: string) => {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme })
    expect(await axe(page), `${state}, ${colorScheme}`).toStrictEqual([])
  }
  await page.emulateMedia({ colorScheme: "light" })
}

const shot = async (page: Page, name: string) => {
  if (!screenshots) return
  mkdirSync(shotsDir, { recursive: true })
  await page.locator("buddy-sign-in").screenshot({ path: path.join(shotsDir, `${name}.png`) })
}

/** A new page on the demo's Launchpad, every CSP violation it meets collected. */
const open = async (locale: Locale, viewport = { width: 800, height: 900 }) => {
  const page = await browser.newPage({ viewport })
  await page.addInitScript(() => {
    const seenViolations: Array<string> = []
    Object.assign(window, { cspViolations: seenViolations })
    document.addEventListener("securitypolicyviolation", (event) => {
      seenViolations.push(`${event.violatedDirective} ${event.blockedURI}`)
    })
  })
  await page.goto(`${demo.origin}/?locale=${locale}&poll=${POLL}`)
  await until(page, words[locale].buddy.waits)
  return page
}

const violations = (page: Page) =>
  page.evaluate(() => (window as unknown as { cspViolations: Array<string> }).cspViolations)

/** The session the card's start made, newest. */
const newestSession = () => demo.gateway.sessions().at(-1)?.id ?? ""

beforeAll(async () => {
  if (!hasChromium) return
  demo = await startWebDemo()
  browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs], timeout: 20_000 })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await demo?.close()
}, 20_000)

describe.skipIf(!hasChromium)("<buddy-sign-in> in Chromium", () => {
  for (const locale of ["en", "cs"] as const) {
    const said = words[locale]
    it(`${locale}: the whole walk by keyboard alone, accessible in every state, under the strict CSP`, async () => {
      demo.gateway.setSignedIn(false)
      const page = await open(locale)
      await accessible(page, "waits")
      await shot(page, `${locale}-waits`)
      await press(page, "start")
      await page.waitForFunction(() =>
        document.querySelector("buddy-sign-in")?.shadowRoot?.querySelector("[part~=code]") !== null
      )
      const pending = await seen(page)
      expect(pending.code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{5}$/)
      // Focus goes to the code when it appears.
      expect(pending.focused).toBe("code")
      expect(pending.parts).toEqual(expect.arrayContaining(["qr", "link", "button copy", "button cancel"]))
      const link = await page.evaluate(() => {
        const anchor = document.querySelector("buddy-sign-in")?.shadowRoot?.querySelector("a")
        return {
          href: anchor?.getAttribute("href"),
          target: anchor?.getAttribute("target"),
          rel: anchor?.getAttribute("rel")
        }
      })
      expect(link).toStrictEqual({
        href: "https://auth.openai.com/codex/device",
        target: "_blank",
        rel: "noopener noreferrer"
      })
      await accessible(page, "pending")
      await shot(page, `${locale}-pending`)
      demo.gateway.approve(newestSession())
      await until(page, said.endings["signed-in"])
      await accessible(page, "signed in")
      await shot(page, `${locale}-signed-in`)
      await press(page, "sign-out")
      await until(page, said.signOutQuestion)
      // The confirmation's safe choice has focus; the person moves to the other one.
      expect((await seen(page)).focused).toBe("button keep")
      await accessible(page, "confirm")
      await shot(page, `${locale}-confirm`)
      await press(page, "confirm")
      await until(page, said.signedOut)
      expect(demo.gateway.signedIn).toBe(false)
      await accessible(page, "signed out")
      expect(await violations(page)).toStrictEqual([])
      // The policy is enforced, and its violations are seen: an inline style attribute is refused.
      await page.evaluate(() => document.body.setAttribute("style", "color: red"))
      await page.waitForFunction(() => (window as unknown as { cspViolations: Array<string> }).cspViolations.length > 0)
      expect((await violations(page))[0]).toMatch(/^style-src-attr/)
      await page.close()
    }, 60_000)

    it(`${locale}: each ending the simulator gives, and a cancel, then try again`, async () => {
      const page = await open(locale)
      const endings = [
        ["expired", (id: string) => demo.gateway.expire(id)],
        ["refused", (id: string) => demo.gateway.deny(id)],
        ["failed", (id: string) => demo.gateway.error(id)],
        ["lost", () => demo.gateway.sweep()]
      ] as const
      await press(page, "start")
      for (const [ending, end] of endings) {
        await page.waitForFunction(() =>
          document.querySelector("buddy-sign-in")?.shadowRoot?.querySelector("[part~=code]") !== null
        )
        end(newestSession())
        await until(page, said.endings[ending])
        await accessible(page, ending)
        if (ending === "expired") await shot(page, `${locale}-expired`)
        await press(page, "start")
      }
      await page.waitForFunction(() =>
        document.querySelector("buddy-sign-in")?.shadowRoot?.querySelector("[part~=code]") !== null
      )
      await press(page, "cancel")
      await until(page, said.endings.cancelled)
      expect(demo.gateway.sessions().at(-1)?.cancelled).toBe(true)
      await accessible(page, "cancelled")
      expect(await violations(page)).toStrictEqual([])
      await page.close()
    }, 90_000)
  }

  it("the Launchpad's own sign-in expiring mid-hold is its own state, and polling stops", async () => {
    const page = await open("en")
    await press(page, "start")
    await page.waitForFunction(() =>
      document.querySelector("buddy-sign-in")?.shadowRoot?.querySelector("[part~=code]") !== null
    )
    demo.setLaunchpadSignedIn(false)
    try {
      await until(page, words.en.frontDoor)
      const asked = demo.asked.length
      await page.waitForTimeout(POLL * 6)
      expect(demo.asked.length).toBe(asked)
      await accessible(page, "front door")
      await shot(page, "en-front-door")
    } finally {
      demo.setLaunchpadSignedIn(true)
    }
    await page.close()
    // The sign-in the closed page held ends on Hermes, so the next page finds none held.
    demo.gateway.expire(newestSession())
  }, 60_000)

  it("a refusal and Buddy's unknown state are said in words, accessible; the live region is polite", async () => {
    for (const locale of ["en", "cs"] as const) {
      const said = words[locale]
      const page = await open(locale)
      expect(
        await page.evaluate(() => {
          const live = document.querySelector("buddy-sign-in")?.shadowRoot?.querySelector("[part~=status]")
          return [live?.getAttribute("role"), live?.getAttribute("aria-live")]
        })
      ).toStrictEqual(["status", "polite"])
      // A Hermes without the cancellation contract: the start is blocked, nothing started.
      demo.gateway.setContract(false)
      try {
        const sessions = demo.gateway.sessions().length
        await press(page, "start")
        await until(page, said.blocked["hermes-outdated"])
        expect(demo.gateway.sessions()).toHaveLength(sessions)
        await accessible(page, "hermes-outdated")
        await shot(page, `${locale}-hermes-outdated`)
      } finally {
        demo.gateway.setContract(true)
      }
      // A gateway that is not ready: Buddy's state is unknown, and why, in words.
      demo.gateway.setState("draining")
      try {
        await press(page, "check")
        await until(page, `${said.buddy.unknown}${said.unavailable["not-ready"]}`)
        await accessible(page, "unknown, not ready")
      } finally {
        demo.gateway.setState("ready")
      }
      await press(page, "check")
      await until(page, said.buddy.waits)
      await page.close()
    }
  }, 60_000)

  it("axe-core sees inside the card: a host's colour below AA is found", async () => {
    const page = await open("en")
    await page.evaluate(() => {
      document.querySelector<HTMLElement>("buddy-sign-in")?.style.setProperty("--buddy-accent", "#9ec1ff")
    })
    expect(await axe(page)).toStrictEqual(["color-contrast (1)"])
    await page.close()
  }, 30_000)

  it("reflows at 320 px and at 200 % zoom: nothing scrolls sideways, every control in view", async () => {
    for (const viewport of [{ width: 320, height: 800, scale: 1 }, { width: 640, height: 450, scale: 2 }]) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: viewport.scale })
      const page = await context.newPage()
      await page.goto(`${demo.origin}/?locale=cs&poll=${POLL}`)
      await until(page, words.cs.buddy.waits)
      await press(page, "start")
      await page.waitForFunction(() =>
        document.querySelector("buddy-sign-in")?.shadowRoot?.querySelector("[part~=code]") !== null
      )
      const layout = await page.evaluate(() => {
        const root = document.querySelector("buddy-sign-in")?.shadowRoot
        const controls = [...(root?.querySelectorAll("button, a, [part~=code]") ?? [])].map((node) =>
          node.getBoundingClientRect()
        )
        return {
          scrollWidth: document.documentElement.scrollWidth,
          width: window.innerWidth,
          outside: controls.filter((box) => box.left < 0 || box.right > window.innerWidth).length
        }
      })
      expect(layout.scrollWidth, `${viewport.width} px`).toBeLessThanOrEqual(layout.width)
      expect(layout.outside).toBe(0)
      await press(page, "cancel")
      await until(page, words.cs.endings.cancelled)
      await context.close()
    }
  }, 60_000)

  it("stops turning for a person who asked for less motion", async () => {
    for (const [reducedMotion, expected] of [["reduce", "none"], ["no-preference", "buddy-turn"]] as const) {
      const page = await browser.newPage()
      await page.emulateMedia({ reducedMotion })
      await page.goto(`${demo.origin}/?locale=en&poll=${POLL}`)
      await until(page, words.en.buddy.waits)
      // The card's busy state, as while it starts a sign-in: the spinner's animation.
      const animation = await page.evaluate(() => {
        const root = document.querySelector("buddy-sign-in")?.shadowRoot
        root?.querySelector("[part~=card]")?.classList.add("busy")
        const status = root?.querySelector("[part~=status]")
        return status === null || status === undefined ? "" : getComputedStyle(status, "::after").animationName
      })
      expect(animation, reducedMotion).toBe(expected)
      await page.close()
    }
  }, 30_000)
})
