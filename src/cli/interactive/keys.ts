import { matchesKey } from "@mariozechner/pi-tui"
import type { PermissionMode } from "../../domain/permissions.js"

/** What a key does in the session before the focused part (the editor, a question) sees it. */
export type KeyAction = "interrupt" | "cancelTurn" | "cycleMode" | "steer" | "expandDetail" | "detach" | "none"

export interface KeyContext {
  /** A turn runs in the session. */
  readonly running: boolean
  /** The editor's completion list is open: Esc closes it instead. */
  readonly completing: boolean
}

/**
 * The session's own keys: Ctrl-C (clear, warn, quit), Esc (cancel the running turn), Shift+Tab
 * (the next permission mode), Alt+Enter or Ctrl+S (send the editor's text to steer the running turn), Ctrl+O
 * (the last tool call's whole detail), Ctrl+X (leave, the turn going on in the host: no key of
 * the editor's, which takes Ctrl+A, B, D, E, F, K, U, W, Y). Anything else is the focused part's.
 */
export const keyAction = (data: string, context: KeyContext): KeyAction => {
  if (matchesKey(data, "ctrl+c")) return "interrupt"
  if (matchesKey(data, "escape")) return context.running && !context.completing ? "cancelTurn" : "none"
  if (matchesKey(data, "shift+tab")) return "cycleMode"
  if (matchesKey(data, "ctrl+s")) return "steer"
  // Alt+Enter is the editor's new line while nothing runs.
  if (matchesKey(data, "alt+enter")) return context.running ? "steer" : "none"
  if (matchesKey(data, "ctrl+o")) return "expandDetail"
  if (matchesKey(data, "ctrl+x")) return "detach"
  return "none"
}

/** Two Ctrl-C within this long quit. */
export const QUIT_WINDOW_MS = 2000

export type InterruptOutcome = "clearEditor" | "warn" | "quit"

/**
 * Ctrl-C: with text in the editor, it clears it; on an empty one, the first press says how to
 * quit and a second within the window quits.
 */
export const onInterrupt = (input: { readonly now: number; readonly lastAt: number | undefined; readonly editorEmpty: boolean }): InterruptOutcome => {
  if (!input.editorEmpty) return "clearEditor"
  return input.lastAt !== undefined && input.now - input.lastAt <= QUIT_WINDOW_MS ? "quit" : "warn"
}

/**
 * Shift+Tab's order: default, accept-edits, plan, and round. Bypass (everything allowed) is never
 * a key press away: only `/mode bypass` or `--mode bypass` choose it, and Shift+Tab leaves it for default.
 */
export const nextMode = (mode: PermissionMode): PermissionMode => {
  switch (mode) {
    case "default":
      return "accept-edits"
    case "accept-edits":
      return "plan"
    case "plan":
    case "bypass":
      return "default"
  }
}
