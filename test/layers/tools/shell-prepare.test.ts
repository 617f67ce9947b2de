import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { sandboxOff } from "../../../src/layers/sandbox/off.js"
import { makeShellTool } from "../../../src/layers/tools/shell.js"
import { prepare, tempOutside, tempWorkspace } from "./workspace-fixture.js"

const shellTool = makeShellTool(sandboxOff)

describe("shell: what a prepared call tells the permission engine", () => {
  it.scoped("the analysed line, and its redirection targets, where they land, as the paths it touches", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(shellTool, { command: "npm test 2>&1 | tee out.log > log/run.txt < in.txt 2>/dev/null" }, root)
      expect(call.shell?.commands.map((c) => c.argv)).toEqual([["npm", "test"], ["tee", "out.log"]])
      expect(call.shell?.unresolved).toEqual([])
      expect(call.paths).toEqual([path.join(root, "log/run.txt"), path.join(root, "in.txt")])
      expect(call.outsideWorkspace).toBe(false)
    }))

  it.scoped("a target outside the workspace, directly or through a link, marks the call as reaching outside", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const outside = yield* tempOutside
      expect((yield* prepare(shellTool, { command: `echo x > ${outside}/f` }, root)).outsideWorkspace).toBe(true)
      expect((yield* prepare(shellTool, { command: "echo x > ../f" }, root)).outsideWorkspace).toBe(true)
      yield* Effect.promise(() => fs.symlink(outside, path.join(root, "link")))
      const linked = yield* prepare(shellTool, { command: "echo x > link/f" }, root)
      expect(linked.paths).toEqual([path.join(outside, "f")])
      expect(linked.outsideWorkspace).toBe(true)
      // The kernel follows the link before the `..`: this lands beside the link's target, outside.
      yield* Effect.promise(() => fs.mkdir(path.join(outside, "sub")))
      yield* Effect.promise(() => fs.symlink(path.join(outside, "sub"), path.join(root, "down")))
      const back = yield* prepare(shellTool, { command: "echo x > down/../g" }, root)
      expect(back.paths).toEqual([path.join(outside, "g")])
      expect(back.outsideWorkspace).toBe(true)
    }))

  it.scoped("a line the analysis cannot judge is marked unresolved", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(shellTool, { command: "eval \"$X\" > \"$OUT\"" }, root)
      expect(call.shell?.unresolved.length).toBeGreaterThan(0)
      expect(call.paths).toEqual([])
    }))
})
