// One HTTP request to `buddy serve` over its Unix socket, as curl --unix-socket and nginx send it
// (`Host: localhost`); a body is sent as the Launchpad's same-origin page sends it.
import { request } from "node:http"

export const launchpad = "https://launchpad.example"

export const call = (socketPath: string, method: string, pathname: string, body?: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method,
        path: pathname,
        agent: false,
        headers: body === undefined
          ? {}
          : { "content-type": "application/json", origin: launchpad, "sec-fetch-site": "same-origin" }
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })
