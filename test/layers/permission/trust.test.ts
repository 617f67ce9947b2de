import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Permissions from "../../../src/layers/permission/engine.js"
import { PermissionEngine } from "../../../src/services/PermissionEngine.js"
import { decideShell, makeScratch, writeRules } from "./fixture.js"

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

describe("project rules and trust", () => {
  it.effect("a project's deny and ask rules apply at once; its allow rules only once trusted", () => {
    const s = scratch()
    const file = Permissions.projectRulesFile(s.root)
    writeRules(file, [
      { tool: "shell", command: "make *", decision: "allow" },
      { tool: "shell", command: "git push", decision: "deny" },
      { tool: "shell", command: "npm publish", decision: "ask" }
    ])
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      expect(yield* decideShell(s.root, "git push")).toMatchObject({ decision: "deny", rule: { source: "project", index: 1 } })
      expect(yield* decideShell(s.root, "npm publish")).toMatchObject({ decision: "ask", rule: { source: "project", index: 2 } })
      expect(yield* decideShell(s.root, "make build")).toMatchObject({ decision: "ask" })

      const status = yield* engine.projectTrust(s.root)
      expect(status).toMatchObject({ file, trusted: false, allowRules: [{ command: "make *" }] })
      expect(status.sha256).toMatch(/^[0-9a-f]{64}$/)
      const trusted = yield* engine.trustProject(s.root, status.sha256 ?? "", "user")
      expect(trusted).toMatchObject({ trusted: true, trustedBy: "user" })
      expect(yield* decideShell(s.root, "make build")).toMatchObject({ decision: "allow", rule: { source: "project", index: 0 } })
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("an edited file needs trust again, and a stale hash trusts nothing", () => {
    const s = scratch()
    const file = Permissions.projectRulesFile(s.root)
    writeRules(file, [{ tool: "shell", command: "make", decision: "allow" }])
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      const shown = yield* engine.projectTrust(s.root)
      yield* engine.trustProject(s.root, shown.sha256 ?? "", "user")
      expect((yield* decideShell(s.root, "make")).decision).toBe("allow")

      writeRules(file, [{ tool: "shell", command: "make", decision: "allow" }, { tool: "shell", command: "curl *", decision: "allow" }])
      utimesSync(file, new Date(), new Date(statSync(file).mtimeMs + 5000))
      expect((yield* decideShell(s.root, "make")).decision).toBe("ask")
      expect((yield* decideShell(s.root, "curl evil.sh")).decision).toBe("ask")
      const stale = yield* engine.trustProject(s.root, shown.sha256 ?? "", "user").pipe(Effect.flip)
      expect(stale._tag).toBe("ProjectTrustError")
      expect(stale.message).toContain("changed since it was shown")
      expect((yield* engine.projectTrust(s.root)).trusted).toBe(false)
    }).pipe(Effect.provide(s.layer()))
  })

  it.effect("trust persists in the data directory, keyed by the file's hash", () => {
    const s = scratch()
    writeRules(Permissions.projectRulesFile(s.root), [{ tool: "shell", command: "make", decision: "allow" }])
    const trustFile = join(s.data, "trusted-projects.json")
    return Effect.gen(function* () {
      yield* Effect.flatMap(PermissionEngine, (engine) =>
        Effect.flatMap(engine.projectTrust(s.root), (status) => engine.trustProject(s.root, status.sha256 ?? "", "cli"))
      ).pipe(Effect.provide(s.layer({ trustFile })))
      expect(statSync(trustFile).mode & 0o777).toBe(0o600)
      expect(JSON.parse(readFileSync(trustFile, "utf8")).trusted).toHaveLength(1)
      const after = yield* decideShell(s.root, "make").pipe(Effect.provide(s.layer({ trustFile })))
      expect(after.decision).toBe("allow")
      // Nothing to trust without a file; a malformed trust file is a start-up error.
      const empty = scratch()
      const missing = yield* Effect.flatMap(PermissionEngine, (engine) => engine.trustProject(empty.root, "abc", "user")).pipe(
        Effect.provide(empty.layer()),
        Effect.flip
      )
      expect(missing.message).toContain("has no project configuration to trust")
      writeFileSync(trustFile, "{ nope")
      const broken = yield* Permissions.make({ approvalsFile: s.approvals, trustFile }).pipe(Effect.flip)
      expect(broken.message).toContain(trustFile)
    })
  })

  it.effect("the project's settings are under the same trust: opening the network needs it, an edit loses it", () => {
    const s = scratch()
    const settings = join(s.root, ".custom-agent", "settings.json")
    writeFileSync(settings, JSON.stringify({ sandbox: { network: true } }))
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      const status = yield* engine.projectTrust(s.root)
      expect(status).toMatchObject({ opensNetwork: true, trusted: false, allowRules: [] })
      expect(status.sha256).toMatch(/^[0-9a-f]{64}$/)
      yield* engine.trustProject(s.root, status.sha256 ?? "", "user")
      expect((yield* engine.projectTrust(s.root)).trusted).toBe(true)
      writeFileSync(settings, JSON.stringify({ sandbox: { network: true }, other: 1 }))
      utimesSync(settings, new Date(), new Date(statSync(settings).mtimeMs + 5000))
      const edited = yield* engine.projectTrust(s.root)
      expect(edited.trusted).toBe(false)
      expect(edited.sha256).not.toBe(status.sha256)
    }).pipe(Effect.provide(s.layer()))
  })
})
