import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { AgentHost } from "../../src/host/AgentHost.js"
import { hostTestLayer } from "../support/host-harness.js"
import { leftOpenLog } from "../support/left-open-log.js"
import { storeCases } from "../support/store-cases.js"

for (const store of storeCases) {
  describe(`an imported session with a turn left open (${store.name} store)`, () => {
    it.live("is refused unless unverified; imported so, a subscriber gets its baseline at once, idle with no question, and the turn closed", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const refused = yield* Effect.flip(host.importSession(leftOpenLog("ses_open")))
        expect(refused._tag).toBe("InvalidSessionLog")
        const imported = yield* host.importSession(leftOpenLog("ses_open"), { unverified: true })
        expect(imported.unverified).toBeDefined()
        expect((yield* host.listSessions).find((line) => line.sessionId === "ses_open")?.status).toBe("interrupted")

        const frames = Chunk.toArray(
          yield* host.subscribe("ses_open", 0).pipe(
            Stream.takeUntil((frame) => frame._tag === "Event" && frame.event.type === "turn.completed"),
            Stream.runCollect,
            Effect.timeout("5 seconds")
          )
        )
        const baseline = frames[0]
        expect(baseline?._tag).toBe("Baseline")
        if (baseline?._tag === "Baseline") {
          expect(baseline.session.running).toBe(false)
          expect(baseline.session.pendingPermissions).toEqual([])
        }
        expect(frames.at(-1)).toMatchObject({ _tag: "Event", event: { type: "turn.completed", turnId: "turn_dead" } })
      }).pipe(Effect.provide(hostTestLayer(store.fresh()))))
  })
}
