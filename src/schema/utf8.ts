// Bytes from a peer become text only as strict UTF-8: a malformed sequence is refused rather than
// replaced, and a byte-order mark is kept (so it fails JSON instead of being silently dropped).
import { Either } from "effect"

// One decoder for every call: without `stream`, each decode starts afresh, and a fatal error resets it.
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

export const decodeUtf8 = (bytes: Uint8Array): Either.Either<string, unknown> => Either.try(() => strict.decode(bytes))
