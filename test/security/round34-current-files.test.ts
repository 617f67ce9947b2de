import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { coreLayer } from "../../src/app/agent.js"
import { trustFile, userPermissionsFile } from "../../src/app/locations.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { userSettingsFile } from "../../src/layers/sandbox/settings.js"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { Files, ToolRouter } from "../../src/services/ToolRouter.js"
import { call, check } from "../layers/permission/fixture.js"

/**
 * Round 34's attacker pass, the files a long-running host reads: the user's rules, settings
 * and trust were read once when the host (or `serve`) started, so a deny rule or a hidden
 * place the user added later did not hold for the clients joining it, and a trust recorded
 * by another process was overwritten by the host's copy. The engine is built as the host
 * builds it (coreLayer), before the user's change; each case has its control, the same call
 * before the change.
 */

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

const fixture = () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ca-r34-files-")))
  roots.push(root)
  const ws = join(root, "ws")
  const configDir = join(root, "config")
  const dataDir = join(root, "data")
  for (const dir of [ws, configDir, dataDir]) mkdirSync(dir, { recursive: true })
  // The engine the host runs on (the store and model are not used here).
  const host = coreLayer({ dataDir, configDir, store: "jsonl", model: { spec: "scripted" }, sandbox: { mode: "off", network: false } })
  return { root, ws, configDir, dataDir, host }
}

const writeJson = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value))

describe("round 34: the user's files as a running host sees them", () => {
  it.scopedLive("a deny rule the user adds while the host runs holds at its next call (it held only after a restart)", () =>
    Effect.gen(function* () {
      const fx = fixture()
      const context = yield* Layer.build(fx.host)
      const engine = yield* Effect.provide(PermissionEngine, context)
      const write = check(fx.ws, "write_file", call("write", { paths: [join(fx.ws, "a.txt")] }), "accept-edits")
      expect((yield* engine.decide(write)).decision, "control: accept-edits allows a write in the workspace").toBe("allow")
      writeJson(userPermissionsFile(fx.configDir), { rules: [{ tool: "write_file", decision: "deny" }] })
      expect(yield* engine.decide(write)).toMatchObject({ decision: "deny", rule: { source: "user" } })
      // A file the user breaks while the host runs refuses calls rather than dropping their rules.
      writeFileSync(userPermissionsFile(fx.configDir), "{ not json")
      expect((yield* engine.decide(write)).decision).toBe("deny")
    }))

  it.scopedLive("a place the user hides (sandbox.hide) while the host runs is private at its next call", () =>
    Effect.gen(function* () {
      const fx = fixture()
      const secrets = join(fx.ws, "secrets")
      mkdirSync(secrets)
      const context = yield* Layer.build(fx.host)
      const engine = yield* Effect.provide(PermissionEngine, context)
      const read = check(fx.ws, "read_file", call("read", { paths: [join(secrets, "token.txt")] }))
      expect((yield* engine.decide(read)).decision, "control: a read in the workspace is allowed").toBe("allow")
      writeFileSync(join(secrets, "token.txt"), "s3cret")
      const listed = Effect.gen(function* () {
        const router = yield* ToolRouter
        const files = yield* Files
        const prepared = yield* router.prepare({ toolCallId: "call_1", name: "list_files", input: {} }, { sessionId: "ses_1", toolCallId: "call_1", workspaceRoot: fx.ws, files })
        return (yield* prepared.execute).output
      }).pipe(Effect.provide(context))
      expect(yield* listed, "control: the walk lists the file").toContain("token.txt")
      writeJson(userSettingsFile(fx.configDir), { sandbox: { hide: [secrets] } })
      // The walking tools leave it out from their next call, and a direct read asks a person.
      expect(yield* listed).not.toContain("token.txt")
      expect(yield* engine.decide(read)).toMatchObject({ decision: "ask", firm: true })
    }))

  it.scopedLive("a trust recorded by another process while the host runs is kept when the host records one (its copy overwrote it)", () =>
    Effect.gen(function* () {
      const fx = fixture()
      const [first, second] = ["one", "two"].map((name) => {
        const ws = join(fx.root, name)
        mkdirSync(join(ws, ".custom-agent"), { recursive: true })
        writeJson(Permissions.projectRulesFile(ws), { rules: [{ tool: "shell", command: "make", decision: "allow" }] })
        return ws
      })
      if (first === undefined || second === undefined) throw new Error("two workspaces")
      const context = yield* Layer.build(fx.host)
      const host = yield* Effect.provide(PermissionEngine, context)
      // `custom-agent trust` in another terminal: its own engine on the same files.
      const other = yield* Effect.provide(
        PermissionEngine,
        yield* Layer.build(Permissions.layer({ userRulesFile: userPermissionsFile(fx.configDir), approvalsFile: join(fx.dataDir, "approvals.json"), trustFile: trustFile(fx.dataDir) }))
      )
      const secondHash = (yield* host.projectTrust(second)).sha256 ?? ""
      yield* other.trustProject(first, (yield* other.projectTrust(first)).sha256 ?? "", "cli")
      yield* host.trustProject(second, secondHash, "rpc:web")
      const recorded: unknown = JSON.parse(readFileSync(trustFile(fx.dataDir), "utf8"))
      expect(recorded).toMatchObject({ trusted: [{ file: Permissions.projectRulesFile(first), by: "cli" }, { file: Permissions.projectRulesFile(second), by: "rpc:web" }] })
      expect((yield* host.projectTrust(first)).trusted, "the host sees the other process's trust").toBe(true)
    }))
})
