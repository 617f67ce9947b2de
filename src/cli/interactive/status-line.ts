import type { PermissionMode } from "../../domain/permissions.js"
import { safeInline } from "./safe-text.js"
import { type SessionState, spendText } from "./timeline.js"
import type { Theme } from "./theme.js"

/** A running turn's time so far: `12s`, `3m 05s`. */
export const elapsed = (ms: number): string => {
  const seconds = Math.floor(ms / 1000)
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`
}

export interface StatusView {
  /** The model the session's turns ask (or a new session's will). */
  readonly model: string | undefined
  readonly mode: PermissionMode
  readonly now: number
  /** The session's workspace, when it is not the folder the interactive session was started in. */
  readonly elsewhere?: string
}

/**
 * The status line under the editor: model, permission mode, the running turn's elapsed time,
 * and what the turn and the whole session spent (tokens, and the cost when the model has a
 * price). Plain parts joined by `·`; the caller fits it to the width.
 */
export const statusParts = (state: SessionState, view: StatusView): ReadonlyArray<string> => {
  const parts: Array<string> = []
  parts.push(safeInline(view.model ?? "default model"))
  parts.push(`mode ${view.mode}`)
  if (view.elsewhere !== undefined) parts.push(`in ${safeInline(view.elsewhere)}`)
  if (state.running && state.turnStartedAt !== undefined) {
    const turn = spendText(state.turnSpend)
    parts.push(`turn ${elapsed(Math.max(0, view.now - state.turnStartedAt))}${turn === undefined ? "" : ` ${turn}`}`)
  }
  const session = spendText(state.sessionSpend)
  if (session !== undefined) parts.push(`session ${session}`)
  return parts
}

export const statusLine = (t: Theme, state: SessionState, view: StatusView): string => {
  const [model, mode, ...rest] = statusParts(state, view)
  const modeText = view.mode === "default" ? t.dim(mode ?? "") : view.mode === "bypass" ? t.red(mode ?? "") : t.yellow(mode ?? "")
  // Another folder than this one: said in colour, it is where the tools act.
  const where = view.elsewhere === undefined ? [] : rest.slice(0, 1).map(t.yellow)
  const after = view.elsewhere === undefined ? rest : rest.slice(1)
  return [t.cyan(model ?? ""), modeText, ...where, ...after.map(t.dim)].join(t.dim(" · "))
}

/** The keys worth knowing, while nothing else needs the line; `detachable`: the turn runs in a host that goes on without this terminal. */
export const hintLine = (t: Theme, running: boolean, detachable = false): string =>
  t.dim(
    running
      ? `enter queues · alt+enter steers · esc cancels${detachable ? " · ctrl+x detach" : ""} · ctrl+o detail`
      : "/help · @ attach · shift+tab mode · ctrl+o detail · ctrl+c ×2 quit"
  )
