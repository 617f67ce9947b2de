import type { HookDecision, HookEventName } from "../../domain/hooks.js"
import type { HookOutcome } from "../../services/Hooks.js"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const text = (u: unknown): string | undefined => (typeof u === "string" && u.trim() !== "" ? u : undefined)

/** Output JSON, when stdout is a JSON object; anything else is plain text. */
const jsonOf = (stdout: string): Record<string, unknown> | undefined => {
  const trimmed = stdout.trim()
  if (!trimmed.startsWith("{")) return undefined
  try {
    const parsed: unknown = JSON.parse(trimmed)
    return isRecord(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/** What a blocking exit (2) means at each event. */
const blockingExit: Readonly<Record<HookEventName, HookDecision | undefined>> = {
  PreToolUse: "deny",
  PermissionRequest: "deny",
  PostToolUse: "block",
  UserPromptSubmit: "block",
  // Claude Code's "block the stop": the agent goes on.
  Stop: "continue",
  PreCompact: undefined,
  SessionStart: undefined,
  SessionEnd: undefined
}

/** A decision word from the output, read as the event understands it; others are ignored. */
const decisionAt = (event: HookEventName, word: string | undefined): HookDecision | undefined => {
  switch (event) {
    case "PreToolUse":
      if (word === "allow" || word === "approve") return "allow"
      if (word === "deny" || word === "block") return "deny"
      return word === "ask" ? "ask" : undefined
    case "PermissionRequest":
      if (word === "allow" || word === "approve") return "allow"
      return word === "deny" || word === "block" ? "deny" : undefined
    case "PostToolUse":
    case "UserPromptSubmit":
      return word === "block" ? "block" : undefined
    case "Stop":
      return word === "block" ? "continue" : undefined
    case "PreCompact":
    case "SessionStart":
    case "SessionEnd":
      return undefined
  }
}

/** Events whose plain stdout (exit 0, not JSON) is context for the model, as in Claude Code. */
const stdoutIsContext: ReadonlySet<HookEventName> = new Set<HookEventName>(["UserPromptSubmit", "SessionStart"])

/**
 * Reads a finished hook the way Claude Code does: exit 0 with optional JSON on stdout
 * (`decision`/`reason`, `hookSpecificOutput.permissionDecision`/`permissionDecisionReason`,
 * `hookSpecificOutput.decision.behavior`/`message`, `additionalContext`); exit 2 blocks with
 * stderr as the reason; any other exit is a non-blocking error that decides nothing.
 */
export const outcomeOf = (event: HookEventName, exitCode: number | null, stdout: string, stderr: string): HookOutcome => {
  if (exitCode === 2) {
    const decision = blockingExit[event]
    const reason = text(stderr)?.trim()
    return { ...(decision === undefined ? {} : { decision }), ...(reason === undefined ? {} : { reason }) }
  }
  if (exitCode !== 0) return {}
  const json = jsonOf(stdout)
  if (json === undefined) {
    const plain = text(stdout)?.trim()
    return stdoutIsContext.has(event) && plain !== undefined ? { additionalContext: plain } : {}
  }
  const specific = isRecord(json["hookSpecificOutput"]) ? json["hookSpecificOutput"] : {}
  const behavior = isRecord(specific["decision"]) ? specific["decision"] : {}
  const word = text(specific["permissionDecision"]) ?? text(behavior["behavior"]) ?? text(json["decision"])
  const decision = decisionAt(event, word)
  const reason = text(specific["permissionDecisionReason"]) ?? text(behavior["message"]) ?? text(json["reason"])
  const additionalContext = text(specific["additionalContext"]) ?? text(json["additionalContext"])
  return {
    ...(decision === undefined ? {} : { decision }),
    ...(reason === undefined ? {} : { reason }),
    ...(additionalContext === undefined ? {} : { additionalContext })
  }
}
