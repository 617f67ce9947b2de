import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { trustedProjectNetwork } from "../../src/app/project-network.js"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { makeScratch } from "../layers/permission/fixture.js"

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

describe("the project's network setting is under project trust", () => {
  it.effect("opening counts only once trusted; closing always counts; no setting says nothing", () => {
    const s = scratch()
    const settings = join(s.root, ".custom-agent", "settings.json")
    return Effect.gen(function* () {
      const permissions = yield* PermissionEngine
      const network = trustedProjectNetwork(permissions)
      expect(yield* network(s.root)).toEqual(Option.none())
      writeFileSync(settings, JSON.stringify({ sandbox: { network: true } }))
      expect(yield* network(s.root)).toEqual(Option.none())
      const status = yield* permissions.projectTrust(s.root)
      yield* permissions.trustProject(s.root, status.sha256 ?? "", "user")
      expect(yield* network(s.root)).toEqual(Option.some(true))
      writeFileSync(settings, JSON.stringify({ sandbox: { network: false } }))
      expect(yield* network(s.root)).toEqual(Option.some(false))
    }).pipe(Effect.provide(s.layer()))
  })
})
