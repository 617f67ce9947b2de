import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { scratch, write } from "../layers/checkpoints/support.js"

/**
 * The checkpoint store runs git over a workspace the model may have written: nothing in the
 * workspace (its own `.git/config`, `.gitattributes`, hooks) may make our git run a command.
 */
describe("checkpoints of a hostile workspace run nothing it names", () => {
  it.scoped("a workspace .git/config with fsmonitor, filters and hooks, and .gitattributes naming them: snapshot, drift and restore run none", () =>
    Effect.gen(function* () {
      const { home, workspace, checkpoints } = yield* scratch()
      const marker = (name: string) => join(home, `ran-${name}`)
      execFileSync("git", ["init", "-q", workspace])
      write(
        workspace,
        ".git/config",
        [
          "[core]",
          `\tfsmonitor = touch ${marker("fsmonitor")}`,
          `\thooksPath = ${join(workspace, "hooks")}`,
          '[filter "evil"]',
          `\tclean = touch ${marker("clean")}; cat`,
          `\tsmudge = touch ${marker("smudge")}; cat`,
          '[diff "evil"]',
          `\ttextconv = touch ${marker("textconv")}; cat`
        ].join("\n") + "\n"
      )
      write(workspace, "hooks/post-checkout", `#!/bin/sh\ntouch ${marker("hook")}\n`)
      execFileSync("chmod", ["+x", join(workspace, "hooks/post-checkout")])
      write(workspace, ".gitattributes", "* filter=evil diff=evil\n")
      write(workspace, "a.txt", "one\n")

      const first = yield* checkpoints.snapshot(workspace)
      write(workspace, "a.txt", "two\n")
      expect(yield* checkpoints.drift(workspace, first.treeId)).toEqual(["a.txt"])
      yield* checkpoints.snapshot(workspace)
      yield* checkpoints.restore(workspace, first.treeId)

      for (const name of ["fsmonitor", "clean", "smudge", "textconv", "hook"]) expect(existsSync(marker(name)), name).toBe(false)
    }))

  it.scoped("nested repositories with such configs (a clone, a .git file's gitdir, one made over files already kept): snapshot, drift and restore run none", () =>
    Effect.gen(function* () {
      const { home, workspace, checkpoints } = yield* scratch()
      const marker = (name: string) => join(home, `ran-${name}`)
      const hostile = (where: string) =>
        [
          "[core]",
          `\tfsmonitor = "touch ${marker(`fsmonitor-${where}`)}; false"`,
          `\thooksPath = ${join(home, "hooks")}`,
          '[filter "evil"]',
          `\tclean = "touch ${marker(`clean-${where}`)}; cat"`,
          `\tsmudge = "touch ${marker(`smudge-${where}`)}; cat"`,
          '[diff "evil"]',
          `\ttextconv = "touch ${marker(`textconv-${where}`)}; cat"`
        ].join("\n") + "\n"
      const git = (cwd: string, ...args: Array<string>) =>
        execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "ignore", env: { PATH: process.env["PATH"], HOME: home } })
      write(home, "hooks/post-checkout", `#!/bin/sh\ntouch ${marker("hook")}\n`)
      execFileSync("chmod", ["+x", join(home, "hooks/post-checkout")])

      // A clone kept inside the project, with a commit, its own attributes and a hostile config.
      write(workspace, "vendor/lib/a.txt", "one\n")
      write(workspace, "vendor/lib/.gitattributes", "* filter=evil diff=evil\n")
      git(workspace, "init", "-q", "vendor/lib")
      git(join(workspace, "vendor/lib"), "add", "-A")
      git(join(workspace, "vendor/lib"), "commit", "-q", "-m", "lib")
      write(workspace, "vendor/lib/.git/config", hostile("clone"))
      // A .git file whose gitdir is a planted bare repository.
      git(home, "init", "-q", "--bare", "planted.git")
      write(home, "planted.git/config", hostile("gitfile"))
      write(workspace, "mod/.git", `gitdir: ${join(home, "planted.git")}\n`)
      write(workspace, "mod/b.txt", "one\n")
      // Files kept first, then a repository made over them.
      write(workspace, "late/c.txt", "one\n")
      write(workspace, "late/.gitattributes", "* filter=evil diff=evil\n")
      write(workspace, "top.txt", "one\n")

      const first = yield* checkpoints.snapshot(workspace)
      git(workspace, "init", "-q", "late")
      write(workspace, "late/.git/config", hostile("late"))
      for (const file of ["vendor/lib/a.txt", "mod/b.txt", "late/c.txt", "top.txt"]) write(workspace, file, "two\n")
      expect(yield* checkpoints.drift(workspace, first.treeId)).toContain("top.txt")
      yield* checkpoints.snapshot(workspace)
      yield* checkpoints.restore(workspace, first.treeId)

      const planted = ["clone", "gitfile", "late"].flatMap((where) => ["fsmonitor", "clean", "smudge", "textconv"].map((what) => `${what}-${where}`))
      for (const name of [...planted, "hook"]) expect(existsSync(marker(name)), name).toBe(false)
      // The control: the user's own git in those folders runs what they plant.
      for (const where of ["vendor/lib", "mod", "late"]) git(join(workspace, where), "status")
      for (const where of ["clone", "gitfile", "late"]) expect(existsSync(marker(`fsmonitor-${where}`)), `control: git status runs the ${where} fsmonitor`).toBe(true)
    }))
})
