// `<buddy-sign-in>` (C10): the person's card, on the browser client and nothing else. It reads Buddy's
// state, starts a sign-in, shows the code (with a copy button), OpenAI's page (a link opening a new tab
// and a QR code for a phone), the waiting, each ending, every refusal in words, cancels, and signs out
// after a confirmation. A shadow root holds it: the host styles it through custom properties and
// parts only, and its styles are one constructed sheet (no <style>, no style attribute: a strict CSP
// allows it). Each change is one `buddy-sign-in-change` event with the view's closed values (view.ts).
// A custom element is a class by the platform's definition; it is made inside `defineCard`, so that a
// server-side import of the package, where no HTMLElement exists, loads without defining anything.
import { type BuddyClient, makeBuddyClient } from "../client/index.js"
import { darkModules, page as qrPage, size as qrSize } from "./page-qr.js"
import { cardStyles } from "./styles.js"
import {
  changeOf,
  fromCancel,
  fromPoll,
  fromSignOut,
  fromStart,
  fromStatus,
  minutesWaited,
  type Problem,
  type View
} from "./view.js"
import { type Words, words } from "./words.js"

/** The event each change of the card dispatches; its `detail` is the view's closed values. */
export const changeEvent = "buddy-sign-in-change"

type Locale = keyof typeof words
const isLocale = (value: string | null): value is Locale => value === "cs" || value === "en"

const svgNs = "http://www.w3.org/2000/svg"

/** An element with these parts, classes and children; text is always text, never markup. */
const make = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: {
    readonly part?: string
    readonly text?: string
    readonly attributes?: Readonly<Record<string, string>>
    readonly children?: ReadonlyArray<Node>
  } = {}
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  if (options.part !== undefined) element.setAttribute("part", options.part)
  if (options.text !== undefined) element.textContent = options.text
  for (const [name, value] of Object.entries(options.attributes ?? {})) element.setAttribute(name, value)
  element.append(...(options.children ?? []))
  return element
}

const button = (text: string, part: string, onClick: () => void, primary = false) => {
  const made = make("button", { part: primary ? `button primary ${part}` : `button ${part}`, text })
  made.type = "button"
  made.addEventListener("click", onClick)
  return made
}

/** The QR code of OpenAI's page, drawn dark on light whatever the theme, so any camera reads it. */
const qrCode = (label: string) => {
  const svg = document.createElementNS(svgNs, "svg")
  svg.setAttribute("viewBox", `0 0 ${qrSize} ${qrSize}`)
  svg.setAttribute("role", "img")
  svg.setAttribute("aria-label", label)
  svg.setAttribute("part", "qr")
  svg.setAttribute("shape-rendering", "crispEdges")
  const light = document.createElementNS(svgNs, "rect")
  light.setAttribute("width", String(qrSize))
  light.setAttribute("height", String(qrSize))
  light.setAttribute("fill", "#ffffff")
  const dark = document.createElementNS(svgNs, "path")
  dark.setAttribute("d", darkModules)
  dark.setAttribute("fill", "#000000")
  svg.append(light, dark)
  return svg
}

/** The words a problem shows, and whether trying again may help. */
const problemWords = (problem: Problem, said: Words): string => {
  switch (problem.kind) {
    case "blocked":
      return said.blocked[problem.reason]
    case "unavailable":
      return said.unavailable[problem.reason]
    case "denied":
      return said.denied[problem.reason]
    case "error":
      return said.errors[problem.error]
    case "front-door":
      return said.frontDoor
    case "network-failed":
      return said.networkFailed
    case "unknown-answer":
      return said.unknownAnswer
  }
}

