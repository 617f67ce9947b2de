import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { dirname, join } from "node:path"
import type { PermissionRule, ProjectTrust, RuleRef } from "../../domain/permissions.js"
import {
  type PermissionCheck,
  PermissionEngine,
  type PermissionEngineShape,
  PermissionStoreError,
  ProjectTrustError,
  type Verdict
} from "../../services/PermissionEngine.js"
import { makeProjectRules, type ProjectRules } from "./project-rules.js"
import { protectedPathOf } from "./protected-paths.js"
import { loadApprovalsFile, type RememberedApproval, rememberedFor, rememberedMatches, saveApprovalsFile } from "./remembered.js"
import type { IndexedRule } from "./rule-basics.js"
import { callPaths, ruleVerdict } from "./rule-set.js"
import { loadRulesFile, PermissionsFileError } from "./rules-file.js"
import { loadTrustFile, saveTrustFile, type TrustedFile } from "./trust-file.js"

export { projectRulesFile } from "./project-rules.js"

export interface PermissionEngineOptions {
  /** The user's own rules (checked before any project's). A missing file has no rules. */
  readonly userRulesFile?: string
  /** Where "always" answers persist. */
  readonly approvalsFile: string
  /** Where trusted project rules files are recorded by hash (default: beside the approvals file). */
  readonly trustFile?: string
  /** Workspaces whose project rules are read and validated at start-up. */
  readonly projectRoots?: ReadonlyArray<string>
  /** Directories no call reaches without asking: the user's config directory and the data directory. */
  readonly privateDirectories?: ReadonlyArray<string>
}

const refOf = (source: string, index: number, rule: { readonly tool: string; readonly command?: string | undefined; readonly path?: string | undefined }): RuleRef => {
  const pattern = rule.command ?? rule.path
  return { source, index, tool: rule.tool, ...(pattern === undefined ? {} : { pattern }) }
}

const describeRule = ({ source, index, rule }: IndexedRule) => {
  const pattern = rule.command ?? rule.path
  return `${source} rule #${index + 1} (${rule.decision} ${rule.tool}${pattern === undefined ? "" : ` ${pattern}`})`
}

const indexed = (source: string, rules: ReadonlyArray<PermissionRule>): ReadonlyArray<IndexedRule> =>
  rules.map((rule, index) => ({ source, index, rule }))

