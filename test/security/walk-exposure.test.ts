import { expect } from "@effect/vitest"
import type { AgentEvent } from "../../src/domain/events.js"
import { eventsOf } from "../support/events.js"
import { allowed, allowPath, type Call, denied, readFile, type SecurityCase } from "./cases.js"
import { type Fixture, putFile, putLink } from "./fixture.js"
import { securityCases } from "./suite.js"

/**
 * Found by the attacker pass (A2): `grep` and `list_files` are judged once, for their root,
 * then walk it. A root the person or a rule allowed (`$HOME`, a folder holding the agent's
 * data) led the walk into the agent's own directories (every project's transcripts, the
 * user's rules and instructions) and the credential stores, which a direct `read_file` of the
 * same file is never allowed without a person. Each case lets the call run (a rule allows its
 * root) and checks what its result carried: nothing from those places, one line saying how
 * many entries were left out, and the ordinary files still found (so the fix cannot pass by
 * refusing the walk).
 *
 * Markers are `WALK-MARKER-<n>`, searched for with `WALK-MARKER-[0-9]+`, which the script
 * holding that pattern does not match.
 */

const PATTERN = "WALK-MARKER-[0-9]+"
const VISIBLE = "WALK-MARKER-0"

/** The credential stores of the fake home, each with its own marker. */
const SECRET_FILES: ReadonlyArray<readonly [string, string]> = [
  ["{HOME}/.ssh/id_rsa", "WALK-MARKER-11"],
  ["{HOME}/.aws/credentials", "WALK-MARKER-12"],
  ["{HOME}/.gnupg/private-keys-v1.d/key", "WALK-MARKER-13"],
  ["{HOME}/.netrc", "WALK-MARKER-14"],
  ["{HOME}/.config/gcloud/credentials.db", "WALK-MARKER-15"],
  ["{HOME}/.docker/config.json", "WALK-MARKER-16"],
  ["{HOME}/.kube/config", "WALK-MARKER-17"]
]

/** The agent's own directories: another project's transcript, the user's notes. */
const AGENT_FILES: ReadonlyArray<readonly [string, string]> = [
  ["{DATA}/sessions/other-project.jsonl", "WALK-MARKER-21"],
  ["{CONFIG}/notes/remembered.md", "WALK-MARKER-22"]
]

const plant = (files: ReadonlyArray<readonly [string, string]>) => (fx: Fixture) => {
  for (const [path, marker] of files) putFile(fx, path, `secret: ${marker}\n`)
  putFile(fx, "{HOME}/notes.txt", `ordinary: ${VISIBLE}\n`)
}

const grep = (path: string): Call => ({ tool: "grep", input: { pattern: PATTERN, path } })
const listFiles = (path: string): Call => ({ tool: "list_files", input: { path } })

/** The one tool result of the turn. */
const output = (events: ReadonlyArray<AgentEvent>) => eventsOf(events, "tool.completed").map((e) => e.payload.output).join("\n")

/** Nothing planted in `files` reached the log; the ordinary file did; one line says what was left out. */
const keptOut =
  (files: ReadonlyArray<readonly [string, string]>, shows: (fx: Fixture) => string, skipped: RegExp) =>
  (fx: Fixture, events: ReadonlyArray<AgentEvent>) => {
    const log = JSON.stringify(events)
    const result = output(events)
    for (const [path, marker] of files) {
      expect(log, `${path} must not be read`).not.toContain(marker)
      expect(result, `${path} must not be listed`).not.toContain(fx.fill(path))
    }
    expect(result, "the ordinary file is still found").toContain(shows(fx))
    expect(result, "one line says how many were left out and why").toMatch(skipped)
  }

const stores = /\[Skipped 7 entries the agent may not read without a person naming them: .*the credential store ~\/\.ssh \(1\).*\]/
const agentDirs = /\[Skipped 2 entries .*the agent's configuration directory \(1\), the agent's data directory \(1\)\.\]/

