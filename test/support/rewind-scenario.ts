import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Script } from "../../src/layers/model/scripted.js"

/**
 * Two turns that change a workspace: turn 1 reads a.txt (a step with no checkpoint), then
 * writes it; turn 2 writes b.txt and runs a shell command that makes a file. Later turns answer
 * in words: "done three", "done four", ...
 */
export const changingScript: Script = {
  responses: [
    { chunks: [{ toolCall: { name: "read_file", input: { path: "a.txt" }, id: "call_read" } }] },
    { chunks: [{ toolCall: { name: "write_file", input: { path: "a.txt", content: "one\n" }, id: "call_write_a" } }] },
    "done one",
    {
      chunks: [
        { toolCall: { name: "write_file", input: { path: "b.txt", content: "bee\n" }, id: "call_write_b" } },
        { toolCall: { name: "shell", input: { command: "echo x > made-by-shell.txt" }, id: "call_shell" } }
      ]
    },
    "done two",
    "done three",
    "done four",
    "done five"
  ]
}

/** A workspace as the scenario starts it: a.txt holds "original". */
export const startWorkspace = (dir: string) => {
  writeFileSync(join(dir, "a.txt"), "original\n")
  return dir
}

/** Every file of a (flat) workspace with its content. */
export const filesIn = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => [entry.name, readFileSync(join(dir, entry.name), "utf8")])
  )

export const afterTurnOne = { "a.txt": "one\n" }
export const afterTurnTwo = { "a.txt": "one\n", "b.txt": "bee\n", "made-by-shell.txt": "x\n" }
