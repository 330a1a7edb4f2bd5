// docs/quality.md is written by the long runs (campaign, soak, chaos): each owns one section between
// `<!-- name:start -->` and `<!-- name:end -->` and replaces only that, so the runs never clobber each other.
import { promises as fsp } from "node:fs"

const file = new URL("../../docs/quality.md", import.meta.url)

/** Puts `lines` (without markers) in place of the section `name`, or after the document's end. */
export const writeQualitySection = async (name: string, lines: ReadonlyArray<string>): Promise<string> => {
  const start = `<!-- ${name}:start -->`
  const end = `<!-- ${name}:end -->`
  const section = [start, ...lines, end].join("\n")
  const doc = await fsp.readFile(file, "utf8").catch(() => "# Quality\n")
  const from = doc.indexOf(start)
  const to = doc.indexOf(end)
  await fsp.writeFile(
    file,
    from >= 0 && to > from
      ? `${doc.slice(0, from)}${section}${doc.slice(to + end.length)}`
      : `${doc.trimEnd()}\n\n${section}\n`
  )
  return section
}
