// A Launchpad's OpenAPI document with buddy's operations merged in, as a Launchpad writes it from
// the installed package (D54): its own HttpApi through `OpenApi.fromApi`, then
// `withBuddyOperations(prefix)` on the result, compiled by tsc with skipLibCheck off; the document
// it prints is validated as OpenAPI 3.1 and a client is generated from it with openapi-typescript,
// whose types a typed call is compiled against. The call would not compile if the document made a
// header a parameter, nor the check below if it listed buddy serve's 408.
import { validate } from "@readme/openapi-parser"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import { inDir, typeCheck } from "./package.js"

export const prefix = "/launchpad/buddy"

/** The Launchpad's module: the natural path, its types held exact, and the document printed. */
const mergeSource = `import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { openApiDocument, withBuddyOperations } from "@lazurio/buddy"
import { Schema } from "effect"

const LaunchpadApi = HttpApi.make("launchpad").add(
  HttpApiGroup.make("pages").add(HttpApiEndpoint.get("home", "/").addSuccess(Schema.String))
)
export const merged = withBuddyOperations("${prefix}")(OpenApi.fromApi(LaunchpadApi))
export const transformed = OpenApi.fromApi(LaunchpadApi.annotate(OpenApi.Transform, withBuddyOperations("${prefix}")))

type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type IsAny<T> = 0 extends 1 & T ? true : false
export const exact: Exactly<typeof merged, OpenApi.OpenAPISpec> = true
export const tagsTyped: IsAny<(typeof merged)["tags"][number]> = false
export const ownTyped: Exactly<ReturnType<typeof openApiDocument>, OpenApi.OpenAPISpec> = true

console.log(JSON.stringify({ merged, transformed }))
`

/** A typed call as a generated client makes it: the operation's parameters and body, nothing a browser sets. */
const clientSource = `import type { paths } from "./buddy-api.js"

type Start = paths["${prefix}/sign-in/start"]["post"]
type Started = Start["responses"][200]["content"]["application/json"]

const start = async (
  init: Start["parameters"] & { readonly body: Start["requestBody"]["content"]["application/json"] }
): Promise<Started> => {
  const response = await fetch("${prefix}/sign-in/start", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(init.body)
  })
  return (await response.json()) as Started
}

// No header to give: the browser sends Origin and Sec-Fetch-Site itself.
export const handle: Promise<string> = start({ body: {} }).then((started) => started.handle)

// The mount answers no 408 (buddy serve's own server does).
type Answers = keyof paths["${prefix}"]["get"]["responses"]
export const answers: Exactly<Answers, 200 | 404 | 500> = true
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
`

/** tsc as a Launchpad runs it, with the libraries' own declarations checked too. */
const strictLibs = {
  lib: ["ES2023", "DOM"],
  module: "NodeNext",
  moduleResolution: "NodeNext",
  skipLibCheck: false
}

export interface MergedDocument {
  /** What tsc said of the Launchpad's module: "clean", or its errors. */
  readonly compiled: string
  readonly merged?: Record<string, unknown>
  readonly transformed?: Record<string, unknown>
}

/** Compiles and runs the Launchpad's module in `dir`: what tsc said, and the documents it printed. */
export const mergedDocument = async (dir: string): Promise<MergedDocument> => {
  writeFileSync(path.join(dir, "openapi-merge.ts"), mergeSource)
  const compiled = await typeCheck(
    dir,
    ["openapi-merge.ts"],
    { ...strictLibs, noEmit: false, outDir: "out-openapi" },
    "tsconfig.openapi.json"
  )
  if (compiled !== "clean") return { compiled }
  const { stdout } = await inDir(dir)(process.execPath, [path.join("out-openapi", "openapi-merge.js")])
  return { compiled, ...JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Omit<MergedDocument, "compiled"> }
}

/** `document` written to `dir` as the file a Launchpad publishes; its path. */
export const published = (dir: string, document: Record<string, unknown>) => {
  const file = path.join(dir, "openapi.json")
  writeFileSync(file, JSON.stringify(document))
  return file
}

/** The published document validated as OpenAPI by @readme/openapi-parser. */
export const validated = (file: string) => validate(file)

/** A client generated from the published document by openapi-typescript and a typed call on it, compiled in `dir`. */
export const generatedClient = async (dir: string, file: string) => {
  writeFileSync(path.join(dir, "buddy-api.ts"), astToString(await openapiTS(pathToFileURL(file))))
  writeFileSync(path.join(dir, "buddy-client.ts"), clientSource)
  return typeCheck(dir, ["buddy-api.ts", "buddy-client.ts"], strictLibs, "tsconfig.client.json")
}
