import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { makeRenderer } from "../../src/cli/render.js"
import { LiveOutputTimingSetting } from "../../src/core/tool-output.js"
import type { AgentEvent } from "../../src/domain/events.js"

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

/** `UPDATE_GOLDEN=1` rewrites the golden files from this run instead of comparing with them. */
export const updateGolden = process.env["UPDATE_GOLDEN"] === "1"

/** The golden file's content must be `actual`; with `UPDATE_GOLDEN=1` it is written first. */
export const expectGolden = (file: string, actual: string) => {
  if (updateGolden) writeFileSync(file, actual)
  expect(actual).toBe(readFileSync(file, "utf8"))
}

/** An event as a golden log holds it: timestamps, durations and the temporary workspace path differ run to run; nothing else may. */
export const normalizeGolden = (event: AgentEvent, workspace: string): string =>
  JSON.stringify(event, (key, value: unknown) => {
    if (key === "timestamp") return "2026-01-01T00:00:00.000Z"
    if (key === "durationMs") return 0
    return typeof value === "string" ? value.split(workspace).join("<workspace>") : value
  })

/** A log as its golden transcript holds it: one normalized event per line. */
export const goldenTranscript = (events: ReadonlyArray<AgentEvent>, workspace: string): string =>
  events.map((event) => normalizeGolden(event, workspace)).join("\n") + "\n"

/** A log rendered as `sessions show` prints it, with times, durations and the workspace path made stable. */
export const goldenTimeline = (events: ReadonlyArray<AgentEvent>, workspace = "<workspace>"): string => {
  const renderer = makeRenderer({ color: false, live: false })
  return events
    .flatMap((event) => renderer.render(event))
    .map((segment) => segment.text)
    .join("")
    .split(workspace)
    .join("<workspace>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, "<time>")
    .replace(/\d\d:\d\d:\d\d/g, "HH:MM:SS")
    .replace(/ \d+ ms/g, " N ms")
}

/**
 * A golden turn records no live output: what a running command's `tool.output` events hold
 * depends on how fast it writes on this machine, and a golden log must not. Provided around a
 * golden test's turn; its result still holds the output.
 */
export const withoutLiveOutput = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, LiveOutputTimingSetting, { quietMs: 24 * 3_600_000, intervalMs: 0, thinnedIntervalMs: 0 })
