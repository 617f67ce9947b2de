import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import * as HooksLayer from "../../layers/hooks/layer.js"
import { layerOff } from "../../layers/sandbox/off.js"
import { Hooks } from "../../services/Hooks.js"
import { hookNotes, hooksJson, formatHooks } from "../hooks-list.js"
import { stderr, stdout } from "../io.js"
import * as shared from "../options.js"
import { permissionsLayer } from "../../app/permissions.js"

const cwd = shared.existingDirectory("cwd").pipe(
  Options.withDescription("The project whose hooks count (default: the current directory)"),
  Options.optional
)

const json = Options.boolean("json").pipe(Options.withDescription("Print one JSON object of { hooks, ignored, problems }"))

const list = Command.make("list", { cwd, json, dataDir: shared.dataDir }, (args) => {
  const configDir = resolveConfigDir()
  const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
  const permissions = permissionsLayer(configDir, dataDir)
  return Effect.gen(function* () {
    const listing = yield* Effect.flatMap(Hooks, (hooks) => hooks.list(resolve(Option.getOrElse(args.cwd, () => process.cwd()))))
    yield* stdout(args.json ? hooksJson(listing) : formatHooks(listing))
    if (!args.json) for (const note of hookNotes(listing)) yield* stderr(`${note}\n`)
  }).pipe(
    // Listing runs nothing: no sandbox is needed.
    Effect.provide(HooksLayer.layer({ configDir }).pipe(Layer.provide(Layer.merge(layerOff, permissions))))
  )
}).pipe(
  Command.withDescription(
    "List the configured hooks (the user's settings.json, the project's .custom-agent/settings.json and .claude/settings.json): event, matcher, command, where each comes from, and whether it runs (project hooks only once trusted)"
  )
)

export const hooksCommand = Command.make("hooks").pipe(
  Command.withDescription("Hooks: your scripts at the agent's lifecycle points, in Claude Code's format"),
  Command.withSubcommands([list])
)
