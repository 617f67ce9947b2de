import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Placeholders from "../../../src/layers/sandbox/placeholders.js"
import { planMounts, protectedPaths } from "../../../src/layers/sandbox/protected-paths.js"
import { tempDir } from "../../support/mcp-fixtures.js"

/** The mount plan for a workspace, with the agent's directories where given. */
const plan = (workspace: string, configDir: string, dataDir: string) =>
  Effect.flatMap(protectedPaths(workspace, configDir, dataDir), (paths) => planMounts(workspace, paths))

describe("what the sandbox holds read-only inside the workspace", () => {
  it.scoped("a repository: the whole .git read-only (its hooks and config named too), and .custom-agent/; outside directories need nothing", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("protected-")
      mkdirSync(join(ws, ".git"))
      writeFileSync(join(ws, ".git/config"), "[core]\n")
      const { mounts } = yield* plan(ws, "/nonexistent/config", "/var/lib/elsewhere/data")
      expect(mounts).toEqual({
        pinned: [join(ws, ".git")],
        readOnly: [join(ws, ".custom-agent"), join(ws, ".git"), join(ws, ".git/config"), join(ws, ".git/hooks")]
      })
    }))

  it.scoped("no .git: .git itself, to be made empty; a .git file (a worktree's): the file", () =>
    Effect.gen(function* () {
      const bare = yield* tempDir("protected-")
      expect((yield* plan(bare, "/c", "/d")).mounts).toEqual({ pinned: [], readOnly: [join(bare, ".custom-agent"), join(bare, ".git")] })
      const worktree = yield* tempDir("protected-")
      writeFileSync(join(worktree, ".git"), "gitdir: /elsewhere\n")
      expect((yield* plan(worktree, "/c", "/d")).mounts.readOnly).toEqual([join(worktree, ".custom-agent"), join(worktree, ".git")])
    }))

  it.scoped("Claude Code's whole project folder where it exists, read-only; a linked one where it leads", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("protected-")
      // No .claude folder: nothing is created for it.
      expect((yield* plan(ws, "/c", "/d")).mounts).toEqual({ pinned: [], readOnly: [join(ws, ".custom-agent"), join(ws, ".git")] })
      mkdirSync(join(ws, ".claude"))
      expect((yield* plan(ws, "/c", "/d")).mounts).toEqual({ pinned: [], readOnly: [join(ws, ".claude"), join(ws, ".custom-agent"), join(ws, ".git")] })
      // A linked .claude: its target holds the settings and scripts the hooks run, so the target is held.
      const linked = yield* tempDir("protected-")
      mkdirSync(join(linked, "config/claude"), { recursive: true })
      symlinkSync(join(linked, "config/claude"), join(linked, ".claude"))
      const held = yield* plan(linked, "/c", "/d")
      expect(held.mounts.readOnly).toContain(join(linked, "config/claude"))
      expect(held.mounts.pinned).toEqual([join(linked, "config")])
    }))

  it.scoped("config and data directories inside the workspace: read-only, and every directory above them pinned", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("protected-")
      const configDir = join(ws, "home/.config/custom-agent")
      const { mounts, inside } = yield* plan(ws, configDir, join(ws, "data"))
      expect(mounts.pinned).toEqual([join(ws, "home"), join(ws, "home/.config")])
      expect(mounts.readOnly).toEqual([join(ws, ".custom-agent"), join(ws, ".git"), join(ws, "data"), configDir])
      expect(inside.map((p) => p.path)).toContain(configDir)
    }))

  it.scoped("a config directory reached through a link outside the workspace is held where the link leads", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("protected-")
      const elsewhere = yield* tempDir("protected-link-")
      mkdirSync(join(ws, "dotfiles/agent"), { recursive: true })
      symlinkSync(join(ws, "dotfiles"), join(elsewhere, "config"))
      const { mounts } = yield* plan(ws, join(elsewhere, "config/agent"), "/d")
      expect(mounts.pinned).toEqual([join(ws, "dotfiles")])
      expect(mounts.readOnly).toContain(join(ws, "dotfiles/agent"))
    }))

  it.scoped("a workspace inside a protected directory is read-only as a whole", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("protected-data-")
      const ws = join(dataDir, "project")
      mkdirSync(ws)
      expect((yield* plan(ws, "/c", dataDir)).mounts.readOnly).toContain(ws)
    }))

  it.scoped("a link inside the workspace in front of a protected path cannot be held: an error naming it", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("protected-")
      mkdirSync(join(ws, "real"))
      symlinkSync(join(ws, "real"), join(ws, ".custom-agent"))
      const error = yield* Effect.flip(plan(ws, "/c", "/d"))
      expect(error._tag).toBe("SandboxError")
      expect(error.message).toContain(`symbolic link ${join(ws, ".custom-agent")}`)

      const hooks = yield* tempDir("protected-")
      mkdirSync(join(hooks, ".git"))
      symlinkSync(join(hooks, "scripts"), join(hooks, ".git/hooks"))
      expect((yield* Effect.flip(plan(hooks, "/c", "/d"))).message).toContain(".git/hooks")
    }))

  it.scoped("a file inside the workspace where a protected directory's parent should be cannot be held either", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("protected-")
      writeFileSync(join(ws, "home"), "a file")
      const error = yield* Effect.flip(plan(ws, join(ws, "home/config"), "/d"))
      expect(error.message).toContain(`cannot protect ${join(ws, "home/config")}`)
    }))
})

describe("placeholders: missing protected paths exist while commands run, and only then", () => {
  it.scoped("created empty (private for the agent's directories), kept while any holder remains, removed after the last", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("placeholders-")
      mkdirSync(join(ws, ".git"))
      const placeholders = yield* Placeholders.make
      const { inside } = yield* plan(ws, join(ws, "home/config"), join(ws, "data"))
      const outer = yield* Effect.scoped(
        Effect.gen(function* () {
          yield* placeholders.hold(inside)
          expect(statSync(join(ws, ".custom-agent")).isDirectory()).toBe(true)
          expect(statSync(join(ws, ".git/hooks")).isDirectory()).toBe(true)
          expect(readFileSync(join(ws, ".git/config"), "utf8")).toBe("")
          expect(statSync(join(ws, "home/config")).mode & 0o777).toBe(0o700)
          // A second command while the first runs: nothing is removed when it ends.
          yield* Effect.scoped(placeholders.hold(inside))
          return existsSync(join(ws, ".custom-agent")) && existsSync(join(ws, "home/config"))
        })
      )
      expect(outer).toBe(true)
      for (const made of [".custom-agent", ".git/hooks", ".git/config", "home", "data"]) expect(existsSync(join(ws, made))).toBe(false)
      expect(existsSync(join(ws, ".git"))).toBe(true)
    }))

  it.scoped("what was written into a placeholder meanwhile stays, and a path that existed is never removed", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("placeholders-")
      mkdirSync(join(ws, "data"))
      const placeholders = yield* Placeholders.make
      const { inside } = yield* plan(ws, "/c", join(ws, "data"))
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* placeholders.hold(inside)
          writeFileSync(join(ws, ".custom-agent/permissions.json"), '{"rules":[]}')
        })
      )
      expect(readFileSync(join(ws, ".custom-agent/permissions.json"), "utf8")).toBe('{"rules":[]}')
      expect(existsSync(join(ws, "data"))).toBe(true)
      expect(existsSync(join(ws, ".git"))).toBe(false)
    }))
})
