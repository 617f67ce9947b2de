import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { createReadStream } from "node:fs"
import type { ToolResult } from "../../domain/tools.js"
import type { ToolContext } from "../../services/ToolRouter.js"
import { probeDisk } from "./disk-probe.js"
import { formatBytes } from "./format-bytes.js"
import { describeFsError } from "./fs-errors.js"
import { MovedError, openJudgedForRead } from "./judged-open.js"
import { boundedLines } from "./bounded-lines.js"
import { LineWindow, MAX_LINE_CHARS, splitLines } from "./line-window.js"
import { makeTool } from "./make-tool.js"
import { looksBinaryText } from "./text-sniff.js"
import { errorResult, okResult } from "./tool-results.js"
import { resolveWorkspacePath, type WorkspacePath } from "./workspace-paths.js"

export const READ_DEFAULT_LINES = 2000
export const READ_MAX_BYTES = 256 * 1024
/** Files above this size are streamed from disk line by line instead of loaded whole through FileAccess. */
const STREAM_ABOVE_BYTES = 4 * 1024 * 1024

const PositiveInt = Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1))

const ReadFileInput = Schema.Struct({
  path: Schema.String.annotations({ description: "The file to read: relative to the workspace root, or absolute." }),
  offset: Schema.optionalWith(PositiveInt.annotations({ description: "1-based number of the first line to read (default 1)." }), {
    exact: true
  }),
  limit: Schema.optionalWith(
    PositiveInt.annotations({ description: `How many lines to read (default ${READ_DEFAULT_LINES}).` }),
    { exact: true }
  )
})
type ReadFileInput = typeof ReadFileInput.Type

export const readFileTool = makeTool({
  name: "read_file",
  description:
    `Read a text file. Returns its lines numbered like \`cat -n\`. At most ${READ_DEFAULT_LINES} lines and ` +
    `${READ_MAX_BYTES / 1024} KiB come back per call; use offset and limit to read a large file in parts. ` +
    "Binary files are refused.",
  input: ReadFileInput,
  prepare: (input, ctx) =>
    Effect.map(resolveWorkspacePath(ctx.workspaceRoot, input.path), (target) => ({
      risk: "read" as const,
      summary: `read ${target.display}${describeRange(input)}`,
      paths: [target.absolute],
      outsideWorkspace: target.outsideWorkspace,
      execute: readFile(target, input, ctx)
    }))
})

const describeRange = (input: ReadFileInput): string => {
  if (input.offset === undefined && input.limit === undefined) return ""
  const first = input.offset ?? 1
  return input.limit === undefined ? ` from line ${first}` : ` lines ${first}-${first + input.limit - 1}`
}

const readFile = (target: WorkspacePath, input: ReadFileInput, ctx: ToolContext): Effect.Effect<ToolResult> =>
  Effect.gen(function* () {
    const window = new LineWindow(input.offset ?? 1, input.limit ?? READ_DEFAULT_LINES, READ_MAX_BYTES)
    const probe = yield* probeDisk(target.absolute)
    if (probe.kind === "directory") return errorResult(`${target.display} is a directory; use list_files to see what it holds`)
    if (probe.kind === "file" && probe.binary) return binaryRefusal(target, probe.size)
    if (probe.kind === "file" && probe.size > STREAM_ABOVE_BYTES) {
      const streamed = yield* streamLines(target.absolute, target.real, window).pipe(Effect.either)
      if (streamed._tag === "Left") return errorResult(streamed.left)
      return render(target, window, undefined)
    }
    const text = yield* ctx.files.readText(target.absolute, target.real).pipe(Effect.either)
    if (text._tag === "Left") return errorResult(text.left.message)
    if (looksBinaryText(text.right)) return binaryRefusal(target, Buffer.byteLength(text.right, "utf8"))
    const lines = splitLines(text.right)
    for (const line of lines) if (!window.push(line)) break
    return render(target, window, lines.length)
  })

const binaryRefusal = (target: WorkspacePath, size: number): ToolResult =>
  errorResult(`${target.display} is a binary file (${formatBytes(size)}); read_file only shows text files`)

/** Feeds the window from disk without holding the file in memory; stops reading once the window is full. */
const streamLines = (absolute: string, judged: string, window: LineWindow): Effect.Effect<void, string> =>
  Effect.tryPromise({
    try: async (signal) => {
      // From the descriptor checked to be the judged file (judged-open.ts); the stream closes it.
      const stream = createReadStream(absolute, { fd: openJudgedForRead(absolute, judged), encoding: "utf8", signal })
      try {
        for await (const line of boundedLines(stream, MAX_LINE_CHARS + 1)) if (!window.push(line.text, line.length)) break
      } finally {
        stream.destroy()
      }
    },
    catch: (error) => (error instanceof MovedError ? error.message : describeFsError("read", absolute, error))
  })

/** The numbered lines and, when the window did not reach the end, how to read on. */
const render = (target: WorkspacePath, window: LineWindow, total: number | undefined): ToolResult => {
  if (window.rows.length === 0) {
    if (window.seen === 0) return okResult(`${target.display} is empty`)
    return errorResult(`offset ${window.offset} is past the end of ${target.display} (${window.seen} lines)`)
  }
  if (window.stoppedBy === undefined) return okResult(window.rows.join("\n"))
  const range = `lines ${window.offset}-${window.lastLine}${total === undefined ? "" : ` of ${total}`}`
  const reason = window.stoppedBy === "bytes" ? `output is capped at ${READ_MAX_BYTES / 1024} KiB` : `limit of ${window.limit} lines`
  return okResult(
    `${window.rows.join("\n")}\n\n[Showing ${range} (${reason}). To read more, call read_file with offset=${window.lastLine + 1}.]`
  )
}
