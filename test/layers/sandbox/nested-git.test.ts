import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { findNestedGit, nestedGitPaths, submodulePaths } from "../../../src/layers/sandbox/nested-git.js"
import * as Placeholders from "../../../src/layers/sandbox/placeholders.js"
import { planMounts } from "../../../src/layers/sandbox/protected-paths.js"
import { tempDir } from "../../support/mcp-fixtures.js"

const put = (file: string, content = "") => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, content)
}

/** The plan for the nested git of a workspace, walked now. */
const planNested = (ws: string) => Effect.flatMap(nestedGitPaths(ws, findNestedGit(ws)), (paths) => planMounts(ws, paths))

describe("the nested git a sandboxed command must not change", () => {
  it.scoped("the walk finds every .git (folder or file) and .gitmodules below the top, not the top-level .git, links or node_modules", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("nested-git-")
      put(join(ws, ".git/config"))
      put(join(ws, ".gitmodules"))
      put(join(ws, "vendor/lib/.git/config"))
      put(join(ws, "vendor/lib/deeper/.git"), "gitdir: ../../../.git/modules/deeper\n")
      put(join(ws, "a/b/c/.GIT/HEAD"))
      put(join(ws, "sub/.gitmodules"))
      put(join(ws, "node_modules/pkg/.git/config"))
      put(join(ws, "elsewhere/.git/config"))
      symlinkSync(join(ws, "elsewhere"), join(ws, "linked"))
      expect([...findNestedGit(ws)].sort()).toEqual(
        [".gitmodules", "a/b/c/.GIT", "elsewhere/.git", "sub/.gitmodules", "vendor/lib/.git", "vendor/lib/deeper/.git"].map((p) => join(ws, p)).sort()
      )
    }))

  it.scoped("the walk reads at most its folders, breadth first: shallow repositories come first", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("nested-git-")
      put(join(ws, "top/.git/config"))
      put(join(ws, "d1/d2/d3/deep/.git/config"))
      expect(findNestedGit(ws, 3)).toEqual([join(ws, "top/.git")])
      expect(findNestedGit(ws, 100)).toHaveLength(2)
    }))

  it("submodule paths as git reads .gitmodules: sections, quotes, escapes, comments", () => {
    const text = [
      '[submodule "lib"]',
      "\tpath = vendor/lib",
      "\turl = https://example.com/lib.git",
      '[submodule "spaced"]',
      '\tPath = "with space" ; a comment',
      "[core]",
      "\tpath = not-a-submodule",
      '[ submodule "quoted" ]',
      '  path="a\\"b"',
      '[submodule "empty"]',
      "\tpath ="
    ].join("\n")
    expect(submodulePaths(text)).toEqual(["vendor/lib", "with space", 'a"b'])
  })

  it.scoped("held read-only: nested repositories whole, .git files, .gitmodules, and each registered submodule's .git, made empty where missing", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("nested-git-")
      put(join(ws, ".gitmodules"), '[submodule "s"]\n\tpath = mods/s\n[submodule "t"]\n\tpath = t\n')
      put(join(ws, "t/.git"), "gitdir: ../.git/modules/t\n")
      put(join(ws, "vendor/lib/.git/config"))
      const { mounts, inside } = yield* planNested(ws)
      expect(mounts.readOnly).toEqual([join(ws, ".gitmodules"), join(ws, "t/.git"), join(ws, "mods/s/.git"), join(ws, "vendor/lib/.git")])
      expect(mounts.pinned).toEqual([join(ws, "mods"), join(ws, "t"), join(ws, "vendor"), join(ws, "mods/s"), join(ws, "vendor/lib")])
      expect(inside.find((p) => p.path === join(ws, "t/.git"))?.kind).toBe("file")

      // The missing submodule's .git exists while a command runs, and is gone after.
      const placeholders = yield* Placeholders.make
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* placeholders.hold(inside)
          expect(statSync(join(ws, "mods/s/.git")).isDirectory()).toBe(true)
        })
      )
      expect(existsSync(join(ws, "mods"))).toBe(false)
    }))

  it.scoped("a nested repository's hooks or config that is a link into the workspace cannot be held: an error naming it", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("nested-git-")
      put(join(ws, "sub/.git/config"))
      mkdirSync(join(ws, "scripts"))
      symlinkSync(join(ws, "scripts"), join(ws, "sub/.git/hooks"))
      const error = yield* Effect.flip(planNested(ws))
      expect(error.message).toContain(join(ws, "sub/.git/hooks"))
    }))

  it.scoped("an entry walked earlier and gone since is not made again", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("nested-git-")
      const held = yield* nestedGitPaths(ws, [join(ws, "gone/.git")])
      expect(held).toEqual([])
    }))
})
