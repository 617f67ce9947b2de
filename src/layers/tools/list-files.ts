import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolResult } from "../../domain/tools.js"
import { ToolInputError } from "../../services/ToolRouter.js"
import { describeFsError } from "./fs-errors.js"
import { makeTool } from "./make-tool.js"
import { makePathFilter, type PathFilter } from "./path-filter.js"
import type { PlacesNow, PrivatePlace } from "../private-places.js"
import { errorResult, okResult } from "./tool-results.js"
import { skippedNote, walkBounds } from "./walk-bounds.js"
import { newWalkStats, WALK_MAX_ENTRIES, walkFiles } from "./workspace-walk.js"
import { isWithin, relativePosix, resolveWorkspacePath, type WorkspacePath } from "./workspace-paths.js"
import { messageOf } from "../../domain/cause-message.js"

export const LIST_MAX_ENTRIES = 1000

const ListFilesInput = Schema.Struct({
  path: Schema.optionalWith(
    Schema.String.annotations({ description: "Directory to list: relative to the workspace root, or absolute (default: the root)." }),
    { exact: true }
  ),
  pattern: Schema.optionalWith(
    Schema.String.annotations({
      description: 'Glob the files must match, e.g. "src/**/*.ts"; a pattern without "/" such as "*.md" matches file names at any depth.'
    }),
    { exact: true }
  )
})

/**
 * `list_files`; `privatePlaces` are left out of every walk (walk-bounds.ts) unless the call's
 * root lies in one, as a person allowed it.
 */
export const makeListFilesTool = (privatePlaces: PlacesNow) => makeTool({
  name: "list_files",
  description:
    `List the files under a directory, recursively, sorted, as paths relative to the workspace root. ` +
    `Skips .git, whatever .gitignore files exclude, and what the agent may not read without a person naming it. ` +
    `At most ${LIST_MAX_ENTRIES} entries; narrow with path or pattern.`,
  input: ListFilesInput,
  prepare: (input, ctx) =>
    Effect.gen(function* () {
      const filter = yield* Effect.try({
        try: () => makePathFilter(input.pattern),
        catch: (error) => new ToolInputError({ message: `pattern: ${messageOf(error)}`, cause: error })
      })
      const target = yield* resolveWorkspacePath(ctx.workspaceRoot, input.path ?? ".")
      return {
        risk: "read" as const,
        summary: `list ${target.display}${input.pattern === undefined ? "" : ` matching ${input.pattern}`}`,
        paths: [target.absolute],
        outsideWorkspace: target.outsideWorkspace,
        execute: Effect.flatMap(privatePlaces, (places) => listFiles(ctx.workspaceRoot, target, filter, places))
      }
    })
})

const listFiles = (workspaceRoot: string, target: WorkspacePath, filter: PathFilter, privatePlaces: ReadonlyArray<PrivatePlace>): Effect.Effect<ToolResult> =>
  Effect.tryPromise({
    try: async (signal) => {
      const stats = newWalkStats()
      // Resolved now, not when the call was judged: a place may have been linked elsewhere since.
      const bounds = walkBounds(privatePlaces, target)
      const found: Array<string> = []
      let capped = false
      for await (const file of walkFiles(workspaceRoot, target.absolute, { signal, maxEntries: WALK_MAX_ENTRIES, stats, bounds })) {
        const fromRoot = isWithin(workspaceRoot, file.absolute) ? relativePosix(workspaceRoot, file.absolute) : undefined
        if (!filter(relativePosix(target.absolute, file.absolute), fromRoot)) continue
        if (found.length === LIST_MAX_ENTRIES) {
          capped = true
          break
        }
        found.push(fromRoot ?? file.absolute)
      }
      const notes: Array<string> = []
      if (capped) notes.push(`[Capped at ${LIST_MAX_ENTRIES} entries; narrow the listing with path or pattern.]`)
      if (stats.truncated) notes.push(`[Stopped after looking at ${WALK_MAX_ENTRIES} entries; narrow the listing with path.]`)
      if (stats.unreadableDirectories > 0) notes.push(`[${stats.unreadableDirectories} directories could not be read.]`)
      const refused = skippedNote(stats.skipped)
      if (refused !== undefined) notes.push(refused)
      const body = found.length === 0 ? `No files found in ${target.display}.` : found.join("\n")
      return okResult([body, ...notes].join("\n"))
    },
    catch: (error) => describeFsError("list", target.display, error)
  }).pipe(Effect.catchAll((message) => Effect.succeed(errorResult(message))))
