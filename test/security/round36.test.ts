import { afterAll, describe, expect, it } from "@effect/vitest"
import { vi } from "vitest"
import { Effect, Option } from "effect"
import { readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { call, check, makeScratch } from "../layers/permission/fixture.js"

/**
 * Round 36's attacker pass, the cases that need no built CLI: remembered answers revoked from
 * another process (`custom-agent permissions revoke`, the web page's Permissions view on a
 * `serve`) while a running host (or `serve`) keeps answering calls.
 */

// One moment made to happen on purpose: another process writes the approvals file just as this
// one has saved it and is about to take the file's signature (stat).
const race = vi.hoisted(() => ({ between: undefined as ((file: string) => void) | undefined }))
vi.mock("../../src/layers/changed-file.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/layers/changed-file.js")>()
  return {
    ...real,
    fileSignature: (file: string) => {
      const act = race.between
      if (act !== undefined && file.endsWith("approvals.json")) {
        race.between = undefined
        act(file)
      }
      return real.fileSignature(file)
    }
  }
})

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

interface Stored {
  readonly approvals: ReadonlyArray<{ readonly id?: string }>
  readonly revoked?: ReadonlyArray<unknown>
}

/** What `custom-agent permissions revoke ID` in another process writes: the file read afresh, the answer moved to `revoked`, renamed into place. */
const revokeAsAnotherProcess = (file: string, id: string) => {
  const content: Stored = JSON.parse(readFileSync(file, "utf8"))
  const answer = content.approvals.find((entry) => entry.id === id)
  const next = {
    approvals: content.approvals.filter((entry) => entry.id !== id),
    revoked: [...(content.revoked ?? []), { answer: { ...answer, scope: "always" }, revokedAt: new Date().toISOString(), by: "cli" }]
  }
  writeFileSync(`${file}.other.tmp`, JSON.stringify(next))
  renameSync(`${file}.other.tmp`, file)
}

describe("round 36: a revoke from another process and the running host's next answer", () => {
  const write = (root: string, p: string) => check(root, "write_file", call("write", { paths: [join(root, p)] }))

  it.effect(
    "a revoke written while the host saves another answer is never seen by the host: the revoked allow keeps answering its calls until the file changes again",
    () => {
      const s = scratch()
      return Effect.gen(function* () {
        const host = yield* Effect.provide(PermissionEngine, s.layer())
        const lasting = (p: string) => Effect.map(host.lasting(write(s.root, p)), Option.getOrThrow)
        const allowed = yield* host.remember(write(s.root, "a.txt"), "allow", "always", yield* lasting("a.txt"))
        expect((yield* host.decide(write(s.root, "a.txt"))).decision).toBe("allow")

        // The control: a revoke written at another moment holds at the host's next decision.
        const control = yield* host.remember(write(s.root, "c.txt"), "allow", "always", yield* lasting("c.txt"))
        revokeAsAnotherProcess(s.approvals, control.id)
        expect((yield* host.decide(write(s.root, "c.txt"))).decision, "control: another process's revoke holds").toBe("ask")

        // The user revokes a.txt's allow (the web page, the CLI) just as the host records an answer of another session.
        race.between = (file) => revokeAsAnotherProcess(file, allowed.id)
        yield* host.remember(write(s.root, "b.txt"), "allow", "always", yield* lasting("b.txt"))
        expect(race.between, "the other process wrote in the window").toBeUndefined()
        const onDisk: Stored = JSON.parse(readFileSync(s.approvals, "utf8"))
        expect(onDisk.approvals.map((entry) => entry.id), "on disk the answer is revoked").not.toContain(allowed.id)
        expect((yield* host.decide(write(s.root, "a.txt"))).decision, "a revoked answer must not allow the next call").toBe("ask")
        expect((yield* host.listRemembered()).map((answer) => answer.id), "the host must list what the file holds").not.toContain(allowed.id)
      })
    }
  )
})
