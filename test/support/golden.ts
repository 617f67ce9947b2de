import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const goldenDir = resolve(import.meta.dirname, "../fixtures/golden")

/** Every golden transcript under test/fixtures/golden: one JSON event per line. */
export const goldenTranscripts = (): ReadonlyArray<{ readonly name: string; readonly events: ReadonlyArray<unknown> }> =>
  readdirSync(goldenDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({
      name: entry.name,
      events: readFileSync(join(goldenDir, entry.name, "transcript.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line): unknown => JSON.parse(line))
    }))
