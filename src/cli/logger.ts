import * as Cause from "effect/Cause"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { writeSync } from "./io.js"

const textOf = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts.map((part) => (typeof part === "string" ? part : part instanceof Error ? part.message : JSON.stringify(part))).join(" ")
}

/**
 * The CLI's logs: one line each on stderr, `custom-agent: warning: ...`, so they never mix
 * with an answer or `--json` events on stdout. Debug lines stay quiet.
 */
export const cliLogger = Logger.make<unknown, void>(({ logLevel, message, cause }) => {
  if (LogLevel.lessThan(logLevel, LogLevel.Info)) return
  const level = logLevel.label.toLowerCase()
  const why = Cause.isEmpty(cause) ? "" : ` (${Cause.pretty(cause).split("\n")[0] ?? ""})`
  writeSync(process.stderr, `custom-agent: ${level}: ${textOf(message)}${why}\n`)
})

export const cliLoggerLayer = Logger.replace(Logger.defaultLogger, cliLogger)
