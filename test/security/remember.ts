import { Effect, Option } from "effect"
import type { PermissionMode } from "../../src/domain/permissions.js"
import { type PermissionCheck, PermissionEngine } from "../../src/services/PermissionEngine.js"
import { Files, ToolRouter } from "../../src/services/ToolRouter.js"
import type { Call } from "./cases.js"
import { type Fixture, fillDeep } from "./fixture.js"

/** The check the engine would make for `call` in this session: prepared by the real tool through the router. */
export const checkFor = (fx: Fixture, sessionId: string, call: Call, mode: PermissionMode = "default") =>
  Effect.gen(function* () {
    const router = yield* ToolRouter
    const files = yield* Files
    const input = fillDeep(fx, call.input)
    const toolCallId = "call_remembered"
    const prepared = yield* router.prepare({ toolCallId, name: call.tool, input }, { sessionId, toolCallId, workspaceRoot: fx.ws, files })
    const check: PermissionCheck = { sessionId, workspaceRoot: fx.ws, tool: call.tool, mode, call: prepared, input }
    return check
  })

/** A person's answer to `call`, remembered for the session or always, as the engine stores it after a question. */
export const rememberAnswer = (
  fx: Fixture,
  sessionId: string,
  call: Call,
  decision: "allow" | "deny",
  scope: "session" | "always",
  paths?: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const permissions = yield* PermissionEngine
    const check = yield* checkFor(fx, sessionId, call)
    const cover = yield* permissions.lasting(check)
    if (Option.isNone(cover)) return
    yield* permissions.remember(check, decision, scope, cover.value, paths === undefined ? undefined : { paths: paths.map(fx.fill) })
  })
