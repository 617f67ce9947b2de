import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { statSync } from "node:fs"
import { join } from "node:path"
import type { PermissionRule, RuleRef } from "../../domain/permissions.js"
import {
  type PermissionCheck,
  PermissionEngine,
  type PermissionEngineShape,
  type Verdict
} from "../../services/PermissionEngine.js"
import { ruleMatches } from "./matching.js"
import { loadApprovalsFile, type RememberedApproval, rememberedFor, rememberedMatches, saveApprovalsFile } from "./remembered.js"
import { loadRulesFile, PermissionsFileError } from "./rules-file.js"

export interface PermissionEngineOptions {
  /** The user's own rules (checked before any project's). A missing file has no rules. */
  readonly userRulesFile?: string
  /** Where "always" answers persist. */
  readonly approvalsFile: string
  /** Workspaces whose project rules are read and validated at start-up. */
  readonly projectRoots?: ReadonlyArray<string>
}

export const projectRulesFile = (workspaceRoot: string) => join(workspaceRoot, ".custom-agent", "permissions.json")

interface CachedRules {
  readonly mtimeMs: number
  readonly rules: ReadonlyArray<PermissionRule> | PermissionsFileError
}

/** -1 for a missing file (asked for without an exception: the rules files are checked on every tool call, and usually absent). */
const mtimeOf = (file: string) => {
  try {
    return statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? -1
  } catch {
    return -1
  }
}

const patternOf = (rule: PermissionRule) => rule.command ?? rule.path

const refOf = (source: string, index: number, rule: { readonly tool: string; readonly command?: string | undefined; readonly path?: string | undefined }): RuleRef => {
  const pattern = rule.command ?? rule.path
  return { source, index, tool: rule.tool, ...(pattern === undefined ? {} : { pattern }) }
}

export const make = (options: PermissionEngineOptions) =>
  Effect.gen(function* () {
    const userRules = options.userRulesFile === undefined ? [] : yield* loadRulesFile(options.userRulesFile)
    const projectCache = new Map<string, CachedRules>()

    /** Project rules, re-read when the file changes; a malformed file fails closed at decision time. */
    const projectRules = (root: string): Effect.Effect<ReadonlyArray<PermissionRule> | PermissionsFileError> =>
      Effect.suspend(() => {
        const file = projectRulesFile(root)
        const mtimeMs = mtimeOf(file)
        const cached = projectCache.get(file)
        if (cached !== undefined && cached.mtimeMs === mtimeMs) return Effect.succeed(cached.rules)
        return loadRulesFile(file).pipe(
          Effect.either,
          Effect.map((loaded) => {
            const rules = loaded._tag === "Right" ? loaded.right : loaded.left
            projectCache.set(file, { mtimeMs, rules })
            return rules
          })
        )
      })

    // A malformed project file is a start-up error for the workspaces we know about.
    for (const root of options.projectRoots ?? []) {
      const rules = yield* projectRules(root)
      if (rules instanceof PermissionsFileError) return yield* Effect.fail(rules)
    }

    const always = yield* Ref.make(yield* loadApprovalsFile(options.approvalsFile))
    const session = yield* Ref.make(new Map<string, ReadonlyArray<RememberedApproval>>())

    const decide = (check: PermissionCheck): Effect.Effect<Verdict> =>
      Effect.gen(function* () {
        const { call, mode, tool, workspaceRoot } = check
        if (mode === "bypass") return { decision: "allow", by: "mode", scope: "once", reason: "bypass mode allows everything" }
        if (mode === "plan" && call.risk !== "read") {
          return { decision: "deny", by: "mode", scope: "once", reason: `plan mode is read-only (this call would ${call.risk})` }
        }

        const project = yield* projectRules(workspaceRoot)
        if (project instanceof PermissionsFileError) {
          return { decision: "deny", by: "rule", scope: "once", reason: `the project permissions file is malformed: ${project.message}` }
        }
        const sources: ReadonlyArray<readonly [string, ReadonlyArray<PermissionRule>]> = [
          ["user", userRules],
          ["project", project]
        ]
        for (const [source, rules] of sources) {
          const index = rules.findIndex((rule) => ruleMatches(rule, tool, call, workspaceRoot))
          const rule = rules[index]
          if (rule === undefined) continue
          const ref = refOf(source, index, rule)
          const pattern = patternOf(rule)
          const reason = `${source} rule #${index + 1} (${rule.decision} ${rule.tool}${pattern === undefined ? "" : ` ${pattern}`})`
          return rule.decision === "ask"
            ? { decision: "ask", rule: ref, reason }
            : { decision: rule.decision, by: "rule", scope: "once", rule: ref, reason }
        }

        const remembered: ReadonlyArray<readonly ["session" | "always", ReadonlyArray<RememberedApproval>]> = [
          ["session", (yield* Ref.get(session)).get(check.sessionId) ?? []],
          ["always", yield* Ref.get(always)]
        ]
        for (const [scope, entries] of remembered) {
          const index = entries.findIndex((entry) => rememberedMatches(entry, workspaceRoot, tool, call))
          const entry = entries[index]
          if (entry === undefined) continue
          return {
            decision: entry.decision,
            by: "remembered",
            scope,
            rule: refOf(scope, index, entry),
            reason: `${entry.decision === "allow" ? "allowed" : "denied"} earlier ${scope === "session" ? "for this session" : "always"}`
          }
        }

        if (mode === "accept-edits" && call.risk === "write" && !call.outsideWorkspace) {
          return { decision: "allow", by: "mode", scope: "once", reason: "accept-edits mode allows writes inside the workspace" }
        }
        if (call.risk === "read" && !call.outsideWorkspace) {
          return { decision: "allow", by: "default", scope: "once", reason: "reads inside the workspace are allowed" }
        }
        return {
          decision: "ask",
          reason: call.outsideWorkspace ? "the call reaches outside the workspace" : `${call.risk} calls need approval`
        }
      })

    const remember: PermissionEngineShape["remember"] = (check, decision, scope) =>
      Effect.gen(function* () {
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()
        const entry = rememberedFor(check.workspaceRoot, check.tool, check.call, decision, now)
        if (scope === "session") {
          yield* Ref.update(session, (map) => new Map(map).set(check.sessionId, [...(map.get(check.sessionId) ?? []), entry]))
          return
        }
        const next = [...(yield* Ref.get(always)), entry]
        yield* saveApprovalsFile(options.approvalsFile, next)
        yield* Ref.set(always, next)
      })

    return PermissionEngine.of({ decide, remember })
  })

export const layer = (options: PermissionEngineOptions) => Layer.effect(PermissionEngine, make(options))
