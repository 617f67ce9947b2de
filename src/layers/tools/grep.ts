import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolResult } from "../../domain/tools.js"
import { ToolInputError } from "../../services/ToolRouter.js"
import { describeFsError } from "./fs-errors.js"
import { makeTool } from "./make-tool.js"
import { makePathFilter, type PathFilter } from "./path-filter.js"
import type { PlacesNow, PrivatePlace } from "../private-places.js"
import { readSearchable } from "./searchable-file.js"
import { errorResult, okResult } from "./tool-results.js"
import { MOVED_WHILE_WALKED, skippedNote, walkBounds } from "./walk-bounds.js"
import { countSkipped, newWalkStats, WALK_MAX_ENTRIES, walkFiles } from "./workspace-walk.js"
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

/**
 * `grep`; `privatePlaces` are left out of every walk (walk-bounds.ts) unless the call's root lies
 * in one, as a person allowed it.
 */
export const makeGrepTool = (privatePlaces: PlacesNow) => makeTool({
  name: "grep",
  description:
    "Search file contents with a regular expression. Returns matching lines as `path:line:text`, paths relative to " +
    "the workspace root. Skips .git, files excluded by .gitignore, links, binary files and files over " +
    `${GREP_MAX_FILE_BYTES / 1024 / 1024} MiB, and what the agent may not read without a person naming it.`,
  input: GrepInput,
  prepare: (input, ctx) =>
    Effect.gen(function* () {
      const regex = yield* Effect.try({
        try: () => compileLinearRegex(input.pattern, { ignoreCase: input.ignore_case === true }),
        catch: (error) => new ToolInputError({ message: `pattern: not a usable regular expression: ${messageOf(error)}`, cause: error })
      })
      const filter = yield* Effect.try({
        try: () => makePathFilter(input.glob),
        catch: (error) => new ToolInputError({ message: `glob: not a usable glob: ${messageOf(error)}`, cause: error })
      })
      const target = yield* resolveWorkspacePath(ctx.workspaceRoot, input.path ?? ".")
      return {
        risk: "read" as const,
        summary: `grep /${input.pattern}/ in ${target.display}${input.glob === undefined ? "" : ` (${input.glob})`}`,
        paths: [target.absolute],
        outsideWorkspace: target.outsideWorkspace,
        execute: Effect.flatMap(privatePlaces, (places) => grep(ctx.workspaceRoot, target, regex, filter, input.max_results ?? GREP_DEFAULT_RESULTS, places))
      }
    })
})

const grep = (
  workspaceRoot: string,
  target: WorkspacePath,
  regex: LinearRegex,
  filter: PathFilter,
  maxResults: number,
  privatePlaces: ReadonlyArray<PrivatePlace>
): Effect.Effect<ToolResult> =>
  Effect.tryPromise({
    try: async (signal) => {
      const stats = newWalkStats()
      // Resolved now, not when the call was judged: a place may have been linked elsewhere since.
      const bounds = walkBounds(privatePlaces, target)
      const hits: Array<string> = []
      let capped = false
      const skipped = { binary: 0, "too-large": 0, unreadable: 0 }
      walk: for await (const file of walkFiles(workspaceRoot, target.absolute, { signal, maxEntries: WALK_MAX_ENTRIES, stats, bounds })) {
        // Never read through a link: one that stays inside the root leads to a file the walk reads anyway.
        if (file.symlink) continue
        const fromRoot = isWithin(workspaceRoot, file.absolute) ? relativePosix(workspaceRoot, file.absolute) : undefined
        if (!filter(relativePosix(target.absolute, file.absolute), fromRoot)) continue
        const content = await readSearchable(file, GREP_MAX_FILE_BYTES, signal)
        if (content.kind === "moved") {
          countSkipped(stats, MOVED_WHILE_WALKED)
          continue
        }
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
      const refused = skippedNote(stats.skipped)
      if (refused !== undefined) notes.push(refused)
      const body = hits.length === 0 ? `No matches for /${regex.source}/ in ${target.display}.` : hits.join("\n")
      return okResult([body, ...notes].join("\n"))
    },
    catch: (error) => describeFsError("search", target.display, error)
  }).pipe(Effect.catchAll((message) => Effect.succeed(errorResult(message))))

const clip = (line: string): string =>
  line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}… [${line.length - GREP_MAX_LINE_CHARS} more characters]` : line
