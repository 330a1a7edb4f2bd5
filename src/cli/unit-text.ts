// The systemd units `buddy serve --print-unit` writes (issue 39): the user unit, the system unit and
// the system unit's .socket, with ExecStart= naming where buddy really is. Pure text: where buddy
// is, and which account and config a unit names, come from ./print-unit.ts. The package's copies in
// systemd/ are these texts for npm's prefix on Debian (/usr, so /usr/bin/buddy), and a test keeps
// them equal, so the comments here are written for both: a printed unit and the shipped copy.
import { Array as Arr, Option } from "effect"

export type UnitKind = "user" | "system" | "socket"
export const unitKinds: ReadonlyArray<UnitKind> = ["user", "system", "socket"]

export const unitKindNamed = (value: string): Option.Option<UnitKind> =>
  Arr.findFirst(unitKinds, (kind) => kind === value)

/** The account the system unit and its socket name when --account is not given. */
export const defaultAccount = "buddy"

/**
 * The group buddy shares the system unit's socket with, a proxy's account being its one member: a
 * group of its own, not the proxy's (www-data, caddy), which every site the proxy serves shares.
 */
export const proxyGroup = "buddy-proxy"

/** The config each service reads when --config is not given; `%E` is the user manager's $XDG_CONFIG_HOME. */
export const defaultConfig = { user: "%E/buddy/serve.json", system: "/etc/buddy/serve.json" } as const

/**
 * SIGHUP (129), SIGINT (130) and SIGTERM (143): buddy's own clean stops (./stop.ts). 129 is one of
 * them since a closed terminal is a stop buddy asked for nothing about; without it, a SIGHUP would
 * count as a failure and Restart=on-failure would start buddy again.
 */
export const cleanStops: ReadonlyArray<number> = [129, 130, 143]

/** What a unit names: ExecStart's program (the bin, or node and the bin), the config, the home, the account. */
export interface UnitPlaces {
  /** Absolute paths, before `serve`. */
  readonly command: ReadonlyArray<string>
  /** An absolute path; absent, the unit's default. */
  readonly config: Option.Option<string>
  /** An absolute path for `--home`; absent, none is passed. */
  readonly home: Option.Option<string>
  /** User= and SocketUser= of the system unit and its socket; a name ./print-unit.ts checked. */
  readonly account: string
}

/** Whether `text` has a control character, which no unit line can carry as itself. */
export const hasControl = (text: string): boolean => [...text].some((c) => c < " " || c === "\u007f")

/**
 * One ExecStart= word for exactly `text`: systemd expands `%` (specifiers) in every word and `$`
 * (variables) in the arguments, not in the program (systemd-analyze verify looks for a program
 * named with `$$` as named), so `%` is doubled everywhere and `$` in an argument; a word with
 * anything but plain path characters is double-quoted, its `\` and `"` escaped. Control characters
 * are refused before (`hasControl`).
 */
export const execWord = (text: string, program = false): string => {
  const specifiers = text.replaceAll("%", "%%")
  const literal = program ? specifiers : specifiers.replaceAll("$", () => "$$")
  return /^[\w@%$+=:,./-]+$/.test(literal) ? literal : `"${literal.replaceAll("\\", "\\\\").replaceAll("\"", "\\\"")}"`
}

const execStart = (places: UnitPlaces, kind: "user" | "system"): string =>
  [
    "ExecStart=" + [...places.command, "serve"].map((word, index) => execWord(word, index === 0)).join(" "),
    "--config",
    Option.match(places.config, { onNone: () => defaultConfig[kind], onSome: execWord }),
    ...Option.match(places.home, { onNone: () => [], onSome: (home) => ["--home", execWord(home)] })
  ].join(" ")

/** The lines that say how the unit is printed and installed: `options` are its flags, `target` where it goes. */
const printed = (kind: UnitKind, options: string, target: string) => [
  ...(kind === "socket"
    ? [
      "# Printed by buddy itself, as its service is, with the account given (the package's copy in",
      "# systemd/ has the default):"
    ]
    : [
      "# Printed by buddy itself, naming where it is (the package's copy in systemd/ names /usr/bin/buddy,",
      "# npm's prefix on Debian: print your own rather than copy it):"
    ]),
  ...(kind === "user" ? ["#   mkdir -p ~/.config/systemd/user"] : []),
  `#   buddy serve --print-unit ${kind}${options} > ${target}`
]

