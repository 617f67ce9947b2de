import type { TrustPart } from "./trust-hash.js"
import { createHash } from "node:crypto"
import { type Stats, statSync } from "node:fs"
import { messageOf } from "../../domain/cause-message.js"
import { isAbsolute, join, relative, resolve } from "node:path"
import { readBoundedBytesSync } from "../bounded-file.js"
import { isWithin, realLocation } from "../tools/workspace-paths.js"

/** A hook's script bigger than this is never trusted: it could not be hashed before every run. */
const SCRIPT_MAX_BYTES = 16 * 1024 * 1024

const PROJECT_DIR = /^\$(?:\{(?:CLAUDE_PROJECT_DIR|CUSTOM_AGENT_PROJECT_DIR)\}|CLAUDE_PROJECT_DIR|CUSTOM_AGENT_PROJECT_DIR)(?=\/)/

/** The folders a project hook's scripts must lie in: the agent may not change them (protected paths). */
export const HOOK_SCRIPT_FOLDERS: ReadonlyArray<string> = [".claude", ".custom-agent"]

/**
 * The paths inside the workspace a hook's command names (`.claude/hooks/guard.sh`,
 * `$CLAUDE_PROJECT_DIR/scripts/fmt.js`, `./check`): the words holding a `/`, the project
 * variables put in, relative ones taken from the workspace (where hooks run), sorted. A file, or
 * nothing yet (a script missing at trust time is part of the trust as missing, so creating it
 * later needs trust again); folders are not scripts. What a script in turn runs is not followed.
 */
export const hookScriptPaths = (workspaceRoot: string, commands: ReadonlyArray<string>): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const command of commands) {
    for (const raw of command.split(/[\s;&|()<>`]+/)) {
      // Quotes removed as the shell would (`"$CLAUDE_PROJECT_DIR"/x.sh` is one word).
      const word = raw.replace(/["']/g, "").replace(PROJECT_DIR, workspaceRoot)
      if (!word.includes("/") || word.includes("$")) continue
      const path = resolve(workspaceRoot, word)
      const inside = relative(workspaceRoot, path)
      if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) continue
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory() !== true) found.add(path)
    }
  }
  return [...found].sort()
}

/**
 * What trust keys a hook's scripts by: each one's workspace-relative path and the hash of its
 * content, read in full every time (no size or time shortcut: an edit that restores them is
 * still seen). A missing, unreadable or oversized script has a fixed mark instead.
 */
export const hookScriptsDigest = (workspaceRoot: string, paths: ReadonlyArray<string>): ReadonlyArray<TrustPart> =>
  paths.map((path) => {
    const name = `script ${relative(workspaceRoot, path)}`
    const read = readBoundedBytesSync(path, SCRIPT_MAX_BYTES)
    switch (read._tag) {
      case "missing":
        return [name, "gone"]
      case "refused":
        return [name, "unusable"]
      case "bytes":
        return [name, createHash("sha256").update(read.bytes).digest("hex")]
    }
  })

/**
 * Why a project hook's command may not run as trusted, or undefined when it may: every script
 * it names must be a regular file under `.claude/` or `.custom-agent/` (judged where the kernel
 * resolves it), where the agent cannot change it between the hash and the run; elsewhere in the
 * workspace the agent could swap it in between.
 */
export const unprotectedScript = (workspaceRoot: string, command: string): string | undefined => {
  const folders = HOOK_SCRIPT_FOLDERS.map((name) => realLocation(join(workspaceRoot, name)))
  for (const path of hookScriptPaths(workspaceRoot, [command])) {
    const name = relative(workspaceRoot, path)
    // Judged by its metadata: its content was just hashed for the trust (hookScriptsDigest).
    let stat: Stats | undefined
    try {
      stat = statSync(path, { throwIfNoEntry: false })
    } catch (error) {
      return `its script ${name} cannot be inspected (${messageOf(error)})`
    }
    if (stat === undefined) return `its script ${name} does not exist`
    if (!stat.isFile()) return `its script ${name} is not a regular file`
    if (stat.size > SCRIPT_MAX_BYTES) return `its script ${name} is larger than ${SCRIPT_MAX_BYTES} bytes`
    const real = realLocation(path)
    if (!folders.some((folder) => isWithin(folder, real))) {
      return `its script ${name} lies outside .claude/ and .custom-agent/, where the agent could change it; move it there`
    }
  }
  return undefined
}
