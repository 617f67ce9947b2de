import type { SessionModeState } from "@agentclientprotocol/sdk/unstable"
import type { PermissionMode } from "../domain/permissions.js"

/** The permission modes an editor may pick; `bypass` stays a command-line-only choice. */
export type AcpMode = Exclude<PermissionMode, "bypass">

export const acpModes: ReadonlyArray<{ readonly id: AcpMode; readonly name: string; readonly description: string }> = [
  { id: "default", name: "Default", description: "Reads in the workspace run; edits, commands and the rest ask first" },
  { id: "plan", name: "Plan", description: "Read-only: the agent explores, then proposes a plan for you to approve (edits and commands are refused until then)" },
  { id: "accept-edits", name: "Accept edits", description: "Edits inside the workspace run without asking; commands still ask" }
]

export const isAcpMode = (id: string): id is AcpMode => acpModes.some((mode) => mode.id === id)

export const modeState = (current: AcpMode): SessionModeState => ({
  currentModeId: current,
  availableModes: acpModes.map((mode) => ({ ...mode }))
})

/**
 * The session's stored mode as an editor may hold it. `bypass` (set on the command line) is
 * not offered here: the editor shows `default`, and its next prompt runs in `default`.
 */
export const acpModeOf = (mode: PermissionMode): AcpMode => (isAcpMode(mode) ? mode : "default")
