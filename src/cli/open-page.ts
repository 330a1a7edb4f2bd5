// Offering to open the sign-in page in the browser, as `gh auth login` does (issue 18.4, D28): only
// on a terminal (stdin and stdout both), never under --json, and never without a keypress: Enter
// opens the page with the desktop's opener (`xdg-open`, `open` on macOS), as an argument, through no
// shell. The offer ends with the sign-in, so stdin never keeps the process alive.
import { spawn } from "node:child_process"

/** Whether a person is at a terminal to answer the offer. */
export const canOffer = (json: boolean): boolean =>
  !json && process.stdin.isTTY === true && process.stdout.isTTY === true

const opener = process.platform === "darwin" ? "open" : "xdg-open"

/**
 * Listens for Enter on stdin and then opens `page`; `failed` is called when no browser could be
 * started. Returns what ends the offer (the sign-in ended, or the program stops).
 */
export const offerToOpen = (page: string, failed: () => void): () => void => {
  const end = () => {
    process.stdin.off("data", onEnter)
    process.stdin.pause()
  }
  const onEnter = () => {
    end()
    const child = spawn(opener, [page], { detached: true, stdio: "ignore" })
    child.once("error", failed)
    child.unref()
  }
  process.stdin.on("data", onEnter)
  process.stdin.resume()
  return end
}
