import { Args, Command } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolveDataDir } from "../../app/locations.js"
import { CliError, USAGE_EXIT_CODE } from "../errors.js"
import { openingArgs } from "../interactive/options.js"
import * as shared from "../options.js"

const session = Args.text({ name: "session" }).pipe(
  Args.withDescription("The session to follow: its id or the start of it (default: this workspace's last)"),
  Args.optional
)

/**
 * `attach [ID]`: the interactive session on a session of the data directory's local host, from
 * its start (the log replays, then live): how a turn started with `run --bg`, or left running
 * when a terminal closed, is followed and answered again.
 */
export const attachCommand = Command.make("attach", { session, dataDir: shared.dataDir }, (args) =>
  Effect.gen(function* () {
    if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
      return yield* new CliError({ message: "attach shows the session in the interactive session, which needs a terminal (stdin and stdout)", exitCode: USAGE_EXIT_CODE })
    }
    const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
    const { runningHost } = yield* Effect.promise(() => import("../host/connect.js"))
    const host = yield* runningHost(dataDir)
    if (host === undefined) {
      return yield* new CliError({
        message: `no local host runs for ${dataDir}: nothing to attach to (\`custom-agent -c\` continues this workspace's last session in this process)`
      })
    }
    const { onLocalHost } = yield* Effect.promise(() => import("../interactive/start.js"))
    yield* onLocalHost(
      openingArgs({ continueLast: Option.isNone(args.session), session: args.session, dataDir: args.dataDir, store: "sqlite", server: Option.none(), tokenFile: Option.none() }),
      dataDir,
      host
    )
  })
).pipe(Command.withDescription("Follow a session of the data directory's local host in the interactive session (its log replays, then live): a turn started with `run --bg`, or left running when its terminal closed"))
