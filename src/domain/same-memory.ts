import type { MemoryScope } from "./events.js"

/** A memory's text as compared for sameness: case, runs of spaces and a closing full stop make no difference. */
export const normalizedText = (text: string): string =>
  text
    .normalize("NFC")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.!]+$/, "")
    .toLowerCase()

interface Remembered {
  readonly scope: MemoryScope
  readonly workspaceRoot?: string | undefined
  readonly text: string
}

/** Whether `memory` already says what `candidate` would: same scope, same project for a project memory, same normalized text. */
export const sameMemory = (memory: Remembered, candidate: Remembered): boolean =>
  memory.scope === candidate.scope &&
  (candidate.scope === "user" || memory.workspaceRoot === candidate.workspaceRoot) &&
  normalizedText(memory.text) === normalizedText(candidate.text)
