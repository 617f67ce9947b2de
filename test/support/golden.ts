import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const goldenDir = resolve(import.meta.dirname, "../fixtures/golden")

/** Every golden log under test/fixtures/golden (each `*.jsonl` of each folder: one JSON event per line), named `folder/file`. */
export const goldenTranscripts = (): ReadonlyArray<{ readonly name: string; readonly events: ReadonlyArray<unknown> }> =>
  readdirSync(goldenDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((folder) =>
      readdirSync(join(goldenDir, folder.name))
        .filter((file) => file.endsWith(".jsonl"))
        .sort()
        .map((file) => ({
          name: `${folder.name}/${file}`,
          events: readFileSync(join(goldenDir, folder.name, file), "utf8")
            .split("\n")
            .filter((line) => line.trim() !== "")
            .map((line): unknown => JSON.parse(line))
        }))
    )
