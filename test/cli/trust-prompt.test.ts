import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { projectRulesFile } from "../../src/layers/permission/engine.js"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { promptForTrust } from "../../src/cli/trust-prompt.js"
import { makeScratch, writeRules } from "../layers/permission/fixture.js"

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

/** The prompt on fake terminal streams, answered with `answer` once it has asked. */
const promptWith = (root: string, answer: string) =>
  Effect.gen(function* () {
    const input = new PassThrough()
    const output = new PassThrough()
    let shown = ""
    output.on("data", (chunk: Buffer) => {
      shown += chunk.toString()
      if (shown.includes("Trust it? [y/N]")) input.write(`${answer}\n`)
    })
    const status = yield* promptForTrust(yield* PermissionEngine, root, { input, output })
    return { status, shown }
  })

describe("the trust prompt before a run", () => {
  it.live("shows the allow rules and trusts only on yes", () => {
    const s = scratch()
    writeRules(projectRulesFile(s.root), [{ tool: "shell", command: "make *", decision: "allow" }, { tool: "shell", command: "rm", decision: "deny" }])
    return Effect.gen(function* () {
      const declined = yield* promptWith(s.root, "")
      expect(declined.shown).toContain('allow shell command "make *"')
      expect(declined.shown).not.toContain('command "rm"')
      expect(declined.status.trusted).toBe(false)
      expect(declined.shown).toContain("Not trusted")
      const accepted = yield* promptWith(s.root, "y")
      expect(accepted.status).toMatchObject({ trusted: true, trustedBy: "user" })
      // Trusted content is not asked about again.
      const again = yield* promptWith(s.root, "n")
      expect(again.shown).toBe("")
    }).pipe(Effect.provide(s.layer()))
  })

  it.live("a project whose only widening is a hook (here in .claude/settings.json) is asked about, the hook shown", () => {
    const s = scratch()
    mkdirSync(join(s.root, ".claude"), { recursive: true })
    writeFileSync(join(s.root, ".claude", "settings.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "./fmt.sh" }] }] } }))
    return Effect.gen(function* () {
      const declined = yield* promptWith(s.root, "n")
      expect(declined.shown).toContain("hook PostToolUse [Write]: ./fmt.sh")
      expect(declined.shown).toContain("its hooks do not run")
      expect(declined.status.trusted).toBe(false)
      const accepted = yield* promptWith(s.root, "y")
      expect(accepted.status).toMatchObject({ trusted: true, hooks: ["PostToolUse [Write]: ./fmt.sh"] })
    }).pipe(Effect.provide(s.layer()))
  })

  it.live("a project whose only widening is an MCP server (its .custom-agent/mcp.json) is asked about, the server shown as written", () => {
    const s = scratch()
    mkdirSync(join(s.root, ".custom-agent"), { recursive: true })
    writeFileSync(
      join(s.root, ".custom-agent", "mcp.json"),
      JSON.stringify({ mcpServers: { remote: { url: "https://example.com/mcp", headers: { "X-Api-Key": "${ANTHROPIC_API_KEY}" } }, off: { command: "x", disabled: true } } })
    )
    return Effect.gen(function* () {
      const declined = yield* promptWith(s.root, "n")
      expect(declined.shown).toContain('mcp server "remote" connects to "https://example.com/mcp" with headers {"X-Api-Key":"${ANTHROPIC_API_KEY}"}')
      // A disabled server starts nothing, so there is nothing to show for it.
      expect(declined.shown).not.toContain('"off"')
      expect(declined.shown).toContain("its MCP servers do not start")
      expect(declined.status.trusted).toBe(false)
      const accepted = yield* promptWith(s.root, "y")
      expect(accepted.status).toMatchObject({ trusted: true, mcpServers: ['"remote" connects to "https://example.com/mcp" with headers {"X-Api-Key":"${ANTHROPIC_API_KEY}"}'] })
    }).pipe(Effect.provide(s.layer()))
  })

  it.live("a project with nothing to widen is not asked about", () => {
    const s = scratch()
    writeRules(projectRulesFile(s.root), [{ tool: "shell", command: "rm", decision: "deny" }])
    return Effect.gen(function* () {
      const { shown, status } = yield* promptWith(s.root, "y")
      expect(shown).toBe("")
      expect(status.trusted).toBe(false)
    }).pipe(Effect.provide(s.layer()))
  })
})
