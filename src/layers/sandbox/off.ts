import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { SandboxProfile } from "../../domain/sandbox.js"
import { type Argv, Sandbox, SandboxError, type SandboxShape } from "../../services/Sandbox.js"

const OFF: SandboxProfile = { _tag: "none", reason: "off" }

/** Only `none` runs without bubblewrap: a request for `bwrap` is a bug in the caller, refused rather than run bare. */
export const unsandboxed = (profile: SandboxProfile, argv: Argv): Effect.Effect<Argv, SandboxError> =>
  profile._tag === "none" ? Effect.succeed(argv) : Effect.fail(new SandboxError({ message: "the bubblewrap sandbox is not available here" }))

/** `--sandbox off`: commands run as they are, and `tool.started` records `none/off`. */
export const sandboxOff: SandboxShape = Sandbox.of({
  profile: () => Effect.succeed(OFF),
  wrap: (request) => unsandboxed(request.profile, request.argv)
})

export const layerOff: Layer.Layer<Sandbox> = Layer.succeed(Sandbox, sandboxOff)