export const make = (options: PermissionEngineOptions) =>
  Effect.gen(function* () {
    const userRules = indexed("user", options.userRulesFile === undefined ? [] : yield* loadRulesFile(options.userRulesFile))
    const projectRules = makeProjectRules()
    const trustFile = options.trustFile ?? join(dirname(options.approvalsFile), "trusted-projects.json")
    const privateDirectories = options.privateDirectories ?? []

    // A malformed project file is a start-up error for the workspaces we know about.
    for (const root of options.projectRoots ?? []) {
      const loaded = yield* projectRules(root)
      if (loaded instanceof PermissionsFileError) return yield* Effect.fail(loaded)
    }

    const trusted = yield* Ref.make(yield* loadTrustFile(trustFile))
    const always = yield* Ref.make(yield* loadApprovalsFile(options.approvalsFile))
    const session = yield* Ref.make(new Map<string, ReadonlyArray<RememberedApproval>>())

    const trustOf = (loaded: ProjectRules, entries: ReadonlyArray<TrustedFile>): TrustedFile | undefined =>
      loaded.sha256 === undefined ? undefined : entries.find((entry) => entry.file === loaded.file && entry.sha256 === loaded.sha256)

    /** The project's rules in force: deny and ask always, allow only for trusted content. */
    const projectInForce = (loaded: ProjectRules): Effect.Effect<ReadonlyArray<IndexedRule>> =>
      Effect.map(Ref.get(trusted), (entries) => {
        const all = indexed("project", loaded.rules)
        return trustOf(loaded, entries) === undefined ? all.filter(({ rule }) => rule.decision !== "allow") : all
      })

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
        const rules = [...userRules, ...(yield* projectInForce(project))]
        const paths = callPaths(call)
        const matched = ruleVerdict(rules, tool, call, workspaceRoot, paths)
        if (matched?.rule.decision === "deny") {
          return { decision: "deny", by: "rule", scope: "once", rule: refOf(matched.source, matched.index, matched.rule), reason: describeRule(matched) }
        }

        const guarded = protectedPathOf(workspaceRoot, call.risk, paths, privateDirectories)
        if (guarded !== undefined) return { decision: "ask", firm: true, reason: `${guarded} is protected: changes to it always need approval` }
        if (call.sandbox?._tag === "none" && call.sandbox.reason === "unavailable") {
          return { decision: "ask", firm: true, reason: "no sandbox is available, so the command would run unconfined" }
        }
        if (matched !== undefined) {
          const rule = refOf(matched.source, matched.index, matched.rule)
          return matched.rule.decision === "ask"
            ? { decision: "ask", firm: true, rule, reason: describeRule(matched) }
            : { decision: "allow", by: "rule", scope: "once", rule, reason: describeRule(matched) }
        }

        const remembered: ReadonlyArray<readonly ["session" | "always", ReadonlyArray<RememberedApproval>]> = [
          ["session", (yield* Ref.get(session)).get(check.sessionId) ?? []],
          ["always", yield* Ref.get(always)]
        ]
        for (const [scope, entries] of remembered) {
          const index = entries.findIndex((entry) => rememberedMatches(entry, workspaceRoot, tool, call, paths, check.input))
          const entry = entries[index]
          if (entry === undefined) continue
          const pattern = entry.commands?.join(", ") ?? entry.paths?.join(", ")
          return {
            decision: entry.decision,
            by: "remembered",
            scope,
            rule: { source: scope, index, tool: entry.tool, ...(pattern === undefined ? {} : { pattern }) },
            reason: `an earlier answer, ${scope === "session" ? "for this session" : "always"}${pattern === undefined ? "" : ` (${pattern})`}`
          }
        }

        if (mode === "accept-edits" && call.risk === "write" && !call.outsideWorkspace) {
          return { decision: "allow", by: "mode", scope: "once", reason: "accept-edits mode allows writes inside the workspace" }
        }
        if (call.risk === "read" && !call.outsideWorkspace) {
          return { decision: "allow", by: "default", scope: "once", reason: call.harmlessBecause ?? "reads inside the workspace are allowed" }
        }
        return {
          decision: "ask",
          reason: call.outsideWorkspace ? "the call reaches outside the workspace" : `${call.risk} calls need approval`
        }
      })

    const remember: PermissionEngineShape["remember"] = (check, decision, scope, picked) =>
      Effect.gen(function* () {
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()
        const entry = rememberedFor(check.workspaceRoot, check.tool, check.call, callPaths(check.call), check.input, decision, now, picked)
        if (Option.isNone(entry)) return false
        if (scope === "session") {
          yield* Ref.update(session, (map) => new Map(map).set(check.sessionId, [...(map.get(check.sessionId) ?? []), entry.value]))
          return true
        }
        const next = [...(yield* Ref.get(always)), entry.value]
        yield* saveApprovalsFile(options.approvalsFile, next)
        yield* Ref.set(always, next)
        return true
      })

    const statusOf = (workspaceRoot: string, loaded: ProjectRules, entries: ReadonlyArray<TrustedFile>): ProjectTrust => {
      const entry = trustOf(loaded, entries)
      return {
        workspaceRoot,
        file: loaded.file,
        ...(loaded.sha256 === undefined ? {} : { sha256: loaded.sha256 }),
        allowRules: loaded.rules.filter((rule) => rule.decision === "allow"),
        opensNetwork: loaded.opensNetwork,
        ...(loaded.hooks.length === 0 ? {} : { hooks: loaded.hooks }),
        ...(loaded.mcpServers.length === 0 ? {} : { mcpServers: loaded.mcpServers }),
        trusted: entry !== undefined,
        ...(entry === undefined ? {} : { trustedAt: entry.trustedAt, trustedBy: entry.by })
      }
    }

    const loadedRules = (workspaceRoot: string) =>
      Effect.flatMap(projectRules(workspaceRoot), (loaded) =>
        loaded instanceof PermissionsFileError ? Effect.fail(new PermissionStoreError({ message: loaded.message })) : Effect.succeed(loaded)
      )

    const projectTrust: PermissionEngineShape["projectTrust"] = (workspaceRoot) =>
      Effect.gen(function* () {
        const loaded = yield* loadedRules(workspaceRoot)
        return statusOf(workspaceRoot, loaded, yield* Ref.get(trusted))
      })

    const trustProject: PermissionEngineShape["trustProject"] = (workspaceRoot, sha256, by) =>
      Effect.gen(function* () {
        const loaded = yield* loadedRules(workspaceRoot)
        if (loaded.sha256 === undefined) return yield* new ProjectTrustError({ message: `${loaded.file} does not exist: there is nothing to trust` })
        if (loaded.sha256 !== sha256) {
          return yield* new ProjectTrustError({ message: `${loaded.file} changed since it was shown (its hash is now ${loaded.sha256}); review it again` })
        }
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()
        // The file and this workspace's older trusts go from the list: one entry per file, the latest content.
        const next = [...(yield* Ref.get(trusted)).filter((entry) => entry.file !== loaded.file), { file: loaded.file, sha256, trustedAt: now, by }]
        yield* saveTrustFile(trustFile, next)
        yield* Ref.set(trusted, next)
        return statusOf(workspaceRoot, loaded, next)
      })

    return PermissionEngine.of({ decide, remember, projectTrust, trustProject })
  })

export const layer = (options: PermissionEngineOptions) => Layer.effect(PermissionEngine, make(options))
