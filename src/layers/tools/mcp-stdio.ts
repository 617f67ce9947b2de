import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * The SDK's stdio transport, remembering its child's pid. The SDK forgets the child as soon
 * as a close begins (a failed `connect` starts one in the background), so without this
 * nothing could tell whether the process really ended.
 */
export class StdioTransport extends StdioClientTransport {
  private spawnedPid: number | undefined

  override async start(): Promise<void> {
    await super.start()
    this.spawnedPid = this.pid ?? undefined
  }

  get childPid(): number | undefined {
    return this.spawnedPid
  }
}

/**
 * The SDK stops a child by closing its stdin, then SIGTERM after 2 s, then SIGKILL after 2 s
 * more; a child still there after that is killed here.
 */
const EXIT_GRACE = Duration.millis(4_500)
const POLL_EVERY = Duration.millis(25)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    // ESRCH: gone. EPERM: the pid was reused by a process that is not ours, so ours is gone too.
    return false
  }
}

/** Asks the process `pid` to end now (SIGTERM); one already gone is no matter. */
export const terminate = (pid: number): Effect.Effect<void> =>
  Effect.try(() => process.kill(pid, "SIGTERM")).pipe(Effect.catchAll(() => Effect.void))

/** Returns once the process `pid` has ended, SIGKILLing it if it outlives the SDK's own shutdown. */
export const awaitExit = (pid: number): Effect.Effect<void> =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(EXIT_GRACE)
    while (alive(pid)) {
      if ((yield* Clock.currentTimeMillis) >= deadline) {
        yield* Effect.logWarning(`MCP server process ${pid} outlived its shutdown; killing it`)
        return yield* Effect.try(() => process.kill(pid, "SIGKILL")).pipe(
          Effect.catchAll((error) => Effect.logDebug(`cannot kill MCP server process ${pid}: ${String(error.error)}`))
        )
      }
      yield* Effect.sleep(POLL_EVERY)
    }
  })
