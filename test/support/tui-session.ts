import { expect } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { runCli } from "./cli.js"
import { parseEventLines } from "./events.js"

/** A fresh workspace (from `dir`) whose `script.json` holds the scripted model's responses. */
export const scriptedWorkspace = (dir: string, responses: ReadonlyArray<unknown>): string => {
  writeFileSync(join(dir, "script.json"), JSON.stringify({ responses }))
  return dir
}

/** The session's events, as `sessions export` writes them, from the data under `home`. */
export const exportedEvents = async (home: string, sessionId: string): Promise<Array<AgentEvent>> => {
  const result = await runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: home } })
  expect(result.code, result.stderr).toBe(0)
  return parseEventLines(result.stdout)
}

/** The session id the interactive session's screen names (`── session ses_...`), or "". */
export const sessionIdOn = (screen: string): string => /── session (ses_\S+)/.exec(screen)?.[1] ?? ""
