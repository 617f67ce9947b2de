import type * as Duration from "effect/Duration"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { dirname, isAbsolute, join, relative, sep } from "node:path"
import { messageOf } from "../../domain/cause-message.js"
import { CheckpointError } from "../../services/Checkpoints.js"
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "../private-files.js"
import { gitRunner, initRunner, type RunGit } from "./git.js"

/** A workspace's private repository, ready for git calls. */
export interface Repository {
  readonly workspaceRoot: string
  readonly gitDir: string
  readonly run: RunGit
}

/** `<dataDir>/checkpoints/<first 16 hex of sha256(real workspace path)>.git`. */
export const repositoryDir = (dataDir: string, workspaceRoot: string): string =>
  join(dataDir, "checkpoints", `${createHash("sha256").update(workspaceRoot).digest("hex").slice(0, 16)}.git`)

/**
 * `info/attributes` outranks every `.gitattributes` in the workspace: no line-ending, filter,
 * ident or encoding conversion, so a file is stored and restored byte for byte.
 */
const ATTRIBUTES = "* -text -eol -ident -filter -working-tree-encoding\n"

/** A gitignore pattern matching exactly this workspace-relative folder (every special character escaped). */
const anchoredFolder = (path: string) => `/${path.split(sep).join("/").replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}/\n`

/**
 * `info/exclude`: our data directory when it lies inside the workspace, so we never store our
 * own repository. A path with a line break cannot be written as a pattern: refused.
 */
const excludes = (dataDir: string, workspaceRoot: string): string | undefined => {
  const inside = relative(workspaceRoot, realpathSync(dataDir))
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return ""
  return /[\r\n]/.test(inside) ? undefined : anchoredFolder(inside)
}

const writeIfChanged = (file: string, text: string) => {
  if (existsSync(file) && readFileSync(file, "utf8") === text) return
  ensurePrivateDir(dirname(file))
  writeFileSync(file, text, { mode: PRIVATE_FILE_MODE })
}

const attempt = <A>(workspaceRoot: string, doing: string, f: () => A) =>
  Effect.try({
    try: f,
    catch: (cause) => new CheckpointError({ workspaceRoot, message: `${doing}: ${messageOf(cause)}`, cause })
  })

export interface RepositoryOptions {
  readonly dataDir: string
  readonly git: string
  readonly callTimeout: Duration.DurationInput
  /** A call of this workspace's was stopped by its time limit, and why. */
  readonly stopped: (workspaceRoot: string, why: string) => Effect.Effect<void>
}

/**
 * Opens (creating on first use, folders 0700) the private repository of a workspace given by
 * its real path. Its info files are rewritten only when they differ, so the untracked cache
 * (which checks their content) stays valid.
 */
export const openRepository = (
  executor: CommandExecutor.CommandExecutor,
  options: RepositoryOptions,
  workspaceRoot: string
): Effect.Effect<Repository, CheckpointError> =>
  Effect.gen(function* () {
    const gitDir = repositoryDir(options.dataDir, workspaceRoot)
    const target = { git: options.git, gitDir, workspaceRoot, callTimeout: options.callTimeout, onStopped: (why: string) => options.stopped(workspaceRoot, why) }
    const fresh = yield* attempt(workspaceRoot, `cannot create ${dirname(gitDir)}`, () => {
      ensurePrivateDir(dirname(gitDir))
      return !existsSync(join(gitDir, "HEAD"))
    })
    if (fresh) {
      yield* attempt(workspaceRoot, `cannot create ${gitDir}`, () => ensurePrivateDir(gitDir))
      yield* initRunner(executor, target)(["init", "--quiet", "--bare", "--template=", "--initial-branch=checkpoints", "--shared=0600", gitDir])
      // Which workspace this is, for a person pruning the data directory (the folder name is a hash).
      yield* attempt(workspaceRoot, `cannot write ${gitDir}`, () => writeFileSync(join(gitDir, "workspace"), `${workspaceRoot}\n`, { mode: PRIVATE_FILE_MODE }))
    }
    const exclude = yield* attempt(workspaceRoot, `cannot resolve ${options.dataDir}`, () => excludes(options.dataDir, workspaceRoot))
    if (exclude === undefined) {
      return yield* new CheckpointError({ workspaceRoot, message: `the data directory ${options.dataDir} is inside the workspace under a name with a line break` })
    }
    yield* attempt(workspaceRoot, `cannot write ${gitDir}/info`, () => {
      writeIfChanged(join(gitDir, "info", "attributes"), ATTRIBUTES)
      writeIfChanged(join(gitDir, "info", "exclude"), exclude)
    })
    return { workspaceRoot, gitDir, run: gitRunner(executor, target) }
  })