const cases: ReadonlyArray<SecurityCase> = [
  {
    name: "grep over $HOME (a rule allows it) reads none of ~/.ssh, ~/.aws, ~/.gnupg, ~/.netrc, ~/.config/gcloud, ~/.docker, ~/.kube",
    rules: [allowPath("grep", "{HOME}/**")],
    setup: plant(SECRET_FILES),
    calls: [grep("{HOME}")],
    expect: allowed(keptOut(SECRET_FILES, () => VISIBLE, stores))
  },
  {
    name: "list_files over $HOME (a rule allows it) lists nothing inside the credential stores",
    rules: [allowPath("list_files", "{HOME}/**")],
    setup: plant(SECRET_FILES),
    calls: [listFiles("{HOME}")],
    expect: allowed(keptOut(SECRET_FILES, (fx) => fx.fill("{HOME}/notes.txt"), stores))
  },
  {
    name: "grep over a folder holding the agent's config and data directories (a rule allows it) reads neither",
    rules: [allowPath("grep", "{ROOT}/**")],
    setup: plant(AGENT_FILES),
    calls: [grep("{ROOT}")],
    expect: allowed(keptOut(AGENT_FILES, () => VISIBLE, agentDirs))
  },
  {
    name: "list_files over a folder holding the agent's config and data directories lists neither",
    rules: [allowPath("list_files", "{ROOT}/**")],
    setup: plant(AGENT_FILES),
    calls: [listFiles("{ROOT}")],
    expect: allowed(keptOut(AGENT_FILES, (fx) => fx.fill("{HOME}/notes.txt"), agentDirs))
  },
  {
    name: "grep over $HOME when ~/.ssh is a link to where the keys really are: the link is judged where it leads",
    rules: [allowPath("grep", "{HOME}/**"), allowPath("list_files", "{HOME}/**")],
    setup: (fx) => {
      putFile(fx, "{OUT}/keys/id_ed25519", "secret: WALK-MARKER-31\n")
      putLink(fx, "{HOME}/.ssh", "{OUT}/keys")
      putLink(fx, "{HOME}/keys-again", "{OUT}/keys")
      putFile(fx, "{HOME}/notes.txt", `ordinary: ${VISIBLE}\n`)
    },
    calls: [grep("{HOME}"), listFiles("{HOME}")],
    expect: allowed((_fx, events) => {
      const log = JSON.stringify(events)
      expect(log).not.toContain("WALK-MARKER-31")
      expect(log).not.toContain("keys-again")
      expect(output(events)).toContain(VISIBLE)
      expect(output(events)).toMatch(/a link into the credential store ~\/\.ssh \(2\)/)
    })
  },
  {
    name: "grep over the workspace (allowed by default) reads nothing in a folder the user's settings hide",
    setup: (fx) => {
      putFile(fx, "{CONFIG}/settings.json", `${JSON.stringify({ sandbox: { hide: [fx.fill("{WS}/private-notes")] } })}\n`)
      putFile(fx, "private-notes/plan.md", "secret: WALK-MARKER-41\n")
      putFile(fx, "notes.md", `ordinary: ${VISIBLE}\n`)
    },
    calls: [grep(".")],
    expect: allowed((fx, events) => {
      expect(JSON.stringify(events)).not.toContain("WALK-MARKER-41")
      expect(output(events)).toContain(`notes.md:1:ordinary: ${VISIBLE}`)
      expect(output(events)).toContain(`[Skipped 1 entry the agent may not read without a person naming it: ${fx.fill("{WS}/private-notes")}, which the user's settings hide (1).]`)
    }, ["default"])
  },
  // The direct call the walks are now consistent with: reading a credential store always asks a person.
  {
    name: "read_file ~/.ssh/id_rsa under a rule allowing all of $HOME is a firm question (denied headless)",
    rules: [allowPath("read_file", "{HOME}/**")],
    setup: plant(SECRET_FILES),
    calls: [readFile("{HOME}/.ssh/id_rsa")],
    expect: denied((_fx, log) => log.includes("WALK-MARKER-11"))
  }
]

securityCases("walks leave out what a direct read may not take (A2)", cases)
