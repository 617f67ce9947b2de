import * as Effect from "effect/Effect"
import { USAGE_EXIT_CODE } from "../errors.js"
import { stderr } from "../io.js"
import type { InteractiveArgs } from "./options.js"

/** The one line for a program started with no terminal to draw on (a pipe, a CI job). */
export const needsTerminal =
  'custom-agent: the interactive session needs a terminal (stdin and stdout); for one turn without one: custom-agent run "<prompt>"\n'

/**
 * `custom-agent` with no command: the interactive session, on a terminal only. The session's
 * code (the terminal UI, the host or the RPC client) loads only then, so other commands start
 * as fast as before.
 */
export const interactiveSession = (args: InteractiveArgs): Effect.Effect<void, unknown> =>
  Effect.suspend(() => {
    if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
      return Effect.zipRight(
        stderr(needsTerminal),
        Effect.sync(() => {
          process.exitCode = USAGE_EXIT_CODE
        })
      )
    }
    return Effect.flatMap(
      Effect.promise(() => import("./start.js")),
      (start) => start.startInteractive(args)
    )
  })
