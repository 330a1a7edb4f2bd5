// Bytes from a peer become text only as strict UTF-8: a malformed sequence is refused rather than
// replaced, and a byte-order mark is kept (so it fails JSON instead of being silently dropped).
import { Either } from "effect"

export const decodeUtf8 = (bytes: Uint8Array): Either.Either<string, unknown> =>
  Either.try(() => new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes))
