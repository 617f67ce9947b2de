import type { PayloadOf } from "./events.js"

const oneLine = (text: string, max: number) => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** How a hook run ended, in a few words: `exit 0`, `exit 2`, `timed out`, `did not run`. */
export const hookEnding = (payload: PayloadOf<"hook.ran">): string =>
  payload.timedOut ? "timed out, killed" : payload.exitCode === null ? "killed or not started" : `exit ${payload.exitCode}`

/**
 * One line for a `hook.ran`, the same for `sessions show` and the web timeline: the event and
 * matcher, the command and where it is configured, how it ended, what it decided (and whether
 * that was followed), and what it told the model.
 */
export const hookSummary = (payload: PayloadOf<"hook.ran">): string => {
  const matcher = payload.matcher === undefined || payload.matcher === "" ? "" : ` [${payload.matcher}]`
  const decided = payload.decision === undefined ? "" : ` · ${payload.decision}${payload.reason === undefined ? "" : `: ${oneLine(payload.reason, 160)}`}`
  const overruled = payload.overruled === undefined ? "" : ` (not followed: ${payload.overruled})`
  const told = payload.context === undefined ? "" : " · added to the conversation"
  return `hook ${payload.event}${matcher} \`${oneLine(payload.command, 80)}\` (${payload.source}): ${hookEnding(payload)}${decided}${overruled}${told}`
}
