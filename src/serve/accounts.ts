// Local accounts and groups by name and number, for `buddy serve`'s words (naming the owner of a
// path it refuses) and its `socketGroup` (C6 "Who may reach it"). Node has no getpwuid or
// getgrnam, so names come from /etc/passwd and /etc/group, read once at start: a group only a
// directory service knows (LDAP, sssd) is given by its number (docs/decisions.md D22, D40).
import { Effect, Option } from "effect"
import * as fsp from "node:fs/promises"

export const passwdFile = "/etc/passwd"
export const groupFile = "/etc/group"

/** uid → name, and group name → gid, as the files list them. */
export interface Accounts {
  /** `www-data (uid 33)`, or `uid 33` for a uid no name is listed for. */
  readonly describe: (uid: number) => string
  readonly gidOf: (group: string) => Option.Option<number>
}

/** `name:password:number:…` lines as [name, number]; anything else (comments, NIS `+` lines) is passed over. */
const entriesOf = (text: string): ReadonlyArray<readonly [string, number]> =>
  text.split("\n").flatMap((line) => {
    const fields = line.split(":")
    // Stryker disable next-line StringLiteral: split always gives a first field; a missing third field is passed over whatever stands for it, as a field without digits is
    const [name = "", , number = ""] = fields
    return name !== "" && /^[0-9]+$/.test(number) ? [[name, Number(number)] as const] : []
  })

export const parseAccounts = (passwd: string, group: string): Accounts => {
  // The first name listed for a uid is its name, as getpwuid answers.
  const names = new Map([...entriesOf(passwd)].reverse().map(([name, uid]) => [uid, name] as const))
  const groups = new Map(entriesOf(group))
  return {
    describe: (uid) => {
      const name = names.get(uid)
      return name === undefined ? `uid ${uid}` : `${name} (uid ${uid})`
    },
    gidOf: (name) => Option.fromNullable(groups.get(name))
  }
}

/** A file's text, or none (nothing is then known by name). */
const readOrEmpty = (file: string) =>
  Effect.orElseSucceed(
    Effect.tryPromise(() => fsp.readFile(file, "utf8")),
    // Stryker disable next-line StringLiteral: a text with no line of fields names nobody, whatever it says
    () => ""
  )

export const readAccounts = (files = { passwd: passwdFile, group: groupFile }): Effect.Effect<Accounts> =>
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: read at once only to start sooner; one after the other they give the same
  Effect.zipWith(readOrEmpty(files.passwd), readOrEmpty(files.group), parseAccounts, { concurrent: true })
