import * as Effect from "effect/Effect"
import { askLine, isYes } from "./ask-line.js"
import { writeSync } from "./io.js"
import { untrustedMcpNote } from "./mcp-config-check.js"
import { term } from "./terminal-text.js"
import { promptForTrust, type TrustAccess } from "./trust-prompt.js"

export interface OtherWorkspace<E> {
  readonly sessionId: string
  /** The session's own workspace. */
  readonly workspace: string
  /** Where `run` was started. */
  readonly here: string
  /** Where that workspace's trust is read and given; undefined when a policy answers (`--approve`): its trust is not asked, as for the current folder. */
  readonly trust: TrustAccess<E> | undefined
  readonly io: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream }
}

/**
 * `run --session` of a session that works in another folder, on a terminal: the session keeps
 * its own workspace, which is said plainly, and the person decides whether to continue it
 * there (no, an empty line too, continues nothing); then its configuration's trust is asked
 * as it is for the folder `run` starts in, and what stays off without it is named. The same
 * decision the interactive session's `/resume` asks for (`interactive/other-workspace.ts`).
 */
export const continueElsewhere = <E>(question: OtherWorkspace<E>): Effect.Effect<boolean, E> =>
  Effect.gen(function* () {
    const { sessionId, workspace, here, io } = question
    writeSync(io.output, term`session ${sessionId} works in ${workspace}, not in ${here}: continued from here, its tools read, write and run commands in ${workspace}, under that folder's rules.\n`)
    if (!isYes(yield* askLine(io.input, io.output, "Continue it there? [y/N] "))) return false
    if (question.trust === undefined) return true
    const trust = yield* promptForTrust(question.trust, workspace, io)
    const skipped = untrustedMcpNote(trust)
    if (skipped !== undefined) writeSync(io.output, skipped)
    return true
  })
