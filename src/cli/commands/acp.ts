import { Command } from "@effect/cli"
import * as Effect from "effect/Effect"
import { agentSetup, noteEchoDefault } from "../agent-setup.js"
import * as shared from "../options.js"

/** The protocol code and its SDK load only when this command runs, keeping the other commands' start-up short. */
export const acpCommand = Command.make(
  "acp",
  { ...shared.agent, sessionIdle: shared.sessionIdle },
  (args) =>
    Effect.gen(function* () {
      const { config, choice } = yield* agentSetup(args)
      yield* noteEchoDefault(choice)
      const acp = yield* Effect.promise(() => import("../../acp/run.js"))
      return yield* acp.runAcp({
        ...config,
        engine: { sessionIdleMs: args.sessionIdle * 1000 }
      })
    })
).pipe(Command.withDescription("Run as an Agent Client Protocol agent on stdin/stdout, for Zed and other editors"))
