import * as Schema from "effect/Schema"

/**
 * Where a command ran, recorded in `tool.started`: inside bubblewrap (with or without the
 * network), or outside any sandbox because the user turned it off or none could be had.
 */
export const SandboxProfile = Schema.Union(
  Schema.TaggedStruct("bwrap", { network: Schema.Boolean }),
  Schema.TaggedStruct("none", { reason: Schema.Literal("off", "unavailable") })
)
export type SandboxProfile = typeof SandboxProfile.Type
