// A serving process's own heap, read from outside it through the V8 inspector (Node's
// `--inspect=127.0.0.1:0`, which prints the address on stderr): a full garbage collection, then the
// heap that survived it. What a burst leaves behind is what is still reachable after a full GC;
// RSS and an un-collected heap only say how large V8 chose to let the heap grow.
import WebSocket from "ws"

/** The inspector's WebSocket address from a Node process's stderr lines, if it printed one. */
export const inspectorUrl = (stderr: ReadonlyArray<string>): string | undefined =>
  stderr.map((line) => /Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1]).find((url) => url !== undefined)

interface Reply {
  readonly id: number
  readonly result?: { readonly result?: { readonly value?: unknown } }
  readonly error?: { readonly message: string }
}

export interface HeapAfterGc {
  /** `process.memoryUsage().heapUsed` after a full collection, in bytes. */
  readonly heapUsed: number
  readonly rss: number
}

/** Asks the process for a full collection, then for its memory usage; one connection, closed after. */
export const heapAfterGc = (url: string): Promise<HeapAfterGc> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    const pending = new Map<number, (reply: Reply) => void>()
    const call = (id: number, method: string, params: object = {}) =>
      new Promise<Reply>((answered) => {
        pending.set(id, answered)
        socket.send(JSON.stringify({ id, method, params }))
      })
    socket.on("message", (data: Buffer) => {
      const reply = JSON.parse(data.toString("utf8")) as Reply
      pending.get(reply.id)?.(reply)
    })
    socket.on("error", reject)
    socket.on("open", () => {
      void (async () => {
        await call(1, "HeapProfiler.enable")
        await call(2, "HeapProfiler.collectGarbage")
        const usage = await call(3, "Runtime.evaluate", {
          expression: "JSON.stringify(process.memoryUsage())",
          returnByValue: true
        })
        socket.close()
        const value = usage.result?.result?.value
        if (typeof value !== "string") return reject(new Error(`no memory usage: ${JSON.stringify(usage)}`))
        const { heapUsed, rss } = JSON.parse(value) as HeapAfterGc
        resolve({ heapUsed, rss })
      })()
    })
  })
