// Local accounts and groups by name and number, for `buddy serve`'s words (naming the owner of a
// path it refuses), its `socketGroup` (C6 "Who may reach it") and whom that group admits. Node has
// no getpwuid or getgrnam, so names come from /etc/passwd and /etc/group, read once at start: a
// group only a directory service knows (LDAP, sssd) is given by its number (docs/decisions.md D22,
// D40), and its members are then unknown here.
import { Array as Arr, Effect, Option } from "effect"
import * as fsp from "node:fs/promises"

export const passwdFile = "/etc/passwd"
export const groupFile = "/etc/group"

/** uid → name, group name ↔ gid, and who a group admits, as the files list them. */
export interface Accounts {
  /** `www-data (uid 33)`, or `uid 33` for a uid no name is listed for. */
  readonly describe: (uid: number) => string
  /** The account's name, or `uid N` where none is listed: a word a command can take (`sudo -u`). */
  readonly nameOf: (uid: number) => string
  readonly gidOf: (group: string) => Option.Option<number>
  readonly groupName: (gid: number) => Option.Option<string>
  /**
   * The accounts a group lets through the socket's modes: its listed members and every account
   * whose primary group it is, by name, sorted, each once.
   */
  readonly admitted: (gid: number) => ReadonlyArray<string>
}

interface Entry {
  readonly name: string
  readonly number: number
  /** passwd: the primary gid's field; group: the member list's. */
  readonly fourth: string
}

/** `name:password:number:fourth:…` lines; anything else (comments, NIS `+` lines) is passed over. */
const entriesOf = (text: string): ReadonlyArray<Entry> =>
  Arr.filterMap(text.split("\n"), (line) => {
    // Stryker disable next-line StringLiteral: split always gives a first field; a missing third field is passed over whatever stands for it, as a field without digits is
    const [name = "", , number = "", fourth = ""] = line.split(":")
    return name !== "" && /^[0-9]+$/.test(number)
      ? Option.some({ name, number: Number(number), fourth })
      : Option.none()
  })

export const parseAccounts = (passwd: string, group: string): Accounts => {
  const users = entriesOf(passwd)
  const groups = entriesOf(group)
  // The first name listed for a number is its name, as getpwuid and getgrgid answer.
  const firstNames = (entries: ReadonlyArray<Entry>) =>
    new Map(entries.toReversed().map(({ name, number }) => [number, name] as const))
  const userNames = firstNames(users)
  const groupNames = firstNames(groups)
  const gids = new Map(groups.map(({ name, number }) => [name, number] as const))
  return {
    describe: (uid) =>
      Option.match(Option.fromNullable(userNames.get(uid)), {
        onNone: () => `uid ${uid}`,
        onSome: (name) => `${name} (uid ${uid})`
      }),
    nameOf: (uid) => userNames.get(uid) ?? `uid ${uid}`,
    gidOf: (name) => Option.fromNullable(gids.get(name)),
    groupName: (gid) => Option.fromNullable(groupNames.get(gid)),
    admitted: (gid) => {
      const members = groups.filter(({ number }) => number === gid).flatMap(({ fourth }) => fourth.split(","))
      const primary = users.filter(({ fourth }) => fourth === String(gid)).map(({ name }) => name)
      return [...new Set([...members, ...primary].map((name) => name.trim()).filter((name) => name !== ""))].toSorted()
    }
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
