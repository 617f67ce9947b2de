import { trustHash } from "./trust-hash.js"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { statSync } from "node:fs"
import { join } from "node:path"
import * as Either from "effect/Either"
import { type ConfiguredHook, describeHook, hooksOfSettings } from "../../domain/hooks.js"
import type { PermissionRule } from "../../domain/permissions.js"
import { parseJson } from "../optional-json-file.js"
import { networkSettingOf, projectSettingsFile } from "../sandbox/settings.js"
import { readBoundedSync } from "../bounded-file.js"
import { hookScriptPaths, hookScriptsDigest } from "./hook-scripts.js"
import { projectMcpFile, projectMcpHashPart, projectMcpServers } from "./project-mcp.js"
import { decodeRules, PermissionsFileError } from "./rules-file.js"

export const projectRulesFile = (workspaceRoot: string) => join(workspaceRoot, ".custom-agent", "permissions.json")
/** Claude Code's project settings: only its `hooks` are read, and they are trusted with the rest. */
export const claudeSettingsFile = (workspaceRoot: string) => join(workspaceRoot, ".claude", "settings.json")

/** A project's rules and settings as read: their content's hash (what trust is keyed by), its rules, what it opens. */
export interface ProjectRules {
  readonly file: string
  /** Absent when the project has neither a rules nor a settings file. */
  readonly sha256?: string
  readonly rules: ReadonlyArray<PermissionRule>
  /** The project's settings open the sandbox's network (only honoured once trusted). */
  readonly opensNetwork: boolean
  /** The project's hook commands, one line each (they run only once trusted). */
  readonly hooks: ReadonlyArray<string>
  /** Files in the workspace those commands name; their content is part of `sha256`. */
  readonly hookScripts: ReadonlyArray<string>
  /** The servers of the project's `.custom-agent/mcp.json`, one line each (they start only once trusted). */
  readonly mcpServers: ReadonlyArray<string>
  /** The configuration files that exist and count in `sha256`: what a person is shown they trust. */
  readonly files: ReadonlyArray<string>
}

interface Cached {
  readonly stamp: string
  readonly loaded: ProjectRules | PermissionsFileError
  /** The hook scripts' content digest when they were read. */
  readonly scripts: string
}

/** -1 for a missing file, asked for without an exception: the file is checked on every tool call and usually absent. */
const statOf = (file: string): string => {
  try {
    const stat = statSync(file, { throwIfNoEntry: false })
    // ctime too: an edit that restores the size and the times (utimes) still moves it.
    return stat === undefined ? "-1" : `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`
  } catch {
    // Unreadable metadata reads as missing here; the read below reports the real problem.
    return "-2"
  }
}


/**
 * A file's text, none when it is missing; an unreadable one is an error naming it.
 * Synchronous, unlike readOptionalText: it runs inside a turn (its first decision, and after
 * an edit), which must not wait on a thread-pool trip for a file that is usually absent.
 */
const readText = (file: string): Effect.Effect<string | undefined, PermissionsFileError> =>
  Effect.suspend((): Effect.Effect<string | undefined, PermissionsFileError> => {
    const read = readBoundedSync(file)
    switch (read._tag) {
      case "missing":
        return Effect.succeed(undefined)
      case "refused":
        return Effect.fail(new PermissionsFileError({ file, problem: read.problem }))
      case "text":
        return Effect.succeed(read.text)
    }
  })

/** Whether a project's settings open the sandbox's network; a malformed file opens nothing (the sandbox reports it). */
const opensNetwork = (text: string | undefined): Effect.Effect<boolean> =>
  text === undefined
    ? Effect.succeed(false)
    : parseJson(text).pipe(
        Effect.flatMap(networkSettingOf),
        Effect.map((network) => Option.getOrElse(network, () => false)),
        Effect.orElseSucceed(() => false)
      )

