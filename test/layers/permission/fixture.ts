import { Effect, Option } from "effect"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { PermissionMode } from "../../../src/domain/permissions.js"
import type { RiskClass } from "../../../src/domain/tools.js"
import * as Permissions from "../../../src/layers/permission/engine.js"
import { analyzeShell } from "../../../src/layers/permission/shell-analysis.js"
import { PermissionEngine, type PermissionCheck } from "../../../src/services/PermissionEngine.js"
import type { PreparedCall } from "../../../src/services/ToolRouter.js"

/** Scratch directories for one test file: a workspace, a config dir and a data dir, side by side. */
export const makeScratch = () => {
  const made: Array<string> = []
  const scratch = () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "perm-")))
    made.push(dir)
    const root = join(dir, "repo")
    mkdirSync(join(root, ".custom-agent"), { recursive: true })
    const config = join(dir, "config")
    const data = join(dir, "data")
    return {
      dir,
      root,
      config,
      data,
      outside: join(dir, "outside"),
      approvals: join(data, "approvals.json"),
      userRules: join(config, "permissions.json"),
      layer: (extra: Partial<Permissions.PermissionEngineOptions> = {}) =>
        Permissions.layer({
          approvalsFile: join(data, "approvals.json"),
          userRulesFile: join(config, "permissions.json"),
          privateDirectories: Effect.succeed([config, data]),
          ...extra
        })
    }
  }
  const cleanup = () => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true })
  }
  return { scratch, cleanup }
}

export const writeRules = (file: string, rules: unknown) => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, JSON.stringify({ rules }))
}

export const call = (risk: RiskClass, extra: Partial<PreparedCall> = {}): PreparedCall => ({
  risk,
  summary: "test call",
  paths: [],
  outsideWorkspace: false,
  execute: Effect.succeed({ output: "", isError: false }),
  ...extra
})

/** A shell call as the shell tool prepares it: the line analysed, its redirection targets as paths. */
export const shellCall = (root: string, command: string) =>
  Effect.map(analyzeShell(command, root), (shell) => {
    const paths = shell.commands.flatMap((c) => c.redirects.flatMap((r) => (r.target === undefined || r.target.startsWith("/dev/") ? [] : [r.target])))
    return call("execute", { command, shell, paths, outsideWorkspace: paths.some((p) => !p.startsWith(`${root}/`)) })
  })

export const check = (
  root: string,
  tool: string,
  prepared: PreparedCall,
  mode: PermissionMode = "default",
  sessionId = "ses_1",
  input?: unknown
): PermissionCheck => ({
  sessionId,
  workspaceRoot: root,
  tool,
  mode,
  call: prepared,
  ...(input === undefined ? {} : { input })
})

export const decide = (c: PermissionCheck) => Effect.flatMap(PermissionEngine, (engine) => engine.decide(c))

/** Decides a shell line in the default mode. */
export const decideShell = (root: string, command: string, mode: PermissionMode = "default") =>
  Effect.flatMap(shellCall(root, command), (prepared) => decide(check(root, "shell", prepared, mode)))

/**
 * A person's lasting answer as the engine takes it after a question: the cover the question
 * showed (`lasting`), then `remember`. False when the call holds nothing that can be remembered.
 */
export const remember = (c: PermissionCheck, decision: "allow" | "deny", scope: "session" | "always", picked?: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const engine = yield* PermissionEngine
    const cover = yield* engine.lasting(c)
    if (Option.isNone(cover)) return false
    yield* engine.remember(c, decision, scope, cover.value, picked === undefined ? undefined : { paths: picked })
    return true
  })
