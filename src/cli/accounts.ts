// Local accounts by name and uid, for `buddy serve`'s `allowedAccounts` and for naming a refused
// peer in words (C6 "Who may reach it"). Node has no getpwnam, so names come from /etc/passwd,
// read once at start: an account only a directory service knows (LDAP, sssd) is given by its uid
// (docs/decisions.md D22).
import { Array as Arr, Effect, Either, Option } from "effect"
import * as fsp from "node:fs/promises"

export const passwdFile = "/etc/passwd"

/** name → uid and uid → name, as the accounts file lists them. */
export interface Accounts {
  readonly uidOf: (name: string) => Option.Option<number>
  /** `www-data (uid 33)`, or `uid 33` for a uid no name is listed for. */
  readonly describe: (uid: number) => string
}

/** `name:password:uid:gid:…` lines; anything else (comments, NIS `+` lines) is passed over. */
export const parseAccounts = (text: string): Accounts => {
  const entries = text.split("\n").flatMap((line) => {
    const [name, , uid] = line.split(":")
    return name !== undefined && name !== "" && uid !== undefined && /^[0-9]+$/.test(uid)
      ? [[name, Number(uid)] as const]
      : []
  })
  const byName = new Map(entries)
  // The first name listed for a uid is its name, as getpwuid answers.
  const byUid = new Map([...entries].reverse().map(([name, uid]) => [uid, name] as const))
  return {
    uidOf: (name) => Option.fromNullable(byName.get(name)),
    describe: (uid) => {
      const name = byUid.get(uid)
      return name === undefined ? `uid ${uid}` : `${name} (uid ${uid})`
    }
  }
}

/** The accounts file, or none known (every uid is then described by its number). */
export const readAccounts = (file = passwdFile): Effect.Effect<Accounts> =>
  Effect.tryPromise(() => fsp.readFile(file, "utf8")).pipe(
    Effect.orElseSucceed(() => ""),
    Effect.map(parseAccounts)
  )

/** `allowedAccounts` as uids, or the names that no account has. */
export const resolveAccounts = (
  accounts: Accounts,
  allowed: ReadonlyArray<string | number>
): Either.Either<ReadonlyArray<number>, ReadonlyArray<string>> => {
  const [unknown, uids] = Arr.partitionMap(allowed, (entry) =>
    typeof entry === "number"
      ? Either.right(entry)
      : Option.match(accounts.uidOf(entry), { onNone: () => Either.left(entry), onSome: Either.right }))
  return unknown.length > 0 ? Either.left(unknown) : Either.right(Arr.dedupe(uids))
}
