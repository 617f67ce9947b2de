import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { eventsJsonSchema } from "../src/domain/event-json-schema.js"

/** Writes schema/events.schema.json from the domain's Schemas (a test fails while the two differ). */
const file = join(import.meta.dirname, "..", "schema", "events.schema.json")
writeFileSync(file, `${JSON.stringify(eventsJsonSchema(), null, 2)}\n`)
console.log(`wrote ${file}`)
