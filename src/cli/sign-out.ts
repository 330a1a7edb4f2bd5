// `buddy sign-out`: removes Buddy's ChatGPT sign-in on Hermes (C4.8). A CLI process holds no
// sign-in of its own when it starts, so here the provider DELETE needs no contract.
import * as Command from "@effect/cli/Command"
import { Effect } from "effect"
import { SignIn } from "../services/SignIn.js"
import { refuse } from "./output.js"
import { commonOptions, withServices } from "./root.js"
import * as words from "./words.js"

export const signOut = Command.make(
  "sign-out",
  commonOptions,
  (options) =>
    withServices(options, (output) =>
      Effect.flatMap(SignIn, (signIn) => signIn.signOut).pipe(
        Effect.matchEffect({
          onFailure: (refusal) => refuse(output, refusal),
          onSuccess: () => output.answer({ kind: "sign-out", state: "signed-out" }, words.signedOut)
        })
      ))
).pipe(Command.withDescription("Sign Buddy out of ChatGPT."))
