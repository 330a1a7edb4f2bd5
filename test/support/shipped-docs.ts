// What a package reader meets in the shipped texts (issue 38 item 6, D55): every pointer to a file
// and every contract or decision id must lead somewhere inside the package, unless its paragraph says
// that it is in the repository, not in the package. The packed file list is the judge of "inside".
import * as path from "node:path"

/** One pointer a shipped text makes that the package cannot follow. */
export type Dangling = Readonly<{ readonly file: string; readonly pointer: string; readonly paragraph: string }>

/** The repository's own directories: a path into one of them is a pointer to be followed. */
const repositoryDirectories = "src|test|fixtures|scripts|bench|docs|examples|systemd|bin|dist|\\.ci|reports"

/**
 * A path as the texts write one: relative, into a directory of the repository (not `/usr/bin/…`,
 * `effect/dist/…`), or climbing out of where it is (`../shared/…`).
 */
const pathPattern = new RegExp(
  `(?<![\\w@$~%./-])((?:\\.\\.?/)*(?:${repositoryDirectories})/[\\w./*-]*|(?:\\.\\./)+[\\w.-][\\w./*-]*)`,
  "g"
)
/** A Markdown link's or image's target. */
const linkPattern = /\]\(([^)\s#]+)(?:#[^)]*)?\)/g
/** The contract's (C1…) and the decision record's (D1…) ids, sub-points (C4.5, D53.4) included. */
const idPattern = /\b([CD]\d+)(?:\.\d+)*\b/g
/** What a paragraph (or a section's heading) says to take its pointers and commands out of the package. */
export const inRepository = /in (?:the|buddy's) repository|the repository's|a clone of the repository|in a clone\b/i

/** Whether a shipped text: the package's documents, examples, units and executables (dist/ is built code). */
export const isShippedText = (file: string) =>
  !file.startsWith("dist/") && /\.(?:md|ts|js|service|socket|conf)$/.test(file)

/** One paragraph of a text, and whether it (or its Markdown section's heading) says it is the repository's. */
export type Passage = Readonly<{ readonly text: string; readonly marked: boolean }>

/**
 * A text's paragraphs: blocks between blank lines, each Markdown table row on its own. A Markdown
 * heading that says "in the repository" (or "the repository's") marks its whole section.
 */
export const passages = (text: string): ReadonlyArray<Passage> => {
  let section = false
  return text.split(/\n\s*\n/).flatMap((block) => {
    const heading = /^#+ (.*)$/m.exec(block)?.[1]
    if (heading !== undefined) section = inRepository.test(heading)
    const pieces = block.split("\n").some((line) => line.startsWith("|"))
      ? block.split("\n").filter((line) => line.trim() !== "")
      : [block]
    return pieces.map((piece) => ({ text: piece, marked: section || inRepository.test(piece) }))
  })
}

/**
 * The ids a shipped document defines: a Markdown heading or a list item that opens with the id in
 * bold (`## C6 …`, `- **C6** …`).
 */
export const definedIds = (texts: ReadonlyArray<string>) =>
  new Set(
    texts.flatMap((text) => [...text.matchAll(/^(?:#+ |- \*\*)([CD]\d+)\b/gm)].map((match) => match[1]!))
  )

/**
 * Every pointer in the shipped texts that leads outside the package: a path into the repository's
 * directories or a Markdown link that names no shipped file (or directory of shipped files), one that
 * climbs out of the package, and an id no shipped document defines. `shipped` is the packed file
 * list; `isShipped` may widen it (what the build puts in dist/ before a pack).
 */
export const danglingPointers = (
  shipped: ReadonlyArray<string>,
  read: (file: string) => string,
  isShipped: (file: string) => boolean = () => false
): ReadonlyArray<Dangling> => {
  const texts = shipped.filter(isShippedText)
  const defined = definedIds(texts.filter((file) => file.endsWith(".md")).map(read))
  const leadsIn = (from: string, pointer: string, fromRoot: boolean) => {
    const target = path.posix.normalize(
      path.posix.join(fromRoot && !pointer.startsWith(".") ? "" : path.posix.dirname(from), pointer)
    )
    if (target.startsWith("..")) return false
    const plain = target.replace(/[*].*$/, "")
    const directory = plain.endsWith("/") ? plain : `${plain}/`
    return shipped.some((file) => file === plain || file.startsWith(directory)) || isShipped(plain)
  }
  return texts.flatMap((file) =>
    passages(read(file)).flatMap(({ marked, text: paragraph }): ReadonlyArray<Dangling> => {
      if (marked) return []
      const pointers = [
        ...[...paragraph.matchAll(pathPattern)].map((match) => ({ pointer: match[1]!, fromRoot: true })),
        ...[...paragraph.matchAll(linkPattern)]
          .map((match) => ({ pointer: match[1]!, fromRoot: false }))
          .filter(({ pointer }) => !/^[a-z]+:/.test(pointer))
      ].map(({ fromRoot, pointer }) => ({ fromRoot, pointer: pointer.replace(/[.,:;]+$/, "") }))
      const outside = pointers.filter(({ fromRoot, pointer }) => !leadsIn(file, pointer, fromRoot))
      return [
        ...[...new Set(outside.map(({ pointer }) => pointer))].map((pointer) => ({ file, pointer, paragraph })),
        ...[...paragraph.matchAll(idPattern)].filter((match) => !defined.has(match[1]!)).map((match) => ({
          file,
          pointer: match[0],
          paragraph
        }))
      ]
    })
  )
}
