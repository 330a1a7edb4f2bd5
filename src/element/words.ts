// The card's words (C10), in the two locales a status answer names: every state, ending and reason of
// the one table, each typed as a record over its closed values, so a value the table gains without
// words stops the compile (and test/element/words.test.ts holds them to the Schemas at run time). The
// closed values themselves are never translated: they travel in the card's events as they are.
import type {
  BlockedReason,
  BuddyState,
  DeniedReason,
  GatewayReason,
  Locale,
  PlainError,
  SignInEnding
} from "../client/answers.js"

export interface Words {
  readonly title: string
  /** Buddy's state; `unknown` is followed by its reason's words. */
  readonly buddy: Readonly<Record<BuddyState, string>>
  /** A sign-in held by another page or a terminal, which this page cannot follow. */
  readonly heldElsewhere: string
  readonly loading: string
  readonly start: string
  readonly starting: string
  readonly codeIntro: string
  readonly codeLabel: string
  readonly copy: string
  readonly copied: string
  /** The Clipboard API refused: the code is selected for the person to copy. */
  readonly copySelected: string
  readonly openPage: string
  /** Said after the link, for screen readers and as a tooltip: it opens a new tab. */
  readonly newTab: string
  readonly qrLabel: string
  readonly qrHint: string
  /** The live line while a sign-in waits for approval, with the minutes waited so far. */
  readonly waiting: (minutes: number) => string
  readonly cancel: string
  readonly cancelling: string
  readonly endings: Readonly<Record<SignInEnding, string>>
  readonly tryAgain: string
  readonly signOut: string
  readonly signOutQuestion: string
  readonly signOutConfirm: string
  readonly signOutKeep: string
  readonly signingOut: string
  readonly signedOut: string
  readonly checkAgain: string
  readonly blocked: Readonly<Record<BlockedReason, string>>
  readonly unavailable: Readonly<Record<GatewayReason, string>>
  readonly denied: Readonly<Record<DeniedReason, string>>
  readonly errors: Readonly<Record<PlainError, string>>
  /** The Launchpad's own sign-in has expired: its front door answered instead of buddy. */
  readonly frontDoor: string
  readonly networkFailed: string
  readonly unknownAnswer: string
}

/** Czech plural for a count of at least one: 1 → one, 2–4 → few, else many (as 5 and 21 minutes read). */
const czechPlural = (count: number, one: string, few: string, many: string) =>
  count === 1 ? one : count <= 4 ? few : many

