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
})
