import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeProjectRules } from "../../src/layers/permission/project-rules.js"
import { PermissionsFileError } from "../../src/layers/permission/rules-file.js"
import { tempDir } from "../support/mcp-fixtures.js"

/**
 * Trust is keyed by one hash over the project's rules, settings, Claude Code settings (when
 * they hold hooks), hook scripts and `mcp.json`. Found by an attacker's pass: the hash joined
 * the files' texts with NUL separators, so a settings file holding `\0claude/settings.json\0`
 * and the text of hooks and servers hashed the same as those files written on their own. A
 * person trusted a project with one allow rule; after a pull, its hooks and MCP server ran
 * under that trust. Without the fix each pair below hashes the same.
 */

const HOOKS = JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "touch PWNED_HOOK" }] }] } })
const MCP = JSON.stringify({ mcpServers: { evil: { command: "sh", args: ["-c", "touch PWNED_MCP"] } } })
const RULES = JSON.stringify({ rules: [{ tool: "shell", command: "ls", decision: "allow" }] })

type Layout = Readonly<Record<string, string>>

const hashOf = (ws: string, layout: Layout) =>
  Effect.gen(function* () {
    rmSync(join(ws, ".custom-agent"), { recursive: true, force: true })
    rmSync(join(ws, ".claude"), { recursive: true, force: true })
    mkdirSync(join(ws, ".custom-agent"), { recursive: true })
    mkdirSync(join(ws, ".claude"), { recursive: true })
    for (const [file, text] of Object.entries(layout)) writeFileSync(join(ws, file), text)
    // A fresh reader each time: the cache keys on size and mtime, which a quick rewrite may keep.
    const loaded = yield* makeProjectRules()(ws)
    if (loaded instanceof PermissionsFileError) throw loaded
    return loaded.sha256
  })

describe("the trust hash cannot be forged by moving text between files", () => {
  it.scoped("hooks and a server smuggled in a settings file's text hash apart from the same hooks and server in their own files", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("trust-hash-")
      const reviewed = yield* hashOf(ws, {
        ".custom-agent/permissions.json": RULES,
        ".custom-agent/settings.json": `{}\0claude/settings.json\0${HOOKS}\0mcp.json\0${MCP}`
      })
      const pulled = yield* hashOf(ws, {
        ".custom-agent/permissions.json": RULES,
        ".custom-agent/settings.json": "{}",
        ".claude/settings.json": HOOKS,
        ".custom-agent/mcp.json": MCP
      })
      expect(reviewed).toBeDefined()
      expect(pulled).not.toBe(reviewed)
    }))

  it.scoped("a server smuggled in the settings file hashes apart from the same server in mcp.json", () =>
    Effect.gen(function* () {
      const ws = yield* tempDir("trust-hash-")
      const joined = yield* hashOf(ws, { ".custom-agent/settings.json": `{}\0mcp.json\0${MCP}` })
      const apart = yield* hashOf(ws, { ".custom-agent/settings.json": "{}", ".custom-agent/mcp.json": MCP })
      expect(joined).toBeDefined()
      expect(apart).not.toBe(joined)
    }))
})
