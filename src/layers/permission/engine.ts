import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { randomBytes } from "node:crypto"
import { dirname, join } from "node:path"
import { chosenCover } from "../../domain/lasting-choices.js"
import { fileSignature, readWhenChanged } from "../changed-file.js"
import type { PermissionRule, ProjectTrust, RememberedAnswer, RuleRef } from "../../domain/permissions.js"
import {
  CoverNotOffered,
  type PermissionCheck,
  PermissionEngine,
  type PermissionEngineShape,
  PermissionStoreError,
  ProjectTrustError,
  RememberedAnswerNotFound,
  type Verdict
} from "../../services/PermissionEngine.js"
import { makeProjectRules, type ProjectRules } from "./project-rules.js"
import { protectedPathOf } from "./protected-paths.js"
import {
  type ApprovalsFile,
  coverFor,
  idOf,
  loadApprovalsFile,
  type RememberedApproval,
  rememberedMatches,
  saveApprovalsFile
} from "./remembered.js"
import type { IndexedRule } from "./rule-basics.js"
import { callPaths, ruleVerdict } from "./rule-set.js"
import { loadRulesFile, PermissionsFileError } from "./rules-file.js"
import { loadTrustFile, saveTrustFile, type TrustedFile } from "./trust-file.js"

export { projectRulesFile } from "./project-rules.js"

export interface PermissionEngineOptions {
  /** The user's own rules (checked before any project's), as the file is at each decision. A missing file has no rules. */
  readonly userRulesFile?: string
  /** Where "always" answers persist. */
  readonly approvalsFile: string
  /** Where trusted project rules files are recorded by hash (default: beside the approvals file); read as it is at each use. */
  readonly trustFile?: string
  /** Workspaces whose project rules are read and validated at start-up. */
  readonly projectRoots?: ReadonlyArray<string>
  /**
   * Places no call reaches without a person, even to read (`private-places.ts`): the user's config
   * directory, the data directory, the secret stores and what the user's settings hide, as they
   * are at each decision.
   */
  readonly privateDirectories?: Effect.Effect<ReadonlyArray<string>>
}

const refOf = (source: string, index: number, rule: { readonly tool: string; readonly command?: string | undefined; readonly path?: string | undefined }): RuleRef => {
  const pattern = rule.command ?? rule.path
  return { source, index, tool: rule.tool, ...(pattern === undefined ? {} : { pattern }) }
}

const describeRule = ({ source, index, rule }: IndexedRule) => {
  const pattern = rule.command ?? rule.path
  return `${source} rule #${index + 1} (${rule.decision} ${rule.tool}${pattern === undefined ? "" : ` ${pattern}`})`
}

/** The stored answer as it is listed. */
const listed = (entry: RememberedApproval, scope: "session" | "always", sessionId?: string): RememberedAnswer => ({
  ...entry,
  id: idOf(entry),
  scope,
  ...(sessionId === undefined ? {} : { sessionId })
})

const indexed = (source: string, rules: ReadonlyArray<PermissionRule>): ReadonlyArray<IndexedRule> =>
  rules.map((rule, index) => ({ source, index, rule }))

