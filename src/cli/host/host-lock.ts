import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { randomBytes } from "node:crypto"
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs"
import { join } from "node:path"
import { CliError } from "../errors.js"

/**
 * The data directory's host lock (`host.lock`): whoever changes what is at the host socket's
 * path (removes a dead host's socket, binds its own, removes its own at exit) holds it, so two
 * hosts starting at once cannot both find the path free, nor one remove the other's socket.
 * It is a file made with O_EXCL holding its holder's pid, that process's start time and a
 * nonce; one whose holder no longer runs (a host killed while starting) is broken.
 */
export const hostLockPath = (dataDir: string) => join(dataDir, "host.lock")

interface Holder {
  readonly pid: number
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat`), where known: a reused pid is another process. */
  readonly started?: string
  readonly nonce: string
}

export interface HostLock {
  /** Removes the lock if it is still this holder's; safe to call more than once. */
  readonly release: Effect.Effect<void>
}

const startTimeOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) may hold spaces and parentheses: fields count from its last `)`.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    return undefined
  }
}

const runs = (holder: Holder): boolean => {
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    // EPERM: it runs, as another user.
    if (!(error instanceof Error && "code" in error && error.code === "EPERM")) return false
  }
  const started = startTimeOf(holder.pid)
  return holder.started === undefined || started === undefined || started === holder.started
}

const readHolder = (file: string): Holder | undefined => {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"))
    if (typeof parsed !== "object" || parsed === null || !("pid" in parsed) || !("nonce" in parsed)) return undefined
    const { pid, nonce } = parsed
    const started = "started" in parsed && typeof parsed.started === "string" ? parsed.started : undefined
    return typeof pid === "number" && typeof nonce === "string" ? { pid, nonce, ...(started === undefined ? {} : { started }) } : undefined
  } catch {
    return undefined
  }
}

const errorCode = (error: unknown) => (error instanceof Error && "code" in error ? error.code : undefined)

type Attempt = { readonly _tag: "Held"; readonly lock: HostLock } | { readonly _tag: "Busy"; readonly holder: string }

/** A lock file no holder finished writing in this time was left by one that died writing it. */
const UNWRITTEN_MS = 5000

const inodeOf = (file: string): bigint | undefined => {
  try {
    return statSync(file, { bigint: true }).ino
  } catch {
    return undefined
  }
}

/**
 * A lock whose holder is gone is moved aside (one atomic rename) and checked to be the very
 * file judged dead (its inode): one another process made in between is put back, never
 * overwritten.
 */
const breakDead = (file: string, dead: bigint) => {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`
  try {
    renameSync(file, aside)
  } catch {
    return
  }
  if (inodeOf(aside) !== dead) {
    try {
      linkSync(aside, file)
    } catch {
      // Another lock is there already: theirs stands.
    }
  }
  rmSync(aside, { force: true })
}

const attempt = (file: string): Attempt => {
  const started = startTimeOf(process.pid)
  const self: Holder = { pid: process.pid, nonce: randomBytes(12).toString("hex"), ...(started === undefined ? {} : { started }) }
  let fd: number
  try {
    fd = openSync(file, "wx", 0o600)
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error
    const judged = statSync(file, { bigint: true, throwIfNoEntry: false })
    const holder = readHolder(file)
    if (judged === undefined) return { _tag: "Busy", holder: "gone" }
    // Unreadable: its holder is still writing it, unless it has been so for long.
    const dead = holder === undefined ? Date.now() - Number(judged.mtimeMs) > UNWRITTEN_MS : !runs(holder)
    if (dead) breakDead(file, judged.ino)
    return { _tag: "Busy", holder: holder === undefined ? "unknown" : String(holder.pid) }
  }
  try {
    writeSync(fd, JSON.stringify(self))
  } finally {
    closeSync(fd)
  }
  let released = false
  const release = Effect.sync(() => {
    if (released) return
    released = true
    if (readHolder(file)?.nonce === self.nonce) rmSync(file, { force: true })
  })
  return { _tag: "Held", lock: { release } }
}

/** How long a host start waits for another one's start (its store, its sandbox check) before giving up. */
export const HOST_LOCK_WAIT = Duration.seconds(30)

/** Takes the data directory's host lock, waiting while another live process holds it. */
export const acquireHostLock = (dataDir: string, wait: Duration.DurationInput = HOST_LOCK_WAIT): Effect.Effect<HostLock, CliError> => {
  const file = hostLockPath(dataDir)
  return Effect.try({ try: () => attempt(file), catch: (error) => new CliError({ message: `cannot take the host lock ${file}: ${String(error)}`, cause: error }) }).pipe(
    Effect.flatMap((result) => (result._tag === "Held" ? Effect.succeed(result.lock) : Effect.fail(result.holder))),
    Effect.retry({ schedule: Schedule.spaced(Duration.millis(50)), while: (error) => typeof error === "string" }),
    Effect.timeoutFail({
      duration: wait,
      onTimeout: () => new CliError({ message: `another process held ${file} for ${Duration.format(wait)}: a host is starting or stopping there` })
    }),
    Effect.mapError((error) => (typeof error === "string" ? new CliError({ message: `another process (pid ${error}) holds ${file}` }) : error))
  )
}
