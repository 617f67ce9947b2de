import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { homedir, platform, tmpdir } from "node:os"
import { join } from "node:path"
import type { SandboxProfile } from "../../domain/sandbox.js"
import { Sandbox, SandboxError, type SandboxShape, SandboxUnavailable } from "../../services/Sandbox.js"
import { bwrapArguments, hiddenByTmp } from "./arguments.js"
import { type Availability, detect, socketDirectories } from "./detect.js"
import { sandboxOff, unsandboxed } from "./off.js"
import * as Placeholders from "./placeholders.js"
import { readWhenChanged } from "../changed-file.js"
import { hiddenPaths } from "./hidden-paths.js"
import { launch, SECCOMP_FD } from "./launcher.js"
import { findNestedGit, nestedGitPaths } from "./nested-git.js"
import { planMounts, protectedPaths } from "./protected-paths.js"
import { unixSocketFilter } from "./seccomp.js"
import {
  projectNetworkSetting,
  readNetworkSetting,
  readUserSandboxSettings,
  type SandboxMode,
  type SandboxSettingsError,
  userSettingsFile
} from "./settings.js"

export interface SandboxOptions {
  readonly mode: SandboxMode
  /** `--sandbox-network`: open the network whatever the settings say. */
  readonly network?: boolean
  /** The user's configuration directory: read-only inside, and its `settings.json` may open the network. */
  readonly configDir: string
  /** The data directory: read-only inside. */
  readonly dataDir: string
  /** The project's say on the network; the composition may gate it behind project trust. Default: `projectNetworkSetting`. */
  readonly projectNetwork?: (workspaceRoot: string) => Effect.Effect<Option.Option<boolean>, SandboxSettingsError>
  /** Default `bwrap`, looked up on PATH. */
  readonly bwrapPath?: string
  /** Default: this machine's. */
  readonly platform?: NodeJS.Platform
  readonly env?: NodeJS.ProcessEnv
}

const UNAVAILABLE: SandboxProfile = { _tag: "none", reason: "unavailable" }

/**
 * The seccomp filter, written once into a private folder of its own (removed with the layer's
 * scope) for the launcher to open for bubblewrap; undefined where this architecture has none.
 */
const filterFile = (): Effect.Effect<string | undefined, SandboxError, Scope.Scope> => {
  const filter = unixSocketFilter()
  if (filter === undefined) return Effect.succeed(undefined)
  return Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const dir = await mkdtemp(join(tmpdir(), "custom-agent-seccomp-"))
        await writeFile(join(dir, "no-unix-sockets.bpf"), filter, { mode: 0o400 })
        return dir
      },
      catch: (error) => new SandboxError({ message: `cannot write the sandbox's seccomp filter: ${String(error)}`, cause: error })
    }),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => join(dir, "no-unix-sockets.bpf")))
}

/** The network setting of one file; a file we cannot use is said once and counts as saying nothing. */
const settingOrWarn = (read: Effect.Effect<Option.Option<boolean>, SandboxSettingsError>) =>
  read.pipe(Effect.catchAll((error) => Effect.as(Effect.logWarning(`sandbox setting ignored: ${error.message}`), Option.none<boolean>())))

const unavailableWarning = (reason: string) =>
  `no sandbox: ${reason}; shell commands and stdio MCP servers run unsandboxed, so every shell call asks first (--sandbox off silences this)`

/**
 * The bubblewrap sandbox. Whether bubblewrap works is found out once, in the background from
 * the moment the layer is built (start-up does not wait on it unless the mode is `on`); in
 * `auto`, a failure is one warning, and every profile from then on is `none/unavailable`.
 */
