import { createHash } from "node:crypto"
import { readFileSync, statSync } from "node:fs"
import { isAbsolute, relative, resolve } from "node:path"

/** A script bigger than this is judged by its size and time instead of its content. */
const SCRIPT_HASH_MAX_BYTES = 1024 * 1024

const PROJECT_DIR = /^\$(?:\{(?:CLAUDE_PROJECT_DIR|CUSTOM_AGENT_PROJECT_DIR)\}|CLAUDE_PROJECT_DIR|CUSTOM_AGENT_PROJECT_DIR)(?=\/)/

/**
 * The files inside the workspace a hook's command names (`.claude/hooks/guard.sh`,
 * `$CLAUDE_PROJECT_DIR/scripts/fmt.js`, `./check`): the words holding a `/`, the project
 * variables put in, relative ones taken from the workspace (where hooks run), sorted. Only
 * regular files count; what a script in turn runs is not followed.
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
      if (statSync(path, { throwIfNoEntry: false })?.isFile() === true) found.add(path)
    }
  }
  return [...found].sort()
}

/**
 * What trust keys a hook's scripts by: each one's workspace-relative path and content hash. A
 * script the agent (or anyone) edits after the project was trusted needs trust again, as an edit
 * of the settings file does: a trusted hook must not become a way to run what nobody approved.
 */
export const hookScriptsDigest = (workspaceRoot: string, paths: ReadonlyArray<string>): string =>
  paths
    .map((path) => {
      const stat = statSync(path, { throwIfNoEntry: false })
      const name = relative(workspaceRoot, path)
      if (stat === undefined) return `\0script\0${name}\0gone`
      if (stat.size > SCRIPT_HASH_MAX_BYTES) return `\0script\0${name}\0${stat.size}:${stat.mtimeMs}`
      return `\0script\0${name}\0${createHash("sha256").update(readFileSync(path)).digest("hex")}`
    })
    .join("")

/** The scripts' sizes and times, to tell when they must be read again. */
export const hookScriptsStamp = (paths: ReadonlyArray<string>): string =>
  paths
    .map((path) => {
      try {
        const stat = statSync(path, { throwIfNoEntry: false })
        return stat === undefined ? "-1" : `${stat.mtimeMs}:${stat.size}:${stat.ino}`
      } catch {
        return "-2"
      }
    })
    .join("|")
