import * as AgentLoop from "./agent-loop.js"
import * as Checkpoints from "./checkpoints.js"
import * as Cluster from "./cluster.js"
import * as EffectOps from "./effect-ops.js"
import * as EndToEnd from "./end-to-end.js"
import * as EventStore from "./event-store.js"
import * as Floors from "./floors.js"
import * as Interactive from "./interactive.js"
import * as LocalHost from "./local-host.js"
import * as Profile from "./profile.js"
import * as Sandbox from "./sandbox.js"
import * as Sessions from "./sessions.js"
import * as Telemetry from "./telemetry.js"

export type BenchOptions = Readonly<Record<string, string>>

/**
 * Every benchmark, run one after another in this process; add new ones here. Name some to
 * run only those: `tsx scripts/bench/index.ts agent-loop end-to-end`; options for them follow
 * (`interactive --only first-frame,resume --against main`). Those marked
 * `onlyWhenNamed` (diagnostics, not figures) run only when named.
 */
const benches: ReadonlyArray<{ readonly id: string; readonly name: string; readonly run: (options: BenchOptions) => Promise<void>; readonly onlyWhenNamed?: true }> = [
  { id: "event-store", name: "event store", run: EventStore.run },
  { id: "agent-loop", name: "agent loop (issue 8)", run: AgentLoop.run },
  { id: "end-to-end", name: "end to end over RPC (issue 5)", run: EndToEnd.run },
  { id: "sandbox", name: "sandbox: added latency per shell call (issue 15)", run: Sandbox.run },
  { id: "sessions", name: "sessions: what 10,000 one-turn sessions leave behind in one host (issue 16)", run: Sessions.run },
  { id: "cluster", name: "cluster: prompts per second through 1, 2 and 3 runners, failover time (issue 17)", run: Cluster.run },
  { id: "checkpoints", name: "checkpoints: a snapshot of a 10,000-file workspace, unchanged and with one file changed (issue 19)", run: Checkpoints.run },
  { id: "telemetry", name: "telemetry: what tracing costs per step, off and on (issue 23)", run: Telemetry.run },
  { id: "interactive", name: "interactive session: first frame, a streamed answer, resuming a long session (issue 32)", run: Interactive.run },
  { id: "local-host", name: "local host: its overhead on the 100-step chain against run in its own process, its RSS with 100 idle sessions (issue 34)", run: LocalHost.run },
  { id: "interactive-stream", name: "interactive session: the streamed answer alone, bytes and delay (issue 32)", run: Interactive.runStream, onlyWhenNamed: true },
  { id: "profile", name: "profile of a 100-step chain", run: Profile.run, onlyWhenNamed: true },
  { id: "floors", name: "floors: the engine alone, one HTTP round trip", run: Floors.run, onlyWhenNamed: true },
  { id: "effect-ops", name: "effect operations per chain step", run: EffectOps.run, onlyWhenNamed: true }
]

/** Words after the bench ids: `--name value` pairs for the benches that take them (see each bench). */
const parse = (args: ReadonlyArray<string>) => {
  const ids: Array<string> = []
  const options: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (!arg.startsWith("--")) ids.push(arg)
    else options[arg.slice(2)] = args[++i] ?? ""
  }
  return { ids, options }
}

const { ids: asked, options } = parse(process.argv.slice(2))
const unknown = asked.filter((id) => !benches.some((bench) => bench.id === id))
if (unknown.length > 0) {
  console.error(`unknown bench: ${unknown.join(", ")}; choose from ${benches.map((bench) => bench.id).join(", ")}`)
  process.exit(2)
}

for (const bench of benches) {
  if (asked.length > 0 ? !asked.includes(bench.id) : bench.onlyWhenNamed === true) continue
  console.log(`\n=== ${bench.name} ===`)
  try {
    await bench.run(options)
  } catch (error) {
    // One bench failing its own checks must not hide the others' figures.
    console.log(`FAIL  ${bench.id}: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  }
}
