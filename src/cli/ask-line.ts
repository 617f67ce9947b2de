import * as Effect from "effect/Effect"
import { type Printable, terminalString } from "./terminal-text.js"

/** Reads one line from a terminal, after asking `text` (sanitized: readline writes it as given); closed with the effect (or its interruption). */
export const askLine = (input: NodeJS.ReadableStream, output: NodeJS.WritableStream, text: Printable): Effect.Effect<string> =>
  Effect.acquireUseRelease(
    Effect.promise(() => import("node:readline/promises")).pipe(Effect.map((readline) => readline.createInterface({ input, output }))),
    (rl) => Effect.promise((signal) => rl.question(terminalString(text), { signal })),
    (rl) => Effect.sync(() => rl.close())
  )

/** A yes: `y` or `yes`, any case. Anything else (an empty line too) is no. */
export const isYes = (answer: string) => /^y(es)?$/i.test(answer.trim())
