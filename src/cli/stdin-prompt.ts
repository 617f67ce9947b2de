import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { messageOf } from "../domain/cause-message.js"
import { CliError, USAGE_EXIT_CODE } from "./errors.js"

/** The most a prompt on stdin may hold: far above any typed or piped prompt, and never a whole disk read into memory. */
export const STDIN_PROMPT_MAX_BYTES = 1024 * 1024

const usage = (message: string) => new CliError({ message, exitCode: USAGE_EXIT_CODE })

/** All of `input` as text, or none once it passed `maxBytes` (then it is not read further). */
const readAll = (input: NodeJS.ReadableStream, maxBytes: number): Effect.Effect<Option.Option<string>, CliError> =>
  Effect.async<Option.Option<string>, CliError>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      input.off("data", onData)
      input.off("end", onEnd)
      input.off("error", onError)
      input.pause()
    }
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk
      size += bytes.length
      if (size > maxBytes) {
        cleanup()
        return resume(Effect.succeed(Option.none()))
      }
      chunks.push(bytes)
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(Option.some(Buffer.concat(chunks).toString("utf8"))))
    }
    const onError = (error: unknown) => {
      cleanup()
      resume(Effect.fail(new CliError({ message: `cannot read the prompt from stdin: ${messageOf(error)}`, cause: error })))
    }
    input.on("data", onData)
    input.on("end", onEnd)
    input.on("error", onError)
    return Effect.sync(cleanup)
  })

/**
 * `run`'s prompt: the argument, or stdin when the argument is `-` or missing and stdin is not a
 * terminal (`echo "..." | custom-agent run`). A prompt on stdin is read whole, bounded; an
 * empty one is a usage error, as is no prompt at all on a terminal.
 */
export const promptFrom = Effect.fn("promptFrom")(function* (
  given: Option.Option<string>,
  input: NodeJS.ReadableStream & { readonly isTTY?: boolean } = process.stdin
) {
  if (Option.isSome(given) && given.value !== "-") return given.value
  if (Option.isNone(given) && input.isTTY === true) {
    return yield* usage('missing <prompt>: give it as an argument, or on stdin (echo "..." | custom-agent run, or run -)')
  }
  const read = yield* readAll(input, STDIN_PROMPT_MAX_BYTES)
  if (Option.isNone(read)) return yield* usage(`the prompt on stdin is larger than ${STDIN_PROMPT_MAX_BYTES / (1024 * 1024)} MiB`)
  const text = read.value.trim()
  if (text === "") return yield* usage("the prompt on stdin is empty: give it as an argument, or pipe some text in")
  return text
})
