import type { HiddenPath } from "./hidden-paths.js"
import { isWithin } from "../tools/workspace-paths.js"

/**
 * bubblewrap's command line, built from plain data (no I/O here). The order of the mounts is
 * the policy: a read-only root, a private /dev, /proc and /tmp, the hidden paths that hold the
 * workspace, the workspace writable, the protected paths bound read-only over it, then every
 * other hidden path (so a hidden path inside the workspace stays hidden).
 */

/** How the protected paths inside the workspace are held (see protected-paths.ts). */
export interface MountPlan {
  /**
   * Directories between the workspace root and a protected path, bound writable onto
   * themselves, parent first: a mount point cannot be renamed or removed, so a protected path
   * below one stays where the host will look for it.
   */
  readonly pinned: ReadonlyArray<string>
  /** Paths bound read-only onto themselves, parent first. */
  readonly readOnly: ReadonlyArray<string>
}

export interface BwrapCommand {
  readonly network: boolean
  /** Give the command a session of its own, cut off from our terminal (see SandboxRequest.detached). */
  readonly newSession: boolean
  /** Absolute, symlinks resolved. */
  readonly workspaceRoot: string
  readonly cwd: string
  readonly mounts: MountPlan
  /** Host directories that hold local sockets (`/run`): hidden while the network is off. */
  readonly socketDirs: ReadonlyArray<string>
  /**
   * Host directories under the private /tmp that the caller's configuration names (never the
   * model's command line): shown read-only, so a server the user installed under /tmp starts.
   */
  readonly visible: ReadonlyArray<string>
  /** Paths the command sees empty (hidden-paths.ts). */
  readonly hidden: ReadonlyArray<HiddenPath>
  /** The descriptor bubblewrap reads a seccomp filter from (seccomp.ts), if there is one. */
  readonly seccompFd: number | undefined
}

/**
 * The top-level /tmp entries (`/tmp/x`) that absolute paths in a configured command or its
 * directory lie under: what the private /tmp would otherwise hide from it.
 */
export const hiddenByTmp = (paths: ReadonlyArray<string>): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const p of paths) {
    const match = /^\/tmp\/([^/]+)/.exec(p)
    if (match !== null && match[1] !== "." && match[1] !== "..") found.add(`/tmp/${match[1]}`)
  }
  return [...found]
}

/**
 * Every namespace unshared (the network with its own loopback, unless opened), the sandbox
 * killed with us, and no capabilities: as root, a capability would let the command unmount
 * the read-only binds.
 */
export const namespaceArguments = (network: boolean, newSession: boolean, seccompFd?: number): ReadonlyArray<string> => [
  "--unshare-all",
  ...(network ? ["--share-net"] : []),
  "--die-with-parent",
  ...(newSession ? ["--new-session"] : []),
  "--cap-drop",
  "ALL",
  ...(seccompFd === undefined ? [] : ["--seccomp", String(seccompFd)])
]

const hide = (hidden: HiddenPath): ReadonlyArray<string> =>
  hidden.kind === "directory" ? ["--tmpfs", hidden.path, "--remount-ro", hidden.path] : ["--ro-bind", "/dev/null", hidden.path]

/** The whole host read-only, with a private /dev, /proc and /tmp. */
export const baseMounts: ReadonlyArray<string> = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]

/** Arguments of `bwrap`, up to and including the `--` before the command. */
export const bwrapArguments = (command: BwrapCommand): ReadonlyArray<string> => [
  ...namespaceArguments(command.network, command.newSession, command.seccompFd),
  ...baseMounts,
  ...(command.network ? [] : command.socketDirs.flatMap((dir) => ["--tmpfs", dir])),
  ...command.visible.flatMap((dir) => ["--ro-bind-try", dir, dir]),
  // A hidden folder that holds the workspace: hidden before the workspace is bound into it.
  ...command.hidden.filter((h) => h.path !== command.workspaceRoot && isWithin(h.path, command.workspaceRoot)).flatMap(hide),
  // After the tmpfs mounts: a workspace under /tmp or /run stays visible.
  "--bind",
  command.workspaceRoot,
  command.workspaceRoot,
  ...command.mounts.pinned.flatMap((dir) => ["--bind", dir, dir]),
  ...command.mounts.readOnly.flatMap((path) => ["--ro-bind", path, path]),
  ...command.hidden.filter((h) => !isWithin(h.path, command.workspaceRoot)).flatMap(hide),
  "--chdir",
  command.cwd,
  "--"
]
