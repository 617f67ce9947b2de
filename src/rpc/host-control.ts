import { Rpc, RpcGroup } from "@effect/rpc"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The name a client on the host's socket puts in its Host header (its URL is `http://localhost`). */
export const SOCKET_HOST = "localhost"

/**
 * What a data directory's local host answers about itself, and how it is asked to go: only on
 * its Unix socket, never on a `serve` port. `HostStatus` is the first request every client makes,
 * so its shape stays the same across versions: a client of another version learns the host's
 * version from it and stops before it sends a request the other might read differently.
 */
export const HostStatus = Schema.Struct({
  /** The host's custom-agent version. */
  version: Schema.String,
  pid: Schema.Int,
  startedAt: Schema.String,
  /** Connections open now (this one included). */
  clients: Schema.NonNegativeInt,
  /** Sessions with a turn running now. */
  working: Schema.Array(Schema.String),
  /** Seconds with no client and no turn after which the host exits. */
  idleExitSeconds: Schema.NonNegativeInt,
  /**
   * The sandbox the host was started with (`--sandbox`, `--sandbox-network`): a client joins
   * only a host whose sandbox is the one it asks for. Absent: unknown, never joined.
   */
  sandbox: Schema.optional(Schema.Struct({ mode: Schema.Literal("auto", "off", "on"), network: Schema.Boolean })),
  /**
   * The user configuration folder the host reads (rules, settings, instructions, skills, MCP
   * servers): a client joins only a host reading the one it would. Absent: unknown, never joined.
   */
  configDir: Schema.optional(Schema.String)
})
export type HostStatus = typeof HostStatus.Type

/** `now`: running turns are interrupted (closed as interrupted in their logs); `idle`: the host stops once no turn runs. */
export const StopWhen = Schema.Literal("now", "idle")
export type StopWhen = typeof StopWhen.Type

export class HostControlRpcs extends RpcGroup.make(
  Rpc.make("HostStatus", { success: HostStatus }),
  /** Answers once the stop is under way; the socket closes when the host has gone. */
  Rpc.make("StopHost", { payload: { when: StopWhen } })
) {}

/** The process side of the host control: what the socket's handlers ask. */
export interface HostProcessShape {
  readonly status: Effect.Effect<HostStatus>
  readonly stop: (when: StopWhen) => Effect.Effect<void>
}

export class HostProcess extends Context.Tag("custom-agent/HostProcess")<HostProcess, HostProcessShape>() {}