export const make = (options: PermissionEngineOptions) =>
  Effect.gen(function* () {
    // The user's rules, trust and private places as they are now: a long-running host (or
    // `serve`) sees a rule the user added, or a trust another process recorded, at its next decision.
    const userRulesFile = options.userRulesFile
    const userRules =
      userRulesFile === undefined
        ? Effect.succeed<ReadonlyArray<IndexedRule>>([])
        : yield* readWhenChanged(userRulesFile, Effect.map(loadRulesFile(userRulesFile), (rules) => indexed("user", rules)))
    // A malformed file of the user's is a start-up error; later, every decision it could change is a deny.
    yield* userRules
    const projectRules = makeProjectRules()
    const trustFile = options.trustFile ?? join(dirname(options.approvalsFile), "trusted-projects.json")
    const privateDirectories = options.privateDirectories ?? Effect.succeed([])

    // A malformed project file is a start-up error for the workspaces we know about.
    for (const root of options.projectRoots ?? []) {
      const loaded = yield* projectRules(root)
      if (loaded instanceof PermissionsFileError) return yield* Effect.fail(loaded)
    }

    const trusted = yield* readWhenChanged(trustFile, loadTrustFile(trustFile))
    yield* trusted
    // One trust change at a time in this process; each reads the file afresh and writes it whole (renamed into place).
    const trusting = yield* Effect.makeSemaphore(1)
    const approvalsFile = options.approvalsFile
    const always = yield* Ref.make({ signature: fileSignature(approvalsFile), content: yield* loadApprovalsFile(approvalsFile) })
    const session = yield* Ref.make(new Map<string, ReadonlyArray<RememberedApproval>>())
    // One change to the stored answers at a time in this process; each reads the file afresh.
    const changing = yield* Effect.makeSemaphore(1)

    /** The "always" answers as the file holds them now: read again whenever another process (or this one) changed it. */
    const currentAlways: Effect.Effect<ApprovalsFile, PermissionStoreError> = Effect.gen(function* () {
      const cached = yield* Ref.get(always)
      const signature = fileSignature(approvalsFile)
      if (signature !== undefined && signature === cached.signature) return cached.content
      const content = yield* loadApprovalsFile(approvalsFile)
      yield* Ref.set(always, { signature, content })
      return content
    })

    const changeAlways = <A, E>(change: (content: ApprovalsFile) => Effect.Effect<readonly [ApprovalsFile, A], E>) =>
      changing.withPermits(1)(
        Effect.gen(function* () {
          const [next, result] = yield* change(yield* loadApprovalsFile(approvalsFile))
          yield* saveApprovalsFile(approvalsFile, next)
          // Not cached under the file's signature: another process may write between the save
          // and a stat, and its change would pass for ours. The next decision reads the file.
          yield* Ref.set(always, { signature: undefined, content: next })
          return result
        })
      )

    const trustOf = (loaded: ProjectRules, entries: ReadonlyArray<TrustedFile>): TrustedFile | undefined =>
      loaded.sha256 === undefined ? undefined : entries.find((entry) => entry.file === loaded.file && entry.sha256 === loaded.sha256)

    /** The project's rules in force: deny and ask always, allow only for trusted content (none when the trust file cannot be read). */
    const projectInForce = (loaded: ProjectRules): Effect.Effect<ReadonlyArray<IndexedRule>> =>
      Effect.map(Effect.orElseSucceed(trusted, () => []), (entries) => {
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
        const user = yield* Effect.either(userRules)
        if (user._tag === "Left") {
          return { decision: "deny", by: "rule", scope: "once", reason: `the user's permissions file is malformed: ${user.left.message}` }
        }
        const rules = [...user.right, ...(yield* projectInForce(project))]
        const paths = callPaths(call)
        const matched = ruleVerdict(rules, tool, call, workspaceRoot, paths)
        if (matched?.rule.decision === "deny") {
          return { decision: "deny", by: "rule", scope: "once", rule: refOf(matched.source, matched.index, matched.rule), reason: describeRule(matched) }
        }

        const guarded = protectedPathOf(workspaceRoot, call.risk, paths, yield* privateDirectories)
        if (guarded !== undefined) {
          const reason = call.risk === "read" ? `${guarded} is private: reading it always needs approval` : `${guarded} is protected: changes to it always need approval`
          return { decision: "ask", firm: true, reason }
        }
        if (call.sandbox?._tag === "none" && call.sandbox.reason === "unavailable") {
          return { decision: "ask", firm: true, reason: "no sandbox is available, so the command would run unconfined" }
        }
        if (matched !== undefined) {
          const rule = refOf(matched.source, matched.index, matched.rule)
          return matched.rule.decision === "ask"
            ? { decision: "ask", firm: true, rule, reason: describeRule(matched) }
            : { decision: "allow", by: "rule", scope: "once", rule, reason: describeRule(matched) }
        }

        const stored = yield* Effect.either(currentAlways)
        if (stored._tag === "Left") {
          // Without the stored answers a remembered deny could be missed: only a person decides.
          return { decision: "ask", firm: true, reason: `the remembered answers cannot be read (${stored.left.message})` }
        }
        const remembered: ReadonlyArray<readonly ["session" | "always", ReadonlyArray<RememberedApproval>]> = [
          ["session", (yield* Ref.get(session)).get(check.sessionId) ?? []],
          ["always", stored.right.approvals]
        ]
        const find = (decision: "allow" | "deny", match: "yes" | "maybe") => {
          for (const [scope, entries] of remembered) {
            const index = entries.findIndex((entry) => entry.decision === decision && rememberedMatches(entry, workspaceRoot, tool, call, paths, check.input) === match)
            const entry = entries[index]
            if (entry !== undefined) return { scope, index, entry }
          }
          return undefined
        }
        // A remembered deny beats a remembered allow, whatever their scopes.
        const found = find("deny", "yes") ?? find("allow", "yes")
        if (found !== undefined) {
          const { scope, index, entry } = found
          const pattern = entry.commands?.join(", ") ?? entry.paths?.join(", ")
          return {
            decision: entry.decision,
            by: "remembered",
            scope,
            // In RuleRef's field order: events are checked to read back exactly as built.
            rule: { source: scope, index, tool: entry.tool, ...(pattern === undefined ? {} : { pattern }), id: idOf(entry) },
            reason: `an earlier answer, ${scope === "session" ? "for this session" : "always"}${pattern === undefined ? "" : ` (${pattern})`}`
          }
        }
        const unsure = find("deny", "maybe")
        if (unsure !== undefined) {
          return {
            decision: "ask",
            firm: true,
            reason: `an earlier deny (${unsure.entry.commands?.join(", ") ?? ""}) may apply: a word of the line is only known when it runs`
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

    const lasting: PermissionEngineShape["lasting"] = (check) =>
      Effect.sync(() => coverFor(check.workspaceRoot, check.tool, check.call, callPaths(check.call), check.input))

    const remember: PermissionEngineShape["remember"] = Effect.fn("PermissionEngine.remember")(function* (check, decision, scope, cover, chosen) {
      // Never wider than the question offered, whoever answered: a refusal stores nothing.
      const stored = chosenCover(cover, chosen)
      if (Either.isLeft(stored)) return yield* new CoverNotOffered({ message: `not remembered: ${stored.left}` })
      const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      const entry: RememberedApproval = {
        ...stored.right,
        id: `ans_${randomBytes(8).toString("hex")}`,
        workspaceRoot: check.workspaceRoot,
        decision,
        createdAt
      }
      if (scope === "session") {
        yield* Ref.update(session, (map) => new Map(map).set(check.sessionId, [...(map.get(check.sessionId) ?? []), entry]))
        return listed(entry, "session", check.sessionId)
      }
      return yield* changeAlways((content) => Effect.succeed([{ ...content, approvals: [...content.approvals, entry] }, listed(entry, "always")] as const))
    })

    const listRemembered: PermissionEngineShape["listRemembered"] = Effect.fn("PermissionEngine.listRemembered")(function* (filter) {
      const stored = (yield* currentAlways).approvals.map((entry) => listed(entry, "always"))
      const held = [...(yield* Ref.get(session)).entries()].flatMap(([sessionId, entries]) => entries.map((entry) => listed(entry, "session", sessionId)))
      const root = filter?.workspaceRoot
      return [...stored, ...held].filter((answer) => root === undefined || answer.workspaceRoot === root)
    })

    const revokeRemembered: PermissionEngineShape["revokeRemembered"] = Effect.fn("PermissionEngine.revokeRemembered")(function* (id, by) {
      const revokedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      // A session answer lives in this process; its revocation is kept in the file all the same.
      const sessions = yield* Ref.get(session)
      for (const [sessionId, entries] of sessions) {
        const entry = entries.find((e) => idOf(e) === id)
        if (entry === undefined) continue
        const answer = listed(entry, "session", sessionId)
        yield* changeAlways((content) => Effect.succeed([{ ...content, revoked: [...(content.revoked ?? []), { answer, revokedAt, by }] }, answer] as const))
        yield* Ref.update(session, (map) => new Map(map).set(sessionId, (map.get(sessionId) ?? []).filter((e) => idOf(e) !== id)))
        return answer
      }
      return yield* changeAlways((content) => {
        const entry = content.approvals.find((e) => idOf(e) === id)
        if (entry === undefined) {
          return Effect.fail(new RememberedAnswerNotFound({ id, message: `no remembered answer has the id ${id}` }))
        }
        const answer = listed(entry, "always")
        const next: ApprovalsFile = {
          approvals: content.approvals.filter((e) => idOf(e) !== id),
          revoked: [...(content.revoked ?? []), { answer, revokedAt, by }]
        }
        return Effect.succeed([next, answer] as const)
      })
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
        files: loaded.files,
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
        return statusOf(workspaceRoot, loaded, yield* trusted)
      })

    const trustProject: PermissionEngineShape["trustProject"] = (workspaceRoot, sha256, by) =>
      Effect.gen(function* () {
        const loaded = yield* loadedRules(workspaceRoot)
        if (loaded.sha256 === undefined) return yield* new ProjectTrustError({ message: `${workspaceRoot} has no project configuration to trust` })
        if (loaded.sha256 !== sha256) {
          return yield* new ProjectTrustError({ message: `the configuration of ${workspaceRoot} changed since it was shown (its hash is now ${loaded.sha256}); review it again` })
        }
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()
        // Read from disk, never from this process's copy: another process's trust since stays.
        // The file's older trust goes from the list: one entry per file, the latest content.
        const next = yield* trusting.withPermits(1)(
          Effect.gen(function* () {
            const entries = [...(yield* loadTrustFile(trustFile)).filter((entry) => entry.file !== loaded.file), { file: loaded.file, sha256, trustedAt: now, by }]
            yield* saveTrustFile(trustFile, entries)
            return entries
          })
        )
        return statusOf(workspaceRoot, loaded, next)
      })

    const forgetSession = (sessionId: string) =>
      Ref.update(session, (map) => {
        if (!map.has(sessionId)) return map
        const next = new Map(map)
        next.delete(sessionId)
        return next
      })

    return PermissionEngine.of({ decide, lasting, remember, listRemembered, revokeRemembered, forgetSession, projectTrust, trustProject })
  })

export const layer = (options: PermissionEngineOptions) => Layer.effect(PermissionEngine, make(options))
