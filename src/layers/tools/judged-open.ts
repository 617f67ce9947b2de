import * as fs from "node:fs"
import { errnoCode } from "./fs-errors.js"

/**
 * Opening the very file a call was judged on. The permission check resolves a path where the
 * kernel does (links followed) and judges that real location; a process running meanwhile (a
 * sandboxed server, a hook) could then swap a name on the path for a link elsewhere before the
 * tool opens it. So the tool opens the name, asks the kernel which file it got
 * (`/proc/self/fd/N`), and goes on only when that is the judged one: no window between a check
 * and the open.
 */

/** Refused: the path leads somewhere other than where it was judged. */
export class MovedError extends Error {
  constructor(
    readonly path: string,
    readonly judged: string,
    readonly opened: string
  ) {
    super(`${path} now leads to ${opened}, not to ${judged} where the call was judged (a link changed in between); nothing was done`)
  }
}

/** Which file an open descriptor is, where /proc tells; undefined elsewhere. */
const openedPath = (fd: number): string | undefined => {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
}

/** Where /proc cannot tell, the name resolved right after the open: a narrower window, not none. */
const locationOf = (fd: number, path: string): string => openedPath(fd) ?? fs.realpathSync(path)

/** Opens `path` for reading (without blocking on a fifo) and checks it is `judged`; the caller closes it. */
export const openJudgedForRead = (path: string, judged: string): number => {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY)
  try {
    const opened = locationOf(fd, path)
    if (opened !== judged) throw new MovedError(path, judged, opened)
    return fd
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
}

/**
 * Opens `path` for writing, creating it when missing (not truncated yet), and checks it is
 * `judged`; a file it created elsewhere is removed again. The caller truncates, writes and closes.
 */
export const openJudgedForWrite = (path: string, judged: string): number => {
  const base = fs.constants.O_WRONLY | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK
  let created = true
  let fd: number
  try {
    fd = fs.openSync(path, base | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o666)
  } catch (error) {
    if (errnoCode(error) !== "EEXIST") throw error
    created = false
    fd = fs.openSync(path, base)
  }
  try {
    const opened = locationOf(fd, path)
    if (opened !== judged) {
      if (created) fs.rmSync(opened, { force: true })
      throw new MovedError(path, judged, opened)
    }
    return fd
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
}

/**
 * The entries of the directory at `path`, checked to be `judged` (its real location) once
 * opened, and read through that descriptor where /proc names it: a folder swapped for a link
 * while a walk runs is never listed through the link.
 */
export const readJudgedDirectory = async (path: string, judged: string): Promise<Array<fs.Dirent>> => {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NONBLOCK)
  try {
    const proc = openedPath(fd)
    const opened = proc ?? fs.realpathSync(path)
    if (opened !== judged) throw new MovedError(path, judged, opened)
    // `/proc/self/fd/N` is the opened directory itself, whatever its name leads to by now.
    return await fs.promises.readdir(proc === undefined ? path : `/proc/self/fd/${fd}`, { withFileTypes: true })
  } finally {
    fs.closeSync(fd)
  }
}
