import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { join } from "node:path"
import { type ConfiguredHook, describeHook } from "../../domain/hooks.js"
import { matcherSelects } from "./matcher.js"
import { Hooks, type HookListing, type HooksShape, type ListedHook } from "../../services/Hooks.js"
import { PermissionEngine, type PermissionEngineShape } from "../../services/PermissionEngine.js"
import { Sandbox, type SandboxShape } from "../../services/Sandbox.js"
import { type EnvironmentPolicy, SubprocessEnvironment } from "../../services/SubprocessEnvironment.js"
import { readUserEnvironmentPolicy } from "../subprocess-env-settings.js"
import { FIXED_ONLY } from "../subprocess-env.js"
import { unprotectedScript } from "../permission/hook-scripts.js"
import { claudeSettingsFile } from "../permission/project-rules.js"
import { projectSettingsFile } from "../sandbox/settings.js"
import { type FileHooks, makeHooksReader } from "./config.js"
import { runHook } from "./run-one.js"

export interface HooksOptions {
  /** The user's configuration directory: its `settings.json` holds the user's hooks (always trusted). */
  readonly configDir: string
}

interface Configured {
  readonly user: FileHooks
  readonly project: ReadonlyArray<FileHooks>
  /** The project's hooks may run: its configuration is trusted as it was read here. */
  readonly projectTrusted: boolean
}

/**
 * The project's hooks are trusted when the project's configuration is, and the hooks trusted
 * are the ones read here: the trust covers a hash of the files, and the lines it describes must
 * be these (a file that changed between the two reads runs nothing).
 */
const projectTrusted = (permissions: PermissionEngineShape, workspaceRoot: string, hooks: ReadonlyArray<ConfiguredHook>) =>
  permissions.projectTrust(workspaceRoot).pipe(
    Effect.map((trust) => {
      const described = hooks.map(describeHook)
      const trustedLines = trust.hooks ?? []
      return trust.trusted && described.length === trustedLines.length && described.every((line, i) => line === trustedLines[i])
    }),
    Effect.catchAll((error) => Effect.as(Effect.logWarning(`project hooks not run: ${error.message}`), false))
  )

export const make = (
  options: HooksOptions,
  sandbox: SandboxShape,
  permissions: PermissionEngineShape,
  environment: EnvironmentPolicy = FIXED_ONLY
): HooksShape => {
  const read = makeHooksReader()
  const userFile = join(options.configDir, "settings.json")

  /** The project hooks last said to be skipped, per workspace: said once per content, not at every tool call. */
  const warned = new Map<string, string>()
  const warnUntrusted = (workspaceRoot: string, hooks: ReadonlyArray<ConfiguredHook>) =>
    Effect.suspend(() => {
      const key = hooks.map(describeHook).join("\n")
      if (warned.get(workspaceRoot) === key) return Effect.void
      warned.set(workspaceRoot, key)
      return Effect.logWarning(`${hooks.length} project hook(s) not run: the project's configuration is not trusted (custom-agent trust)`)
    })

  /**
   * The trusted project hooks that may run now: a hook naming a script the agent could change
   * (outside `.claude/` and `.custom-agent/`), or one that is gone, runs nothing and says why.
   */
  const runnable = (workspaceRoot: string, hooks: ReadonlyArray<ConfiguredHook>) =>
    Effect.filter(hooks, (hook) => {
      const problem = unprotectedScript(workspaceRoot, hook.command)
      return problem === undefined ? Effect.succeed(true) : Effect.as(Effect.logWarning(`project hook not run (${describeHook(hook)}): ${problem}`), false)
    })

  const configured = (workspaceRoot: string): Effect.Effect<Configured> =>
    Effect.gen(function* () {
      const user = yield* read(userFile, "user")
      const project = [yield* read(projectSettingsFile(workspaceRoot), "project"), yield* read(claudeSettingsFile(workspaceRoot), "claude")]
      const projectHooks = project.flatMap((file) => file.hooks)
      const trusted = projectHooks.length === 0 ? false : yield* projectTrusted(permissions, workspaceRoot, projectHooks)
      return { user, project, projectTrusted: trusted }
    })

  const run: HooksShape["run"] = (invocation) =>
    Effect.gen(function* () {
      const { user, project, projectTrusted: trusted } = yield* configured(invocation.workspaceRoot)
      const projectHooks = project.flatMap((file) => file.hooks)
      const selected = (hooks: ReadonlyArray<ConfiguredHook>) =>
        hooks.filter((hook) => hook.event === invocation.event && matcherSelects(hook.matcher, invocation.target))
      if (!trusted && projectHooks.length > 0) yield* warnUntrusted(invocation.workspaceRoot, projectHooks)
      const hooks = [...selected(user.hooks), ...(trusted ? yield* runnable(invocation.workspaceRoot, selected(projectHooks)) : [])]
      if (hooks.length === 0) return []
      const profile = yield* sandbox.profile(invocation.workspaceRoot)
      // Concurrently, as Claude Code runs them; the runs come back in configuration order.
      return yield* Effect.forEach(hooks, (hook) => runHook(sandbox, environment, profile, hook, invocation), { concurrency: "unbounded" })
    })

  const list: HooksShape["list"] = (workspaceRoot) =>
    Effect.map(configured(workspaceRoot), ({ user, project, projectTrusted: trusted }): HookListing => {
      const files = [user, ...project]
      const hooks: Array<ListedHook> = [
        ...user.hooks.map((hook) => ({ ...hook, trusted: true })),
        ...project.flatMap((file) => file.hooks.map((hook) => ({ ...hook, trusted })))
      ]
      return {
        hooks,
        ignored: files.flatMap((file) => file.ignored),
        problems: files.flatMap((file) => (file.problem === undefined ? [] : [file.problem]))
      }
    })

  return Hooks.of({ run, list })
}

/** Hooks inherit what the SubprocessEnvironment passes, when one is provided; else what `settings.json` in `configDir` passes. */
export const layer = (options: HooksOptions): Layer.Layer<Hooks, never, Sandbox | PermissionEngine> =>
  Layer.effect(
    Hooks,
    Effect.gen(function* () {
      const [sandbox, permissions, provided] = yield* Effect.all([Sandbox, PermissionEngine, Effect.serviceOption(SubprocessEnvironment)])
      const environment = Option.isSome(provided) ? provided.value : yield* readUserEnvironmentPolicy(options.configDir)
      return make(options, sandbox, permissions, environment)
    })
  )
