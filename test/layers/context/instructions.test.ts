import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { discoverInstructions, INSTRUCTION_MAX_BYTES } from "../../../src/layers/context/instructions.js"
import { tempOutside, tempWorkspace, writeFiles } from "../tools/workspace-fixture.js"

/** Runs `effect`, collecting the text of every warning it logs. */
const withWarnings = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const warnings: Array<string> = []
    const collect = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
    })
    const result = yield* Effect.provide(effect, Logger.add(collect))
    return { result, warnings }
  })

const summary = (files: ReadonlyArray<{ readonly path: string; readonly scope: string; readonly text: string }>, base: string) =>
  files.map((f) => [f.scope, path.relative(base, f.path), f.text])

describe("discoverInstructions", () => {
  it.scoped("reads the user's files, then the repository root, then each folder down to the cwd, nearer ones last", () =>
    Effect.gen(function* () {
      const outer = yield* tempWorkspace
      const configDir = yield* tempOutside
      yield* writeFiles(configDir, { "AGENTS.md": "user agents", "CLAUDE.md": "user claude" })
      yield* writeFiles(outer, {
        "AGENTS.md": "above the repository",
        "repo/.git/HEAD": "ref: refs/heads/main\n",
        "repo/AGENTS.md": "root agents",
        "repo/CLAUDE.md": "root claude",
        "repo/a/CLAUDE.md": "a claude",
        "repo/a/b/AGENTS.md": "b agents",
        "repo/a/b/c/AGENTS.md": "below the cwd",
        "repo/other/AGENTS.md": "a sibling"
      })
      const files = yield* discoverInstructions({ cwd: path.join(outer, "repo", "a", "b"), configDir })
      expect(summary(files, outer)).toEqual([
        ["user", path.relative(outer, path.join(configDir, "AGENTS.md")), "user agents"],
        ["user", path.relative(outer, path.join(configDir, "CLAUDE.md")), "user claude"],
        ["project", "repo/AGENTS.md", "root agents"],
        ["project", "repo/CLAUDE.md", "root claude"],
        ["project", "repo/a/CLAUDE.md", "a claude"],
        ["project", "repo/a/b/AGENTS.md", "b agents"]
      ])
    })
  )

  it.scoped("without a repository only the cwd's own files are read; a .git file (worktree) marks a root too", () =>
    Effect.gen(function* () {
      const outer = yield* tempWorkspace
      const configDir = path.join(outer, "no-config-here")
      yield* writeFiles(outer, {
        "AGENTS.md": "above",
        "plain/AGENTS.md": "plain cwd",
        "worktree/.git": "gitdir: /elsewhere/.git/worktrees/w\n",
        "worktree/AGENTS.md": "worktree root",
        "worktree/sub/CLAUDE.md": "worktree sub"
      })
      const plain = yield* discoverInstructions({ cwd: path.join(outer, "plain"), configDir })
      expect(summary(plain, outer)).toEqual([["project", "plain/AGENTS.md", "plain cwd"]])
      const worktree = yield* discoverInstructions({ cwd: path.join(outer, "worktree", "sub"), configDir })
      expect(summary(worktree, outer)).toEqual([
        ["project", "worktree/AGENTS.md", "worktree root"],
        ["project", "worktree/sub/CLAUDE.md", "worktree sub"]
      ])
    })
  )

  it.scoped("a CLAUDE.md that links to the AGENTS.md beside it is read once", () =>
    Effect.gen(function* () {
      const repo = yield* tempWorkspace
      yield* writeFiles(repo, { ".git/HEAD": "x", "AGENTS.md": "shared rules" })
      yield* Effect.promise(() => fs.symlink("AGENTS.md", path.join(repo, "CLAUDE.md")))
      const files = yield* discoverInstructions({ cwd: repo, configDir: path.join(repo, "none") })
      expect(summary(files, repo)).toEqual([["project", "AGENTS.md", "shared rules"]])
    })
  )

  it.scoped("a file over the cap is cut on a character boundary with a note; one exactly at the cap is whole", () =>
    Effect.gen(function* () {
      const repo = yield* tempWorkspace
      // One ASCII byte then two-byte characters: the cap falls in the middle of one.
      const big = `a${"é".repeat(50 * 1024)}`
      const exact = "x".repeat(INSTRUCTION_MAX_BYTES)
      yield* writeFiles(repo, { ".git/HEAD": "x", "AGENTS.md": big, "sub/AGENTS.md": exact })
      const [root, sub] = yield* discoverInstructions({ cwd: path.join(repo, "sub"), configDir: path.join(repo, "none") })
      const note = `\n\n[Truncated: ${path.join(repo, "AGENTS.md")} is 100.0 KiB; only its first 64.0 KiB are included.]`
      expect(root?.text.endsWith(note)).toBe(true)
      const kept = root?.text.slice(0, -note.length) ?? ""
      expect(kept).not.toContain("\uFFFD")
      expect(Buffer.byteLength(kept, "utf8")).toBe(INSTRUCTION_MAX_BYTES - 1)
      expect(big.startsWith(kept)).toBe(true)
      expect(sub?.text).toBe(exact)
    })
  )

  it.scoped("an AGENTS.md that is a directory is skipped with a warning; the CLAUDE.md beside it still counts", () =>
    Effect.gen(function* () {
      const repo = yield* tempWorkspace
      yield* writeFiles(repo, { ".git/HEAD": "x", "AGENTS.md/inside.txt": "not an instruction file", "CLAUDE.md": "claude rules" })
      const { result, warnings } = yield* withWarnings(discoverInstructions({ cwd: repo, configDir: path.join(repo, "none") }))
      expect(summary(result, repo)).toEqual([["project", "CLAUDE.md", "claude rules"]])
      expect(warnings).toEqual([`skipping instruction file: ${path.join(repo, "AGENTS.md")} is a directory, not a file`])
    })
  )

  it.scoped("reads UTF-8 text as written (a BOM is dropped)", () =>
    Effect.gen(function* () {
      const repo = yield* tempWorkspace
      const text = "# Règles\n\n- 日本語で答える 🎉\n- Ελληνικά, עברית\n"
      yield* writeFiles(repo, { ".git/HEAD": "x", "AGENTS.md": `\uFEFF${text}` })
      const [file] = yield* discoverInstructions({ cwd: repo, configDir: path.join(repo, "none") })
      expect(file?.text).toBe(text)
    })
  )

  it.scoped("nothing to find is an empty list, and a missing cwd is no error", () =>
    Effect.gen(function* () {
      const dir = yield* tempWorkspace
      expect(yield* discoverInstructions({ cwd: path.join(dir, "does", "not", "exist"), configDir: path.join(dir, "none") })).toEqual([])
    })
  )
})
