import { join } from "node:path"

/**
 * Where a data directory's local host is found: its socket and its log, both in the data
 * directory (0700, the user's alone), so only the user reaches the socket and a path nobody
 * else can write names it.
 */
export const hostSocketPath = (dataDir: string) => join(dataDir, "host.sock")

/** What the host (and a host started in the background) prints: read when it fails to start. */
export const hostLogPath = (dataDir: string) => join(dataDir, "host.log")

/** Linux's limit on a socket's path (`sun_path`, 108 bytes with its NUL). */
export const SOCKET_PATH_MAX_BYTES = 107

/** Why the host cannot listen at this path, or undefined when it can. */
export const socketPathProblem = (path: string): string | undefined =>
  Buffer.byteLength(path) > SOCKET_PATH_MAX_BYTES
    ? `the local host's socket path ${path} is ${Buffer.byteLength(path)} bytes, over the system's ${SOCKET_PATH_MAX_BYTES}: choose a shorter --data-dir`
    : undefined
