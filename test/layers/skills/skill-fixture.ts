import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { tempOutside, tempWorkspace, writeFiles } from "../tools/workspace-fixture.js"

/** A SKILL.md with the given front matter lines and body. */
export const skillMd = (name: string, description: string, body = `Instructions of ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`

/**
 * A repository (with `.git`) whose cwd is `repo/packages/app`, and a separate config
 * directory; both removed when the scope closes.
 */
export const skillTree = (project: Record<string, string>, user: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const repo = yield* tempWorkspace
    const configDir = yield* tempOutside
    yield* Effect.promise(() => fs.mkdir(path.join(repo, ".git")))
    yield* writeFiles(repo, { "packages/app/package.json": "{}\n", ...project })
    yield* writeFiles(configDir, user)
    return { repo, configDir, cwd: path.join(repo, "packages", "app") }
  })
