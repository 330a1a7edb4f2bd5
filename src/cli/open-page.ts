// Offering to open the sign-in page in the browser, as `gh auth login` does (issue 18.4, D28): only
// on a terminal (stdin and stdout both), never under --json, and never without a keypress: Enter
// opens the page with the desktop's opener (`xdg-open`, `open` on macOS), as an argument, through no
// shell, and says what it did (issue 26, D46): "Opening … in your browser.", or, where no browser
// can be opened (a Linux host with no display and no $BROWSER, an opener that is missing or fails),
// to use the code on another device. The offer ends with the sign-in, so stdin never keeps the
// process alive.
import { spawn } from "node:child_process"

/** Whether a person is at a terminal to answer the offer. */
export const canOffer = (json: boolean): boolean =>
  !json && process.stdin.isTTY === true && process.stdout.isTTY === true

const opener = process.platform === "darwin" ? "open" : "xdg-open"

/**
 * Whether a browser could open here at all: macOS always has one; elsewhere a graphical session
 * (X11 or Wayland) or a $BROWSER of the person's choosing. A server over ssh has none.
 */
export const hasDesktop = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean =>
  platform === "darwin" || [env["DISPLAY"], env["WAYLAND_DISPLAY"], env["BROWSER"]].some(
    (value) => value !== undefined && value !== ""
  )

/** What Enter did, for the words: the page is opening, or no browser could be opened here. */
export type Opened = "opening" | "no-browser"

/**
 * Listens for Enter on stdin and then opens `page`, telling `said` what it did: "opening" as the
 * opener starts, "no-browser" when there is no desktop or the opener cannot start or fails.
 * Returns what ends the offer (the sign-in ended, or the program stops).
 */
export const offerToOpen = (page: string, said: (opened: Opened) => void): () => void => {
  const end = () => {
    process.stdin.off("data", onEnter)
    process.stdin.pause()
  }
  const onEnter = () => {
    end()
    if (!hasDesktop(process.platform, process.env)) return said("no-browser")
    said("opening")
    const child = spawn(opener, [page], { detached: true, stdio: "ignore" })
    // An opener may run the browser and wait for it, so its success is never awaited; its failure is
    // said once, whether it could not start ("error") or ended unsuccessful ("exit", after or without it).
    let failed = false
    const fail = () => {
      if (!failed) said("no-browser")
      failed = true
    }
    child.once("error", fail)
    child.once("exit", (code) => {
      if (code !== 0 && code !== null) fail()
    })
    child.unref()
  }
  process.stdin.on("data", onEnter)
  process.stdin.resume()
  return end
}
