import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export type IdKind = "ses" | "turn" | "evt" | "call" | "msg" | "mem"

/** Makes ids; a port so tests and golden transcripts can use deterministic ones. */
export interface IdsShape {
  readonly make: (kind: IdKind) => Effect.Effect<string>
}

export class Ids extends Context.Tag("custom-agent/Ids")<Ids, IdsShape>() {}
