import type { Stream as AcpStream } from "@agentclientprotocol/sdk/unstable"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { Console } from "node:console"
import { Writable } from "node:stream"
import { limitedNdJsonStream } from "./line-limit.js"

/** Stdin as a web stream of bytes, read as the consumer asks (backpressure kept). */
const stdinBytes = (): ReadableStream<Uint8Array> => {
  const chunks: AsyncIterator<unknown> = process.stdin[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next()
      if (next.done === true) return controller.close()
      const chunk = next.value
      controller.enqueue(chunk instanceof Uint8Array ? chunk : new TextEncoder().encode(String(chunk)))
    },
    async cancel() {
      await chunks.return?.()
    }
  })
}

/** The protocol over this process's stdin and stdout: one JSON-RPC message per line, each at most 32 MiB. */
export const stdioStream = (): AcpStream => limitedNdJsonStream(Writable.toWeb(process.stdout), stdinBytes())

/**
 * Stdout carries protocol messages only. For as long as the agent runs, `console` (which
 * libraries may write to) goes to stderr; restored on release.
 */
export const consoleToStderr = Effect.acquireRelease(
  Effect.sync(() => {
    const original = globalThis.console
    globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr })
    return original
  }),
  (original) =>
    Effect.sync(() => {
      globalThis.console = original
    })
)

/** Effect's logs as logfmt lines on stderr (the default logger writes to stdout). */
export const stderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
