import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { projectRulesFile } from "../../src/layers/permission/engine.js"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { storeCases } from "../support/store-cases.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const script = { responses: [{ chunks: [{ text: "ok" }] }, { chunks: [{ text: "ok" }] }, { chunks: [{ text: "ok" }] }] }

const writeRules = (root: string, rules: unknown) => {
  const file = projectRulesFile(root)
  mkdirSync(join(root, ".custom-agent"), { recursive: true })
  writeFileSync(file, JSON.stringify({ rules }))
  utimesSync(file, new Date(), new Date(Date.now() + Math.random() * 10_000))
}

for (const store of storeCases) {
  describe(`project rules in the log (${store.name} store)`, () => {
    it.effect("a turn records the project's rules file when its content or trust changed, and who trusted it", () => {
      const root = temp.dir("proj-")
      const data = temp.dir("data-")
      writeRules(root, [{ tool: "shell", command: "make", decision: "allow" }])
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const permissions = yield* PermissionEngine
        const { header } = yield* engine.createSession({ cwd: root, client: "test" })
        const turn = (content: string) => Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content }))
        const recorded = () => Effect.map(replayAll(header.sessionId), (log) => log.filter((e) => e.type === "permission.project_rules"))

        yield* turn("one")
        yield* turn("two")
        const first = yield* recorded()
        expect(first).toHaveLength(1)
        expect(first[0]?.payload).toMatchObject({ file: projectRulesFile(root), allowRules: 1, trusted: false })

        const status = yield* permissions.projectTrust(root)
        yield* permissions.trustProject(root, status.sha256 ?? "", "user")
        yield* turn("three")
        const second = yield* recorded()
        expect(second).toHaveLength(2)
        expect(second[1]?.payload).toMatchObject({ trusted: true, trustedBy: "user", sha256: status.sha256 })
        expect(statSync(projectRulesFile(root)).isFile()).toBe(true)
      }).pipe(Effect.provide(engineLayer(store.fresh(), script, { approvalsFile: join(data, "approvals.json") })))
    })

    it.effect("a workspace without a rules file records nothing", () => {
      const root = temp.dir("proj-")
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: root, client: "test" })
        yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "hi" }))
        const log = yield* replayAll(header.sessionId)
        expect(log.some((e) => e.type === "permission.project_rules")).toBe(false)
      }).pipe(Effect.provide(engineLayer(store.fresh(), script)))
    })
  })
}