export const words: Readonly<Record<Locale, Words>> = {
  en: {
    title: "Buddy",
    buddy: {
      works: "Buddy is signed in to ChatGPT and works.",
      waits: "Buddy is waiting to be signed in to ChatGPT.",
      unknown: "Buddy's state is unknown."
    },
    heldElsewhere: "A sign-in is in progress in another window or a terminal.",
    loading: "Reading Buddy's state…",
    start: "Sign Buddy in to ChatGPT",
    starting: "Starting the sign-in…",
    codeIntro: "Open OpenAI's page, sign in to ChatGPT there and enter this code:",
    codeLabel: "Your code",
    copy: "Copy the code",
    copied: "The code is copied.",
    copySelected: "The code is selected: copy it with Ctrl+C (⌘C on a Mac).",
    openPage: "Open OpenAI's page",
    newTab: "(opens in a new tab)",
    qrLabel: "QR code of OpenAI's page",
    qrHint: "Or scan it with your phone and approve there.",
    waiting: (minutes) =>
      minutes < 1
        ? "Waiting for you to approve it…"
        : `Waiting for you to approve it, for ${minutes} ${minutes === 1 ? "minute" : "minutes"} now…`,
    cancel: "Cancel the sign-in",
    cancelling: "Cancelling…",
    endings: {
      "signed-in": "Buddy is signed in to ChatGPT.",
      expired: "The code expired before it was approved.",
      refused: "The sign-in was refused.",
      lost: "Hermes no longer knows this sign-in; it did not finish.",
      failed: "The sign-in failed on OpenAI's side.",
      cancelled: "The sign-in was cancelled."
    },
    tryAgain: "Try again",
    signOut: "Sign Buddy out",
    signOutQuestion: "Sign Buddy out of ChatGPT? He stops working until he is signed in again.",
    signOutConfirm: "Yes, sign him out",
    signOutKeep: "No, keep him signed in",
    signingOut: "Signing Buddy out…",
    signedOut: "Buddy is signed out of ChatGPT.",
    checkAgain: "Check again",
    blocked: {
      "hermes-outdated":
        "Buddy needs an update before he can be signed in here: this Hermes cannot end a sign-in safely.",
      "sign-in-running": "Another sign-in is in progress, in another window or a terminal. Try again once it ends.",
      "sign-in-unknown": "This sign-in is no longer this page's: it ended, or another one replaced it.",
      "lock-unavailable": "Buddy's sign-in lock cannot be taken. Whoever runs buddy has to fix its setup."
    },
    unavailable: {
      "not-running": "Hermes, which runs Buddy, is not running.",
      "not-ready": "Hermes is starting or stopping. Try again in a moment.",
      incompatible: "This Hermes speaks another protocol than buddy. One of them needs an update.",
      "unsafe-home": "Hermes's home is open to other accounts, so buddy will not use it.",
      "unsafe-socket": "Hermes's control socket is open to other accounts, so buddy will not use it.",
      "unsafe-pointer": "The pointer to Hermes's socket is not safe, so buddy will not use it.",
      "foreign-origin": "Hermes named an address that is not on this machine, so buddy will not use it.",
      timeout: "Hermes did not answer in time.",
      "too-large": "Hermes's answer was larger than buddy reads.",
      malformed: "Hermes's answer could not be read.",
      refused: "Hermes refused the request.",
      "http-error": "Hermes answered with an error.",
      lost: "The connection to Hermes was lost."
    },
    denied: {
      "origin-mismatch": "This page may not change Buddy: it is not the Launchpad's own page.",
      "host-mismatch": "This address may not reach Buddy."
    },
    errors: {
      "buddy-absent": "Buddy is not set up on this Launchpad.",
      "not-found": "The Launchpad does not know this request.",
      "method-not-allowed": "The Launchpad does not take this request.",
      "invalid-content-type": "The request was not sent as JSON.",
      "body-too-large": "The request was too large.",
      "invalid-request": "The request was not understood.",
      "invalid-handle": "The sign-in's handle was not understood.",
      "operation-failed": "Something failed inside buddy. Try again.",
      "expectation-failed": "The request asked for something buddy does not do.",
      "request-timeout": "The request did not arrive in time.",
      "headers-too-large": "The request's headers were too large."
    },
    frontDoor: "Your Launchpad sign-in has expired. Sign in to the Launchpad again, then reload this page.",
    networkFailed: "The Launchpad could not be reached. Check your connection and try again.",
    unknownAnswer: "The Launchpad answered something this card does not know."
  },
  cs: {
    title: "Buddy",
    buddy: {
      works: "Buddy je přihlášený do ChatGPT a funguje.",
      waits: "Buddy čeká na přihlášení do ChatGPT.",
      unknown: "Buddyho stav není známý."
    },
    heldElsewhere: "Přihlašování právě probíhá v jiném okně nebo v terminálu.",
    loading: "Zjišťuji Buddyho stav…",
    start: "Přihlásit Buddyho do ChatGPT",
    starting: "Zahajuji přihlášení…",
    codeIntro: "Otevřete stránku OpenAI, přihlaste se tam do ChatGPT a zadejte tento kód:",
    codeLabel: "Váš kód",
    copy: "Zkopírovat kód",
    copied: "Kód je zkopírovaný.",
    copySelected: "Kód je označený: zkopírujte ho klávesami Ctrl+C (na Macu ⌘C).",
    openPage: "Otevřít stránku OpenAI",
    newTab: "(otevře se na nové kartě)",
    qrLabel: "QR kód stránky OpenAI",
    qrHint: "Nebo ho naskenujte telefonem a schvalte přihlášení tam.",
    waiting: (minutes) =>
      minutes < 1
        ? "Čekám, až přihlášení schválíte…"
        : `Čekám, až přihlášení schválíte, už ${minutes} ${czechPlural(minutes, "minutu", "minuty", "minut")}…`,
    cancel: "Zrušit přihlášení",
    cancelling: "Ruším…",
    endings: {
      "signed-in": "Buddy je přihlášený do ChatGPT.",
      expired: "Platnost kódu vypršela dřív, než jste ho schválili.",
      refused: "Přihlášení bylo odmítnuto.",
      lost: "Hermes o tomto přihlášení už neví; nedokončilo se.",
      failed: "Přihlášení na straně OpenAI selhalo.",
      cancelled: "Přihlášení bylo zrušeno."
    },
    tryAgain: "Zkusit znovu",
    signOut: "Odhlásit Buddyho",
    signOutQuestion: "Odhlásit Buddyho z ChatGPT? Do dalšího přihlášení nebude fungovat.",
    signOutConfirm: "Ano, odhlásit",
    signOutKeep: "Ne, nechat přihlášeného",
    signingOut: "Odhlašuji Buddyho…",
    signedOut: "Buddy je odhlášený z ChatGPT.",
    checkAgain: "Zkontrolovat znovu",
    blocked: {
      "hermes-outdated":
        "Buddy potřebuje aktualizaci, než ho tu půjde přihlásit: tento Hermes neumí přihlášení bezpečně ukončit.",
      "sign-in-running": "Jiné přihlašování právě probíhá, v jiném okně nebo v terminálu. Zkuste to znovu, až skončí.",
      "sign-in-unknown": "Toto přihlášení už nepatří této stránce: skončilo, nebo ho nahradilo jiné.",
      "lock-unavailable": "Zámek přihlášení nejde získat. Nastavení buddyho musí opravit ten, kdo ho spravuje."
    },
    unavailable: {
      "not-running": "Hermes, který Buddyho provozuje, neběží.",
      "not-ready": "Hermes se spouští nebo zastavuje. Zkuste to za chvíli.",
      incompatible: "Tento Hermes mluví jiným protokolem než buddy. Jeden z nich potřebuje aktualizaci.",
      "unsafe-home": "Domovská složka Hermes je přístupná jiným účtům, a proto ji buddy nepoužije.",
      "unsafe-socket": "Řídicí socket Hermes je přístupný jiným účtům, a proto ho buddy nepoužije.",
      "unsafe-pointer": "Odkaz na socket Hermes není bezpečný, a proto ho buddy nepoužije.",
      "foreign-origin": "Hermes uvedl adresu mimo tento počítač, a proto ji buddy nepoužije.",
      timeout: "Hermes neodpověděl včas.",
      "too-large": "Odpověď Hermes byla větší, než buddy přečte.",
      malformed: "Odpověď Hermes nešla přečíst.",
      refused: "Hermes požadavek odmítl.",
      "http-error": "Hermes odpověděl chybou.",
      lost: "Spojení s Hermes se přerušilo."
    },
    denied: {
      "origin-mismatch": "Tato stránka nesmí Buddyho měnit: není to vlastní stránka Launchpadu.",
      "host-mismatch": "Z této adresy se k Buddymu nelze dostat."
    },
    errors: {
      "buddy-absent": "Buddy v tomto Launchpadu není nastavený.",
      "not-found": "Launchpad tento požadavek nezná.",
      "method-not-allowed": "Launchpad tento požadavek nepřijímá.",
      "invalid-content-type": "Požadavek nebyl odeslán jako JSON.",
      "body-too-large": "Požadavek byl příliš velký.",
      "invalid-request": "Požadavku nebylo rozumět.",
      "invalid-handle": "Označení přihlášení nebylo srozumitelné.",
      "operation-failed": "V buddym něco selhalo. Zkuste to znovu.",
      "expectation-failed": "Požadavek chtěl něco, co buddy nedělá.",
      "request-timeout": "Požadavek nedorazil včas.",
      "headers-too-large": "Hlavičky požadavku byly příliš velké."
    },
    frontDoor: "Vaše přihlášení do Launchpadu vypršelo. Přihlaste se do Launchpadu znovu a obnovte tuto stránku.",
    networkFailed: "Launchpad není dostupný. Zkontrolujte připojení a zkuste to znovu.",
    unknownAnswer: "Launchpad odpověděl něčím, čemu tato karta nerozumí."
  }
}
