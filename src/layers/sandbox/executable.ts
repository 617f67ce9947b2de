import * as Effect from "effect/Effect"
import { constants } from "node:fs"
import { access } from "node:fs/promises"
import { delimiter, isAbsolute, join, resolve } from "node:path"

const isExecutable = (path: string) =>
  Effect.promise(() =>
    access(path, constants.X_OK).then(
      () => true,
      () => false
    )
  )

/**
 * The file `name` runs, as `execvp` would find it: a name with a slash is a path (relative to
 * `cwd`), a bare name is looked up on `searchPath`. Undefined when there is none.
 */
export const findExecutable = (name: string, searchPath: string | undefined, cwd: string): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    if (name.includes("/")) {
      const path = resolve(cwd, name)
      return (yield* isExecutable(path)) ? path : undefined
    }
    for (const dir of (searchPath ?? "").split(delimiter)) {
      if (!isAbsolute(dir)) continue
      const candidate = join(dir, name)
      if (yield* isExecutable(candidate)) return candidate
    }
    return undefined
  })
