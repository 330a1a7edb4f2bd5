// "Did you mean": the names near what was typed, for the command line's words (src/cli) and the
// config file's fields (src/serve), which must suggest alike.
import { Array as Arr } from "effect"

/** Levenshtein's edit distance: insertions, deletions and substitutions, one each. */
export const distance = (a: string, b: string): number => {
  const row = Arr.makeBy(b.length + 1, (j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}

/** The names within two edits of what was typed, or that start with it (dashes aside), as cobra suggests. */
export const nearest = (typed: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const lower = typed.toLowerCase()
  const bare = lower.replace(/^-+/, "")
  return names.filter((candidate) =>
    distance(lower, candidate.toLowerCase()) <= 2 ||
    (bare.length > 0 && candidate.toLowerCase().replace(/^-+/, "").startsWith(bare))
  )
}
