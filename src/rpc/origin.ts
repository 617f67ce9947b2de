/**
 * Who did something over the HTTP API, as the session log records it. The transport says
 * `rpc`; a client may add the name it gives itself (`web`, `cli`), kept after the colon
 * (`rpc:web`), never in place of it: an audit tells a change made over the network from one
 * made at the local terminal (`cli`) or by an editor (`acp`), whatever the request claimed.
 */
export const RPC_ORIGIN = "rpc"

/** Longest client name kept. */
const MAX_CLAIMED = 40

/**
 * `rpc`, or `rpc:<claimed>` when the request named its client: the name kept to letters,
 * digits and `._-` (anything else becomes `_`) and 40 characters, so a claimed name cannot
 * start a new line or pose as another line where a timeline prints who did something.
 */
export const rpcOrigin = (claimed: string | undefined): string => {
  const name = (claimed ?? "").slice(0, MAX_CLAIMED).replace(/[^A-Za-z0-9._-]/g, "_")
  return name === "" ? RPC_ORIGIN : `${RPC_ORIGIN}:${name}`
}
