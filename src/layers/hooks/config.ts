import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { statSync } from "node:fs"
import { type ConfiguredHook, type HookSource, hooksOfSettings, type IgnoredHook } from "../../domain/hooks.js"
import { HooksConfigError } from "../../services/Hooks.js"
import { readOptionalJson } from "../optional-json-file.js"

/** The hooks of one settings file as last read, or why they could not be. */
export interface FileHooks {
  readonly hooks: ReadonlyArray<ConfiguredHook>
  readonly ignored: ReadonlyArray<IgnoredHook>
  readonly problem?: HooksConfigError
}

const EMPTY: FileHooks = { hooks: [], ignored: [] }

const stampOf = (file: string): string => {
  try {
    const stat = statSync(file, { throwIfNoEntry: false })
    return stat === undefined ? "missing" : `${stat.mtimeMs}:${stat.size}`
  } catch {
    return "unreadable"
  }
}

const readFileHooks = (file: string, source: HookSource): Effect.Effect<FileHooks> =>
  readOptionalJson(file).pipe(
    Effect.map(
      Option.match({
        onNone: () => EMPTY,
        onSome: (json) =>
          Either.match(hooksOfSettings(json, source, file), {
            onLeft: (problem): FileHooks => ({ hooks: [], ignored: [], problem: new HooksConfigError({ file, problem }) }),
            onRight: (found): FileHooks => found
          })
      })
    ),
    Effect.catchAll(({ problem }) => Effect.succeed<FileHooks>({ hooks: [], ignored: [], problem: new HooksConfigError({ file, problem }) }))
  )

/**
 * Settings files' hooks, re-read when a file changes (size or mtime): hooks are looked up at
 * every tool call, and the files are usually absent or unchanged. A malformed file is said
 * once per content, as a warning, and runs nothing until it is fixed.
 */
export const makeHooksReader = () => {
  const cache = new Map<string, { readonly stamp: string; readonly loaded: FileHooks }>()
  return (file: string, source: HookSource): Effect.Effect<FileHooks> =>
    Effect.suspend(() => {
      const stamp = stampOf(file)
      const cached = cache.get(file)
      if (cached !== undefined && cached.stamp === stamp) return Effect.succeed(cached.loaded)
      return readFileHooks(file, source).pipe(
        Effect.tap((loaded) =>
          loaded.problem === undefined ? Effect.void : Effect.logWarning(`hooks not run: ${loaded.problem.message}`)
        ),
        Effect.tap((loaded) => Effect.sync(() => cache.set(file, { stamp, loaded })))
      )
    })
}
