import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck, Stream } from "effect"
import { lstatSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { checkpointsLayer } from "../../src/app/checkpoints.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { engineLayer } from "../support/engine-harness.js"
import { storeCases } from "../support/store-cases.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

/** Every file under `dir` (the private data dir aside) with its content and executable bit. */
const treeOf = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else out[relative(dir, full)] = `${(lstatSync(full).mode & 0o100) === 0 ? "-" : "x"} ${readFileSync(full, "utf8")}`
    }
  }
  walk(dir)
  return out
}

const names = ["a.txt", "b.txt", "sub/c.txt", "sub/deep/d.sh"] as const

/** One change a turn makes, through the tools a model uses: the file tools or a shell command. */
const change = FastCheck.oneof(
  FastCheck.record({ op: FastCheck.constant("write" as const), path: FastCheck.constantFrom(...names), text: FastCheck.string({ maxLength: 20 }) }),
  FastCheck.record({ op: FastCheck.constant("append" as const), path: FastCheck.constantFrom(...names), text: FastCheck.stringMatching(/^[a-z ]{1,12}$/) }),
  FastCheck.record({ op: FastCheck.constant("delete" as const), path: FastCheck.constantFrom(...names) }),
  FastCheck.record({ op: FastCheck.constant("rename" as const), path: FastCheck.constantFrom(...names), to: FastCheck.constantFrom(...names) }),
  FastCheck.record({ op: FastCheck.constant("chmod" as const), path: FastCheck.constantFrom(...names), executable: FastCheck.boolean() })
)
type Change = typeof change extends FastCheck.Arbitrary<infer C> ? C : never

const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

/** The tool call that makes `c`; shell commands do what the file tools do not (append, delete, rename, chmod). */
const callOf = (c: Change, i: number) => {
  const id = `call_${i}`
  switch (c.op) {
    case "write":
      return { name: "write_file", input: { path: c.path, content: c.text }, id }
    case "append":
      return { name: "shell", input: { command: `mkdir -p "$(dirname ${c.path})" && printf %s ${quoted(c.text)} >> ${c.path}` }, id }
    case "delete":
      return { name: "shell", input: { command: `rm -f ${c.path}` }, id }
    case "rename":
      return { name: "shell", input: { command: `if [ -f ${c.path} ]; then mkdir -p "$(dirname ${c.to})" && mv -f ${c.path} ${c.to}; fi` }, id }
    case "chmod":
      return { name: "shell", input: { command: `if [ -f ${c.path} ]; then chmod ${c.executable ? "+x" : "-x"} ${c.path}; fi` }, id }
  }
}

/** Each turn: one tool call making its change, then a word. */
const scriptOf = (changes: ReadonlyArray<Change>): Script => ({
  responses: changes.flatMap((c, i) => [{ chunks: [{ toolCall: callOf(c, i) }] }, `turn ${i + 1} done`])
})

/** After the turns: rewind before a turn, or redo the last rewind. */
const action = FastCheck.oneof(
  FastCheck.record({ _tag: FastCheck.constant("Rewind" as const), turn: FastCheck.integer({ min: 1, max: 5 }) }),
  FastCheck.record({ _tag: FastCheck.constant("Redo" as const) })
)

const sqlite = storeCases.filter((s) => s.name === "sqlite")

for (const store of sqlite) {
  describe(`rewind and redo against a real workspace (${store.name} store, git checkpoints)`, () => {
    it.live.prop(
      "after random writes, appends, deletes, renames and chmods, each rewind and redo leaves the files byte-identical to that point",
      { changes: FastCheck.array(change, { minLength: 1, maxLength: 5 }), actions: FastCheck.array(action, { minLength: 1, maxLength: 4 }) },
      ({ changes, actions }) => {
        const workspace = temp.dir("rewind-prop-ws-")
        return Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
          const sessionId = header.sessionId
          // before[n - 1]: the files before turn n; before[changes.length]: after the last turn.
          const before: Array<Record<string, string>> = [treeOf(workspace)]
          for (const [i] of changes.entries()) {
            yield* Stream.runDrain(engine.runTurn({ sessionId, content: `turn ${i + 1}`, permissionMode: "bypass" }))
            before.push(treeOf(workspace))
          }
          // What each redo returns to: the files just before the rewind it undoes.
          const undone: Array<Record<string, string>> = []
          for (const step of actions) {
            if (step._tag === "Rewind") {
              if (step.turn > changes.length) continue
              const now = treeOf(workspace)
              const result = yield* Effect.either(engine.rewind(sessionId, { to: { _tag: "Turn", turn: step.turn }, what: "files", by: "test" }))
              if (result._tag === "Left") {
                // Only "nothing to restore" may refuse (a turn that changed nothing before any checkpoint).
                expect(result.left._tag).toBe("RewindUnavailable")
                expect(now).toEqual(treeOf(workspace))
                continue
              }
              expect(treeOf(workspace)).toEqual(before[step.turn - 1])
              undone.push(now)
            } else {
              const expected = undone.pop()
              const result = yield* Effect.either(engine.redo(sessionId, { by: "test" }))
              if (expected === undefined) {
                expect(result._tag).toBe("Left")
                continue
              }
              expect(result._tag).toBe("Right")
              expect(treeOf(workspace)).toEqual(expected)
            }
          }
        }).pipe(
          Effect.provide(
            engineLayer(store.fresh(), scriptOf(changes), {
              tools: localTools(sandboxOff),
              checkpoints: checkpointsLayer(temp.dir("rewind-prop-data-"))
            })
          )
        )
      },
      { fastCheck: { numRuns: 12 }, timeout: 240_000 }
    )
  })
}