/** Defines `<buddy-sign-in>` (or `name`) once, where custom elements exist; returns whether it is defined. */
export const defineCard = (name = "buddy-sign-in"): boolean => {
  if (typeof customElements === "undefined" || typeof HTMLElement === "undefined") return false
  if (customElements.get(name) !== undefined) return true

  const sheet = new CSSStyleSheet()
  sheet.replaceSync(cardStyles)

  customElements.define(
    name,
    class BuddySignIn extends HTMLElement {
      static get observedAttributes() {
        return ["root", "locale", "poll-interval"]
      }

      readonly #shadow: ShadowRoot
      #client: BuddyClient
      #view: View = { kind: "loading" }
      /** The Launchpad's locale from the last status answer, when the page set none. */
      #answeredLocale: Locale = "en"
      #handle: string | undefined
      /** Stops the hold (and the waiting line's clock) of this card's sign-in. */
      #holding: AbortController | undefined
      #clock: ReturnType<typeof setInterval> | undefined
      /** Said after the last change, in the live region: the copy button's outcome. */
      #note = ""
      #connected = false
      #frame:
        | {
          readonly card: HTMLElement
          readonly title: HTMLElement
          readonly status: HTMLElement
          readonly body: HTMLElement
          readonly actions: HTMLElement
          readonly note: HTMLElement
        }
        | undefined

      constructor() {
        super()
        this.#shadow = this.attachShadow({ mode: "open" })
        this.#shadow.adoptedStyleSheets = [sheet]
        this.#client = makeBuddyClient({ root: this.getAttribute("root") ?? undefined })
      }

      /** The API root the card asks (`/api/buddy` unless the Launchpad moved it). */
      get root(): string {
        return this.getAttribute("root") ?? "/api/buddy"
      }
      set root(value: string) {
        this.setAttribute("root", value)
      }

      /** `cs` or `en`; unset, the Launchpad's own, as its status answer names it. */
      get locale(): Locale {
        const set = this.getAttribute("locale")
        return isLocale(set) ? set : this.#answeredLocale
      }
      set locale(value: Locale) {
        this.setAttribute("locale", value)
      }

      /**
       * Milliseconds between polls of a held sign-in: C6's 5 000 unless set (a demo or a test may ask
       * for less, never under 100).
       */
      get pollInterval(): number {
        const set = Number(this.getAttribute("poll-interval"))
        return Number.isFinite(set) && set >= 100 ? set : 5_000
      }

      /** The card's closed state, as its last change event carried it. */
      get state() {
        return changeOf(this.#view)
      }

      connectedCallback() {
        this.#connected = true
        this.#render(false)
        void this.refresh()
      }

      disconnectedCallback() {
        this.#connected = false
        this.#stopHolding()
      }

      attributeChangedCallback(name: string, before: string | null, after: string | null) {
        if (before === after) return
        if (name === "poll-interval") return
        if (name === "root") {
          this.#stopHolding()
          this.#client = makeBuddyClient({ root: after ?? undefined })
          if (this.#connected) void this.refresh()
        } else if (this.#connected) {
          this.#render(false)
        }
      }

      /** Reads Buddy's state afresh (a sign-in this card holds goes on being polled). */
      async refresh() {
        if (this.#view.kind === "pending" || this.#view.kind === "cancelling") return
        const result = await this.#client.status()
        if (result.kind === "buddy") this.#answeredLocale = result.locale
        this.#show(fromStatus(result))
      }

      #show(view: View, focusCode = false) {
        const changed = JSON.stringify(changeOf(view)) !== JSON.stringify(changeOf(this.#view))
        this.#view = view
        this.#note = ""
        this.#render(focusCode)
        if (view.kind === "pending" && this.#clock === undefined) {
          this.#clock = setInterval(() => this.#render(false), 30_000)
        }
        if (view.kind !== "pending" && view.kind !== "cancelling" && this.#clock !== undefined) {
          clearInterval(this.#clock)
          this.#clock = undefined
        }
        if (changed) {
          this.dispatchEvent(new CustomEvent(changeEvent, { detail: changeOf(view), bubbles: true, composed: true }))
        }
      }

      #stopHolding() {
        this.#holding?.abort()
        this.#holding = undefined
        if (this.#clock !== undefined) clearInterval(this.#clock)
        this.#clock = undefined
      }

      async #start() {
        this.#show({ kind: "starting" })
        const result = await this.#client.start()
        const view = fromStart(result, Date.now())
        this.#handle = result.kind === "sign-in" ? result.handle : undefined
        this.#show(view, view.kind === "pending")
        if (this.#handle !== undefined) void this.#hold(this.#handle)
      }

      async #hold(handle: string) {
        const holding = new AbortController()
        this.#holding = holding
        const ended = await this.#client.hold(handle, {
          interval: this.pollInterval,
          signal: holding.signal,
          onChange: (result) => {
            if (!holding.signal.aborted) this.#show(fromPoll(result, this.#view))
          }
        })
        if (holding.signal.aborted || ended.kind === "stopped") return
        this.#handle = undefined
        this.#holding = undefined
      }

      async #cancel() {
        const handle = this.#handle
        const view = this.#view
        if (handle === undefined || view.kind !== "pending") return
        this.#stopHolding()
        this.#show({ kind: "cancelling", code: view.code, page: view.page, since: view.since })
        const result = await this.#client.cancel(handle)
        this.#handle = undefined
        this.#show(fromCancel(result))
      }

      async #signOut() {
        this.#show({ kind: "signing-out" })
        this.#show(fromSignOut(await this.#client.signOut()))
      }

      #copy() {
        const view = this.#view
        if (view.kind !== "pending") return
        const said = words[this.locale]
        const selectCode = () => {
          const code = this.#shadow.querySelector("[part~=code]")
          const selection = document.getSelection()
          if (code !== null && selection !== null) {
            const range = document.createRange()
            range.selectNodeContents(code)
            selection.removeAllRanges()
            selection.addRange(range)
          }
          this.#say(said.copySelected)
        }
        const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard
        if (clipboard === undefined) return selectCode()
        clipboard.writeText(view.code).then(() => this.#say(said.copied), selectCode)
      }

      #say(note: string) {
        this.#note = note
        const live = this.#shadow.querySelector("[part~=note]")
        if (live !== null) live.textContent = note
      }

      /** Draws the view; focus goes to the code when it first appears, else stays where it can. */
      #render(focusCode: boolean) {
        const said = words[this.locale]
        const hadFocus = this.#shadow.activeElement !== null
        const view = this.#view
        const body: Array<Node> = []
        const actions: Array<HTMLElement> = []
        const message = (text: string) => body.push(make("p", { part: "message", text }))

        switch (view.kind) {
          case "loading":
            message(said.loading)
            break
          case "buddy": {
            message(said.buddy[view.state])
            if (view.reason !== undefined) message(said.unavailable[view.reason])
            if (view.signIn === "pending") {
              message(said.heldElsewhere)
              actions.push(button(said.checkAgain, "check", () => void this.refresh()))
            } else {
              actions.push(button(said.start, "start", () => void this.#start(), true))
              if (view.state === "works") actions.push(button(said.signOut, "sign-out", () => this.#confirm()))
              if (view.state === "unknown") actions.push(button(said.checkAgain, "check", () => void this.refresh()))
            }
            break
          }
          case "starting":
            message(said.starting)
            break
          case "pending":
          case "cancelling": {
            message(said.codeIntro)
            body.push(
              make("p", {
                part: "code",
                text: view.code,
                attributes: { tabindex: "-1", "aria-label": `${said.codeLabel}: ${[...view.code].join(" ")}` }
              })
            )
            const link = make("a", {
              part: "link",
              text: said.openPage,
              attributes: { href: view.page, target: "_blank", rel: "noopener noreferrer", title: said.newTab }
            })
            link.append(make("span", { part: "hint", text: ` ${said.newTab}` }))
            const row = make("div", { part: "row" })
            if (view.kind === "pending") row.append(button(said.copy, "copy", () => this.#copy()))
            row.append(link)
            body.push(row)
            if (view.page === qrPage) {
              body.push(
                make("figure", {
                  part: "qr-figure",
                  children: [qrCode(said.qrLabel), make("figcaption", { part: "hint", text: said.qrHint })]
                })
              )
            }
            body.push(make("p", {
              part: "waiting",
              text: view.kind === "pending" ? said.waiting(minutesWaited(view.since, Date.now())) : said.cancelling
            }))
            if (view.kind === "pending") actions.push(button(said.cancel, "cancel", () => void this.#cancel()))
            break
          }
          case "ended":
            message(said.endings[view.state])
            actions.push(
              view.state === "signed-in"
                ? button(said.signOut, "sign-out", () => this.#confirm())
                : button(said.tryAgain, "start", () => void this.#start(), true)
            )
            break
          case "confirm-sign-out":
            message(said.signOutQuestion)
            actions.push(button(said.signOutConfirm, "confirm", () => void this.#signOut(), true))
            actions.push(button(said.signOutKeep, "keep", () => void this.refresh()))
            break
          case "signing-out":
            message(said.signingOut)
            break
          case "signed-out":
            message(said.signedOut)
            actions.push(button(said.start, "start", () => void this.#start(), true))
            break
          case "problem":
            message(problemWords(view.problem, said))
            if (view.problem.kind !== "front-door") {
              actions.push(button(said.checkAgain, "check", () => void this.refresh()))
            }
            break
        }

        const skeleton = this.#skeleton()
        skeleton.card.setAttribute("lang", this.locale)
        skeleton.title.textContent = said.title
        skeleton.card.classList.toggle(
          "busy",
          view.kind === "starting" || view.kind === "signing-out" || view.kind === "loading"
        )
        // The live region stays in place and only its words change: a region put in anew is not read.
        const messages = body.filter((node) => node instanceof HTMLElement && node.getAttribute("part") === "message")
        const text = messages.map((node) => node.textContent).join(" ")
        if (skeleton.status.textContent !== text) skeleton.status.replaceChildren(...messages)
        skeleton.body.replaceChildren(...body.filter((node) => !messages.includes(node)))
        skeleton.actions.replaceChildren(...actions)
        skeleton.note.textContent = this.#note

        const code = this.#shadow.querySelector<HTMLElement>("[part~=code]")
        if (focusCode && code !== null) code.focus()
        else if (hadFocus && !this.#shadow.contains(this.#shadow.activeElement)) (actions[0] ?? skeleton.title).focus()
      }

      /** The card's lasting frame: its heading, live region, body, actions and the note's own region. */
      #skeleton() {
        const found = this.#frame
        if (found !== undefined) return found
        const title = make("h2", { part: "title", attributes: { id: "buddy-title", tabindex: "-1" } })
        const status = make("div", {
          part: "status",
          attributes: { role: "status", "aria-live": "polite", "aria-atomic": "true" }
        })
        const body = make("div", { part: "body" })
        const actions = make("div", { part: "actions" })
        const note = make("p", { part: "note", attributes: { role: "status", "aria-live": "polite" } })
        const card = make("section", {
          part: "card",
          attributes: { "aria-labelledby": "buddy-title" },
          children: [title, status, body, actions, note]
        })
        this.#shadow.replaceChildren(card)
        const frame = { card, title, status, body, actions, note }
        this.#frame = frame
        return frame
      }

      #confirm() {
        this.#show({ kind: "confirm-sign-out" })
        this.#shadow.querySelector<HTMLElement>("[part~=keep]")?.focus()
      }
    }
  )
  return true
}
