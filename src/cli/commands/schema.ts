import { Command } from "@effect/cli"
import { eventsJsonSchema } from "../../domain/event-json-schema.js"
import { stdout } from "../io.js"
import { jsonText } from "../terminal-text.js"

const events = Command.make("events", {}, () => stdout(jsonText(`${JSON.stringify(eventsJsonSchema(), null, 2)}\n`))).pipe(
  Command.withDescription(
    "Print the event catalogue as a JSON Schema (draft-07): every line of a session export, and every event of run --json, validates against it (also shipped as custom-agent/events.schema.json)"
  )
)

export const schemaCommand = Command.make("schema").pipe(
  Command.withDescription("Print the published schemas of the automation contract"),
  Command.withSubcommands([events])
)
