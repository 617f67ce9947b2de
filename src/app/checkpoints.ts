import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Checkpoints } from "../services/Checkpoints.js"

/**
 * Checkpoints of workspaces' files in private git repositories under `<dataDir>/checkpoints/`,
 * with the default caps. Loaded when the layer is built, so commands that never build it
 * (`--version`, `sessions list`) do not load git's process plumbing.
 */
export const checkpointsLayer = (dataDir: string): Layer.Layer<Checkpoints> =>
  Layer.unwrapEffect(
    Effect.promise(async () => {
      const [GitCheckpoints, NodeCommandExecutor, NodeFileSystem] = await Promise.all([
        import("../layers/checkpoints/layer.js"),
        import("@effect/platform-node/NodeCommandExecutor"),
        import("@effect/platform-node/NodeFileSystem")
      ])
      return GitCheckpoints.layer({ dataDir }).pipe(Layer.provide(Layer.provide(NodeCommandExecutor.layer, NodeFileSystem.layer)))
    })
  )