export const make = (options: SandboxOptions): Effect.Effect<SandboxShape, SandboxUnavailable, Scope.Scope> =>
  Effect.gen(function* () {
    if (options.mode === "off") return sandboxOff
    const availability = yield* Effect.cached(
      detect({ bwrapPath: options.bwrapPath ?? "bwrap", platform: options.platform ?? platform(), env: options.env ?? process.env }).pipe(
        Effect.tap((found) => (found._tag === "unavailable" && options.mode === "auto" ? Effect.logWarning(unavailableWarning(found.reason)) : Effect.void))
      )
    )
    if (options.mode === "on") {
      const found = yield* availability
      if (found._tag === "unavailable") return yield* new SandboxUnavailable({ reason: found.reason })
    } else {
      yield* Effect.forkScoped(availability)
    }
    // The user's settings as the file is at each command (read again when it changed): a path
    // hidden, or the network closed, while a host runs holds for its next command.
    const settingsFile = userSettingsFile(options.configDir)
    const userNetwork = yield* readWhenChanged(settingsFile, settingOrWarn(readNetworkSetting(settingsFile)))
    const userSettings = yield* readWhenChanged(
      settingsFile,
      readUserSandboxSettings(settingsFile).pipe(
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning(`sandbox settings ignored (defaults kept): ${error.message}`), { hide: [], reveal: [], allowUnixSockets: false })
        )
      )
    )
    const layerScope = yield* Effect.scope
    const filter = yield* Effect.cached(Scope.extend(filterFile(), layerScope))
    const socketDirs = yield* Effect.cached(socketDirectories())
    const placeholders = yield* Placeholders.make
    // The repositories nested in a workspace when its first command starts, walked once: one a
    // command makes later is that command's own, and holding it would guard nothing of the user's.
    const nestedGit = new Map<string, ReadonlyArray<string>>()
    const nestedGitOf = (workspaceRoot: string) =>
      Effect.sync(() => {
        const known = nestedGit.get(workspaceRoot)
        if (known !== undefined) return known
        const found = findNestedGit(workspaceRoot)
        nestedGit.set(workspaceRoot, found)
        return found
      })
    const projectNetwork = options.projectNetwork ?? projectNetworkSetting

    const profile: SandboxShape["profile"] = (workspaceRoot) =>
      Effect.gen(function* () {
        if ((yield* availability)._tag === "unavailable") return UNAVAILABLE
        if (options.network === true) return { _tag: "bwrap", network: true }
        const project = yield* settingOrWarn(projectNetwork(workspaceRoot))
        const network = Option.isSome(project) ? project.value : Option.getOrElse(yield* userNetwork, () => false)
        return { _tag: "bwrap", network }
      })

    const wrap: SandboxShape["wrap"] = (request) =>
      Effect.gen(function* () {
        const found: Availability = yield* availability
        if (request.profile._tag === "none" || found._tag === "unavailable") return yield* unsandboxed(request.profile, request.argv)
        const workspaceRoot = yield* Effect.tryPromise({
          try: () => realpath(request.workspaceRoot),
          catch: (error) => new SandboxError({ message: `cannot find the workspace ${request.workspaceRoot}: ${String(error)}`, cause: error })
        })
        const own = yield* protectedPaths(workspaceRoot, options.configDir, options.dataDir)
        const nested = yield* Effect.flatMap(nestedGitOf(workspaceRoot), (found) => nestedGitPaths(workspaceRoot, found))
        const plan = yield* planMounts(workspaceRoot, [...own, ...nested])
        yield* placeholders.hold(plan.inside)
        const settings = yield* userSettings
        const home = (options.env ?? process.env)["HOME"] ?? homedir()
        const filterPath = settings.allowUnixSockets ? undefined : yield* filter
        const args = bwrapArguments({
          network: request.profile.network,
          newSession: !request.detached,
          workspaceRoot,
          cwd: request.cwd,
          mounts: plan.mounts,
          socketDirs: yield* socketDirs,
          visible: hiddenByTmp(request.configuredPaths ?? []),
          hidden: yield* hiddenPaths({ home, configDir: options.configDir, dataDir: options.dataDir, settings }),
          seccompFd: filterPath === undefined ? undefined : SECCOMP_FD
        })
        // Through the launcher, whatever the filter: it closes what the agent inherited (launcher.ts).
        return launch(filterPath, [found.bwrapPath, ...args, ...request.argv])
      })

    return Sandbox.of({ profile, wrap })
  })

export const layer = (options: SandboxOptions): Layer.Layer<Sandbox, SandboxUnavailable> => Layer.scoped(Sandbox, make(options))