/** The hooks a settings file holds; a malformed one holds none here (the hooks report it). */
const hooksIn = (text: string | undefined, file: string): Effect.Effect<ReadonlyArray<ConfiguredHook>> =>
  text === undefined
    ? Effect.succeed([])
    : parseJson(text).pipe(
        Effect.map((json) => Either.match(hooksOfSettings(json, "project", file), { onLeft: () => [], onRight: ({ hooks }) => hooks })),
        Effect.orElseSucceed(() => [])
      )

const read = (workspaceRoot: string): Effect.Effect<ProjectRules, PermissionsFileError> =>
  Effect.gen(function* () {
    const file = projectRulesFile(workspaceRoot)
    const text = yield* readText(file)
    const settings = yield* readText(projectSettingsFile(workspaceRoot))
    const claude = yield* readText(claudeSettingsFile(workspaceRoot))
    const mcp = yield* readText(projectMcpFile(workspaceRoot))
    const mcpServers = yield* projectMcpServers(workspaceRoot, mcp)
    const rules =
      text === undefined
        ? []
        : yield* decodeRules(file, yield* parseJson(text).pipe(Effect.mapError(({ problem }) => new PermissionsFileError({ file, problem }))))
    const claudeHooks = yield* hooksIn(claude, claudeSettingsFile(workspaceRoot))
    const configured = [...(yield* hooksIn(settings, projectSettingsFile(workspaceRoot))), ...claudeHooks]
    const hooks = configured.map(describeHook)
    const hookScripts = hookScriptPaths(workspaceRoot, configured.map((hook) => hook.command))
    // Claude Code's file counts only for its hooks: a project whose .claude/settings.json runs none
    // keeps the hash (and the trust) it had before hooks were read.
    const claudePart = claudeHooks.length === 0 ? undefined : claude
    const files = [
      ...(text === undefined ? [] : [file]),
      ...(settings === undefined ? [] : [projectSettingsFile(workspaceRoot)]),
      ...(claudePart === undefined ? [] : [claudeSettingsFile(workspaceRoot)]),
      ...(mcp === undefined ? [] : [projectMcpFile(workspaceRoot)])
    ]
    if (files.length === 0) return { file, rules, opensNetwork: false, hooks, hookScripts, mcpServers, files }
    // One hash over the files and the scripts the hooks name: trusting the rules trusts what the
    // settings open and the hooks they run, and an edit to any needs trust again.
    const hash = trustHash([
      ["permissions.json", text],
      ["settings.json", settings],
      ...(claudePart === undefined ? [] : [["claude/settings.json", claudePart] as const]),
      ...hookScriptsDigest(workspaceRoot, hookScripts),
      ...projectMcpHashPart(mcp)
    ])
    return { file, sha256: hash, rules, opensNetwork: yield* opensNetwork(settings), hooks, hookScripts, mcpServers, files }
  })

/**
 * Project rules per workspace, re-read when a file changes (size or mtime). A malformed
 * file is kept as its error: the engine fails closed on it.
 */
export const makeProjectRules = () => {
  const cache = new Map<string, Cached>()
  return (workspaceRoot: string): Effect.Effect<ProjectRules | PermissionsFileError> =>
    Effect.suspend(() => {
      const stamp = [projectRulesFile(workspaceRoot), projectSettingsFile(workspaceRoot), claudeSettingsFile(workspaceRoot), projectMcpFile(workspaceRoot)]
        .map(statOf)
        .join("|")
      const cached = cache.get(workspaceRoot)
      // The scripts by content, every time: hashed before every run, not judged by their times.
      const scriptsOf = (loaded: ProjectRules | PermissionsFileError) =>
        JSON.stringify(hookScriptsDigest(workspaceRoot, loaded instanceof PermissionsFileError ? [] : loaded.hookScripts))
      if (cached !== undefined && cached.stamp === stamp && cached.scripts === scriptsOf(cached.loaded)) return Effect.succeed(cached.loaded)
      return read(workspaceRoot).pipe(
        Effect.merge,
        Effect.tap((loaded) => Effect.sync(() => cache.set(workspaceRoot, { stamp, loaded, scripts: scriptsOf(loaded) })))
      )
    })
}
