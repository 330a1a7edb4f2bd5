// A member named twice in one JSON object (C8: "a duplicate key by its name"). JSON.parse keeps the
// last silently (RFC 8259 §4 leaves it open), so a config with two "launchpadOrigin" would be served
// with whichever the editor put last: refused instead. Run only on text JSON.parse accepted, so the
// scan needs to know strings, objects and arrays, and nothing of JSON's other syntax.
import { Option } from "effect"

export interface DuplicateMember {
  /** The member's name, decoded (escapes resolved), as JSON.parse would key it. */
  readonly name: string
  /** Where its second occurrence begins: the offset of its opening quote. */
  readonly offset: number
}

/** The end of the string whose opening quote is at `start`: the offset just past its closing quote. */
const stringEnd = (text: string, start: number): number => {
  let at = start + 1
  while (text[at] !== "\"") at += text[at] === "\\" ? 2 : 1
  return at + 1
}

/** The first member named a second time in the same object, in valid JSON `text`, if any. */
export const firstDuplicate = (text: string): Option.Option<DuplicateMember> => {
  // One entry per open container: the names seen so far for an object, none for an array.
  // Stryker disable next-line ArrayDeclaration: the stack's bottom is never read as names: valid JSON's top level is one value, with no `,` before a string
  const open: Array<Set<string> | undefined> = []
  // Whether the next string follows `{` or `,`: a member's name if the innermost container is an object.
  // Stryker disable next-line BooleanLiteral: a string at the top level has no object to be a name in
  let nameNext = false
  // Stryker disable next-line EqualityOperator: a step past the end reads no character and ends
  for (let at = 0; at < text.length;) {
    const char = text[at]
    if (char === "\"") {
      const end = stringEnd(text, at)
      const names = open.at(-1)
      if (nameNext && names !== undefined) {
        const name = JSON.parse(text.slice(at, end)) as string
        if (names.has(name)) return Option.some({ name, offset: at })
        names.add(name)
      }
      nameNext = false
      at = end
      continue
    }
    if (char === "{") {
      open.push(new Set())
      nameNext = true
    } else if (char === "[") {
      // After `:`, `[` or an array's `,`: no name was next, and none is.
      open.push(undefined)
    } else if (char === "}" || char === "]") {
      open.pop()
    } else if (char === ",") {
      nameNext = true
    }
    at++
  }
  return Option.none()
}
