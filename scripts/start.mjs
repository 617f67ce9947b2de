// `npm start -- ARGS`: builds only when a source changed since the last build, then runs the
// CLI in this process (its exit code and signals are the CLI's own).
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { ensureBuilt } from "./freshness.mjs"

ensureBuilt(join(dirname(fileURLToPath(import.meta.url)), ".."))
await import("../bin/custom-agent.js")