const stops = [
  "Restart=on-failure",
  "# SIGHUP (129), SIGINT (130) and SIGTERM (143) are buddy's own clean stops; nothing is cancelled on",
  "# Hermes. SIGHUP stops buddy, it does not reload it (no ExecReload=): a changed config takes a restart.",
  `SuccessExitStatus=${cleanStops.join(" ")}`
]

const user = (places: UnitPlaces): ReadonlyArray<string> => [
  "# buddy serve for one account, as a user unit (docs/operator-guide.md, \"As a service\").",
  ...printed("user", " [--config FILE]", "~/.config/systemd/user/buddy.service"),
  "#   systemctl --user daemon-reload && systemctl --user enable --now buddy",
  "#   loginctl enable-linger \"$USER\"    # to keep it running without a login session",
  "# It runs as the account that runs Hermes. Its socket is %t/buddy/serve.sock",
  "# ($XDG_RUNTIME_DIR/buddy/serve.sock, which systemd sets for the account), owner-only: for a",
  "# Launchpad or a proxy of this account. A proxy that runs as its own account (nginx, Caddy) uses",
  "# the system unit, --print-unit system. Refusals are said on stderr: journalctl --user -u buddy",
  "[Unit]",
  "Description=buddy serve: Buddy's sign-in API on this account's socket",
  "After=hermes-gateway.service",
  "",
  "[Service]",
  "Type=exec",
  execStart(places, "user"),
  ...stops,
  "",
  "[Install]",
  "WantedBy=default.target"
]

const system = (places: UnitPlaces): ReadonlyArray<string> => [
  "# buddy serve for a reverse proxy that runs as its own account (docs/operator-guide.md, \"As a service\").",
  ...printed("system", " [--account NAME] [--config FILE]", "/etc/systemd/system/buddy.service"),
  "#   systemctl daemon-reload && systemctl enable --now buddy",
  `# User= is the account that runs Hermes (--account, default ${defaultAccount}). SupplementaryGroups= is`,
  `# ${proxyGroup}, a group of its own for the proxy's account alone (usermod -aG ${proxyGroup} www-data),`,
  "# the same group as \"socketGroup\" in the config file.",
  "# Its socket is $RUNTIME_DIRECTORY/serve.sock = /run/buddy/serve.sock: systemd makes /run/buddy",
  "# 0700 for User=, and buddy opens it to socketGroup (0710, the socket 0660), to no one else.",
  "# Refusals are said on stderr: journalctl -u buddy",
  "[Unit]",
  "Description=buddy serve: Buddy's sign-in API for the Launchpad's reverse proxy",
  "After=network.target",
  "",
  "[Service]",
  "Type=exec",
  `User=${places.account}`,
  `SupplementaryGroups=${proxyGroup}`,
  "RuntimeDirectory=buddy",
  "RuntimeDirectoryMode=0700",
  execStart(places, "system"),
  ...stops,
  "NoNewPrivileges=yes",
  "",
  "[Install]",
  "WantedBy=multi-user.target"
]

const socket = (places: UnitPlaces): ReadonlyArray<string> => [
  "# Socket activation for the system unit, buddy.service (docs/operator-guide.md, \"As a service\"):",
  "# systemd holds /run/buddy/serve.sock and starts buddy serve on the first connection.",
  ...printed("socket", " [--account NAME]", "/etc/systemd/system/buddy.socket"),
  "#   mkdir -p /etc/systemd/system/buddy.service.d",
  "#   cp \"$(npm root -g)/@lazurio/buddy/systemd/system/buddy.service.d/socket.conf\" /etc/systemd/system/buddy.service.d/",
  "#   systemctl daemon-reload && systemctl enable --now buddy.socket",
  `# SocketUser= is buddy's account (User= in buddy.service), SocketGroup= ${proxyGroup}, the proxy's group`,
  "# (socketGroup in the config file); buddy checks both, and the mode, before it serves.",
  "[Unit]",
  "Description=buddy serve's socket for the Launchpad's reverse proxy",
  "",
  "[Socket]",
  "ListenStream=/run/buddy/serve.sock",
  `SocketUser=${places.account}`,
  `SocketGroup=${proxyGroup}`,
  "SocketMode=0660",
  "",
  "[Install]",
  "WantedBy=sockets.target"
]

/** The unit's lines, without a final newline: `unitText` is the file. */
export const unitLines = (kind: UnitKind, places: UnitPlaces): ReadonlyArray<string> =>
  kind === "user" ? user(places) : kind === "system" ? system(places) : socket(places)

/** The unit file's text. */
export const unitText = (kind: UnitKind, places: UnitPlaces): string => `${unitLines(kind, places).join("\n")}\n`
