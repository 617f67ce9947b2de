import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { formatBytes } from "../tools/format-bytes.js"
import { findRepositoryRoot, foldersFromRoot } from "./instructions-paths.js"
import { readTextPrefix } from "./instructions-read.js"
import type { ProjectFileBounds } from "./project-file-bounds.js"
import { currentHome, fixedPlaces, type PlacesNow, privatePlaces } from "../private-places.js"

/** An instruction file as the model will read it. */
export interface InstructionFile {
  readonly path: string
  /** `user`: from the user's config directory; `project`: from the repository. */
  readonly scope: "user" | "project"
  readonly text: string
}

export interface DiscoverInstructionsOptions {
  readonly cwd: string
  /** The user's config directory (see `resolveConfigDir`). */
  readonly configDir: string
  /** Per-file cap in bytes; larger files are cut with a note. Default `INSTRUCTION_MAX_BYTES`. */
  readonly maxBytes?: number
  /**
   * Where a project's instruction file may never lead (private-places.ts). Default: the config
   * directory and the secret stores of this home; the agent passes its whole list.
   */
  readonly privatePlaces?: PlacesNow
}

/** The names looked for in each folder, in this order. CLAUDE.md is read for compatibility. */
export const INSTRUCTION_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"] as const

export const INSTRUCTION_MAX_BYTES = 64 * 1024

/**
 * Finds the instruction files that apply to `cwd`, in the order the model should read them:
 * the user's config directory first, then the repository root (the nearest ancestor of `cwd`
 * holding `.git`; without one, only `cwd` itself), then each folder between the root and
 * `cwd`, so nearer files come last and take precedence. A folder holding both AGENTS.md and
 * CLAUDE.md contributes both, AGENTS.md first, unless one is a link to the other (read once).
 * A project's file is read only where it really lies inside the workspace (or, above it, where
 * it stands through no link), never in a private place: project-file-bounds.ts.
 * Files are UTF-8; one over the cap is cut with a note; an unreadable or refused one is skipped
 * with a warning naming it and why. Reads the disk on every call: callers that need a stable view record the result.
 */
export const discoverInstructions = (options: DiscoverInstructionsOptions): Effect.Effect<ReadonlyArray<InstructionFile>> =>
  Effect.gen(function* () {
    const cwd = path.resolve(options.cwd)
    const maxBytes = options.maxBytes ?? INSTRUCTION_MAX_BYTES
    const root = Option.getOrElse(yield* findRepositoryRoot(cwd), () => cwd)
    const refusedPlaces = yield* (options.privatePlaces ?? fixedPlaces(privatePlaces({ home: currentHome(), configDir: options.configDir })))
    const places: ReadonlyArray<{ readonly folder: string; readonly scope: InstructionFile["scope"] }> = [
      { folder: path.resolve(options.configDir), scope: "user" },
      ...foldersFromRoot(root, cwd).map((folder) => ({ folder, scope: "project" as const }))
    ]
    const found: Array<InstructionFile> = []
    // By real path: a folder reached twice, or a CLAUDE.md linked to AGENTS.md, is read once.
    const seen = new Set<string>()
    for (const { folder, scope } of places) {
      for (const name of INSTRUCTION_FILE_NAMES) {
        const file = path.join(folder, name)
        // Before judging it: a CLAUDE.md linked to the AGENTS.md beside it is that file, already read.
        const real = yield* realPath(file)
        if (seen.has(real)) continue
        const bounds = scope === "project" ? { workspaceRoot: cwd, lookedIn: folder, privatePlaces: refusedPlaces } : undefined
        const text = yield* readInstructionFile(file, maxBytes, bounds)
        if (Option.isNone(text)) continue
        seen.add(real)
        found.push({ path: file, scope, text: text.value })
      }
    }
    return found
  }).pipe(Effect.withSpan("Instructions.discover"))

/** The file's text, capped; none when it is absent (silently) or unreadable (with a warning). */
const readInstructionFile = (file: string, maxBytes: number, project: ProjectFileBounds | undefined): Effect.Effect<Option.Option<string>> =>
  readTextPrefix(file, maxBytes, project).pipe(
    Effect.map((read) =>
      Option.some(
        read.truncated
          ? `${read.text}\n\n[Truncated: ${file} is ${formatBytes(read.size)}; only its first ${formatBytes(maxBytes)} are included.]`
          : read.text
      )
    ),
    Effect.catchAll((error) =>
      error.missing
        ? Effect.succeedNone
        : Effect.as(Effect.logWarning(`skipping instruction file: ${error.message}`), Option.none())
    )
  )

/** Only used to spot a file read twice; when it cannot be resolved (missing), its own path stands for it. */
const realPath = (file: string): Effect.Effect<string> =>
  Effect.promise(() => fs.realpath(file).catch(() => file))
