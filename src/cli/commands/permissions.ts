import { Args, Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { describeCover, type RememberedAnswer } from "../../domain/permissions.js"
import { PermissionEngine } from "../../services/PermissionEngine.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"
import * as shared from "../options.js"
import { formatTable } from "../table.js"
import { jsonText, term } from "../terminal-text.js"
import { permissionsLayer } from "../../app/permissions.js"

/** The engine over the user's files: what a run of the agent would remember and read. */
const engineLayer = (dataDir: Option.Option<string>) => {
  const data = resolveDataDir(Option.getOrUndefined(dataDir))
  return permissionsLayer(resolveConfigDir(), data)
}

const cwd = shared.existingDirectory("cwd").pipe(
  Options.withDescription("Only the answers remembered for this workspace (default: every workspace)"),
  Options.optional
)

const json = Options.boolean("json").pipe(Options.withDescription("Print one JSON object of { answers }, each with its id, decision, scope and what it covers"))

/** One row a person reads: the id to revoke it by, the answer, and what it covers in the question's words. */
const row = (answer: RememberedAnswer) => [answer.id, answer.decision, describeCover(answer, answer.decision), answer.workspaceRoot, answer.createdAt]

const list = Command.make("list", { cwd, json, dataDir: shared.dataDir }, (args) =>
  Effect.gen(function* () {
    const permissions = yield* PermissionEngine
    const root = Option.map(args.cwd, (dir) => resolve(dir))
    const answers = yield* permissions.listRemembered(Option.isSome(root) ? { workspaceRoot: root.value } : {})
    if (args.json) return yield* stdout(jsonText(`${JSON.stringify({ answers }, null, 2)}\n`))
    if (answers.length === 0) return yield* stdout("no remembered answers\n")
    yield* stdout(formatTable(["ID", "ANSWER", "COVERS", "WORKSPACE", "SINCE"], answers.map(row)))
  }).pipe(Effect.provide(engineLayer(args.dataDir)))
).pipe(
  Command.withDescription(
    "List the answers remembered \"always\" (the a and d of a permission question): id, allow or deny, what each covers (the paths and the tools that touch them, or the command prefixes), workspace"
  )
)

const id = Args.text({ name: "ID" }).pipe(Args.withDescription("The id `permissions list` shows"))

const revoke = Command.make("revoke", { id, dataDir: shared.dataDir }, (args) =>
  Effect.gen(function* () {
    const permissions = yield* PermissionEngine
    const revoked = yield* permissions.revokeRemembered(args.id, "cli").pipe(
      Effect.catchTag("RememberedAnswerNotFound", (error) => new CliError({ message: `${error.message} (see custom-agent permissions list)`, cause: error }))
    )
    yield* stdout(term`revoked ${revoked.id}: ${revoked.decision} ${describeCover(revoked, revoked.decision)}\n`)
  }).pipe(Effect.provide(engineLayer(args.dataDir)))
).pipe(
  Command.withDescription("Forget one remembered answer, by its id: the next such call is asked about again. The approvals file keeps the revocation (what, when, by whom)")
)

export const permissionsCommand = Command.make("permissions").pipe(
  Command.withDescription("Remembered answers to permission questions (Claude Code's /permissions): list them, revoke one"),
  Command.withSubcommands([list, revoke])
)
