import { resolve } from "node:path"

/**
 * Why a client in `clientCwd` may not go on with a session that works in `sessionCwd`, or
 * none when they are the same folder. A session's workspace is what its permission rules,
 * accept-edits and the sandbox are relative to; a log (an imported one above all) may name
 * any folder, `$HOME` included, so running it from a project must never quietly widen the
 * agent's reach to that folder: the person has to go there on purpose.
 */
export const workspaceMismatch = (sessionId: string, sessionCwd: string, clientCwd: string): string | undefined =>
  resolve(sessionCwd) === resolve(clientCwd)
    ? undefined
    : `session ${sessionId} works in ${sessionCwd}, not in ${clientCwd}: it would act on that folder, so it is only continued from there`
