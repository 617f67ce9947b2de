import type { SandboxProfile } from "../../domain/sandbox.js"

/** What a write the sandbox refused looks like: a read-only mount, or a protected mount point that cannot be replaced. */
const WRITE_REFUSED = /Read-only file system|\bEROFS\b|Device or resource busy|\bEBUSY\b/
/** What a connection the closed network refused looks like: no route, no name resolution, nothing listening on our own loopback. */
const NETWORK_REFUSED =
  /Network is unreachable|\bENETUNREACH\b|Could not resolve host|Temporary failure in name resolution|\bEAI_AGAIN\b|Name or service not known|Connection refused|\bECONNREFUSED\b/

export const WRITE_NOTE =
  "[sandbox: commands may write only inside the workspace and a private /tmp; .custom-agent/, .git/hooks, .git/config " +
  "and the agent's configuration and data directories are read-only. The user can turn the sandbox off with --sandbox off.]"

export const NETWORK_NOTE =
  "[sandbox: the network is off, loopback included (127.0.0.1 here is not the host's). The user can open it with " +
  '--sandbox-network, or "sandbox": { "network": true } in settings.json.]'

/**
 * Lines to add to a command's output when what it printed looks like the sandbox refused it,
 * so the model (and whoever reads the result) knows why and does not retry blindly.
 */
export const sandboxNotes = (output: string, profile: SandboxProfile): ReadonlyArray<string> => {
  if (profile._tag !== "bwrap") return []
  return [
    ...(WRITE_REFUSED.test(output) ? [WRITE_NOTE] : []),
    ...(!profile.network && NETWORK_REFUSED.test(output) ? [NETWORK_NOTE] : [])
  ]
}
