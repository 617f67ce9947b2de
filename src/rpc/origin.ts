/**
 * Who did something over the HTTP API, as the session log records it. The transport says
 * `rpc`; a client may add the name it gives itself (`web`, `cli`), kept after the colon
 * (`rpc:web`), never in place of it: an audit tells a change made over the network from one
 * made at the local terminal (`cli`) or by an editor (`acp`), whatever the request claimed.
 */
export const RPC_ORIGIN = "rpc"

/** `rpc`, or `rpc:<claimed>` when the request named its client. */
export const rpcOrigin = (claimed: string | undefined): string =>
  claimed === undefined || claimed === "" ? RPC_ORIGIN : `${RPC_ORIGIN}:${claimed}`
