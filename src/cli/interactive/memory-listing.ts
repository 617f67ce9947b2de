import type { Memory, MemoryCandidate } from "../../services/MemoryStore.js"
import { memoryOneLine } from "../view/memory-text.js"

/** `/memory`'s listing: one line per memory and per candidate waiting for review. */
export const memoryListing = (memories: ReadonlyArray<Memory>, candidates: ReadonlyArray<MemoryCandidate>): string =>
  [
    ...(memories.length === 0
      ? ["no memories for this workspace"]
      : memories.map((m) => `${m.id}  (${m.scope === "user" ? "all projects" : "this project"}) ${memoryOneLine(m.text)}`)),
    "",
    ...(candidates.length === 0
      ? ["no candidates waiting for review"]
      : ["waiting for review (/memory approve ID, /memory reject ID):", ...candidates.map((c) => `${c.id}  (${c.scope}) ${memoryOneLine(c.text)}`)])
  ].join("\n")
