import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs/promises"
import type { ToolResult } from "../../domain/tools.js"
import { ToolInputError } from "../../services/ToolRouter.js"
import { describeFsError } from "./fs-errors.js"
import { makeTool } from "./make-tool.js"
import { makePathFilter, type PathFilter } from "./path-filter.js"
import { looksBinaryBytes, SNIFF_BYTES } from "./text-sniff.js"
import { errorResult, okResult } from "./tool-results.js"
import { newWalkStats, WALK_MAX_ENTRIES, walkFiles } from "./workspace-walk.js"
import { isWithin, relativePosix, resolveWorkspacePath, type WorkspacePath } from "./workspace-paths.js"
import { messageOf } from "../../domain/cause-message.js"
import { compileLinearRegex, type LinearRegex } from "../patterns/linear-regex.js"

export const GREP_DEFAULT_RESULTS = 100
export const GREP_MAX_RESULTS = 1000
/** Larger files are skipped: generated bundles and data files, not what a search is after. */
export const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024
/** Matching lines are cut to this many characters. */
export const GREP_MAX_LINE_CHARS = 300

const GrepInput = Schema.Struct({
  pattern: Schema.String.pipe(Schema.minLength(1)).annotations({
    description:
      "Regular expression to search for, matched against each line (RE2 syntax, as in ripgrep: no lookaround or backreferences)."
  }),
  path: Schema.optionalWith(
    Schema.String.annotations({ description: "File or directory to search: relative to the workspace root, or absolute (default: the root)." }),
    { exact: true }
  ),
  glob: Schema.optionalWith(
    Schema.String.annotations({ description: 'Only search files matching this glob, e.g. "**/*.ts" or "*.md".' }),
    { exact: true }
  ),
  ignore_case: Schema.optionalWith(Schema.Boolean.annotations({ description: "Match case-insensitively (default false)." }), {
    exact: true
  }),
  max_results: Schema.optionalWith(
    Schema.Number.pipe(Schema.int(), Schema.between(1, GREP_MAX_RESULTS)).annotations({
      description: `At most this many matching lines (default ${GREP_DEFAULT_RESULTS}).`
    }),
    { exact: true }
  )
})

export const grepTool = makeTool({
  name: "grep",
  description:
    "Search file contents with a regular expression. Returns matching lines as `path:line:text`, paths relative to " +
    "the workspace root. Skips .git, files excluded by .gitignore, binary files and files over " +
    `${GREP_MAX_FILE_BYTES / 1024 / 1024} MiB.`,
  input: GrepInput,
  prepare: (input, ctx) =>
    Effect.gen(function* () {
      const regex = yield* Effect.try({
        try: () => compileLinearRegex(input.pattern, { ignoreCase: input.ignore_case === true }),
        catch: (error) => new ToolInputError({ message: `pattern: not a usable regular expression: ${messageOf(error)}` })
      })
      const filter = yield* Effect.try({
        try: () => makePathFilter(input.glob),
        catch: (error) => new ToolInputError({ message: `glob: not a usable glob: ${messageOf(error)}` })
      })
      const target = yield* resolveWorkspacePath(ctx.workspaceRoot, input.path ?? ".")
      return {
        risk: "read" as const,
        summary: `grep /${input.pattern}/ in ${target.display}${input.glob === undefined ? "" : ` (${input.glob})`}`,
        paths: [target.absolute],
        outsideWorkspace: target.outsideWorkspace,
        execute: grep(ctx.workspaceRoot, target, regex, filter, input.max_results ?? GREP_DEFAULT_RESULTS)
      }
    })
})

const grep = (workspaceRoot: string, target: WorkspacePath, regex: LinearRegex, filter: PathFilter, maxResults: number): Effect.Effect<ToolResult> =>
  Effect.tryPromise({
    try: async (signal) => {
      const stats = newWalkStats()
      const hits: Array<string> = []
      let capped = false
      const skipped = { binary: 0, "too-large": 0, unreadable: 0 }
      walk: for await (const file of walkFiles(workspaceRoot, target.absolute, { signal, maxEntries: WALK_MAX_ENTRIES, stats })) {
        // A symlink could lead out of the workspace, into content nobody approved reading.
        if (file.symlink) continue
        const fromRoot = isWithin(workspaceRoot, file.absolute) ? relativePosix(workspaceRoot, file.absolute) : undefined
        if (!filter(relativePosix(target.absolute, file.absolute), fromRoot)) continue
        const content = await readSearchable(file.absolute, signal)
        if (content.kind !== "text") {
          skipped[content.kind]++
          continue
        }
        const lines = content.text.split("\n")
        for (const [i, raw] of lines.entries()) {
          const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
          if (!regex.test(line)) continue
          if (hits.length === maxResults) {
            capped = true
            break walk
          }
          hits.push(`${fromRoot ?? file.absolute}:${i + 1}:${clip(line)}`)
        }
      }
      const notes: Array<string> = []
      if (capped) notes.push(`[Capped at ${maxResults} matches; narrow the search with path, glob or a more specific pattern.]`)
      if (stats.truncated) notes.push(`[Stopped after looking at ${WALK_MAX_ENTRIES} entries; narrow the search with path.]`)
      if (skipped["too-large"] > 0) notes.push(`[Skipped ${skipped["too-large"]} files over ${GREP_MAX_FILE_BYTES / 1024 / 1024} MiB.]`)
      if (skipped.unreadable > 0) notes.push(`[${skipped.unreadable} files could not be read.]`)
      if (stats.unreadableDirectories > 0) notes.push(`[${stats.unreadableDirectories} directories could not be read.]`)
      const body = hits.length === 0 ? `No matches for /${regex.source}/ in ${target.display}.` : hits.join("\n")
      return okResult([body, ...notes].join("\n"))
    },
    catch: (error) => describeFsError("search", target.display, error)
  }).pipe(Effect.catchAll((message) => Effect.succeed(errorResult(message))))

type Searchable = { readonly kind: "text"; readonly text: string } | { readonly kind: "binary" | "too-large" | "unreadable" }

/** The file's text, or why it is not searched; a file that cannot be read is counted, not fatal. */
const readSearchable = async (absolute: string, signal: AbortSignal): Promise<Searchable> => {
  let bytes: Buffer
  try {
    const stat = await fs.stat(absolute)
    if (stat.size > GREP_MAX_FILE_BYTES) return { kind: "too-large" }
    bytes = await fs.readFile(absolute, { signal })
  } catch {
    signal.throwIfAborted()
    return { kind: "unreadable" }
  }
  if (looksBinaryBytes(bytes.subarray(0, SNIFF_BYTES))) return { kind: "binary" }
  return { kind: "text", text: bytes.toString("utf8") }
}

const clip = (line: string): string =>
  line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}… [${line.length - GREP_MAX_LINE_CHARS} more characters]` : line
