/**
 * V8 settings the launcher (`bin/custom-agent.js`) applies with `v8.setFlagsFromString`
 * before it loads the CLI, chosen by the command and the V8 the process runs on. Most heap
 * flags only work on the command line; these were measured to work when set at run time,
 * so every way of starting the CLI gets them without a shebang flag or a second process
 * (docs/performance.md).
 *
 * - `--liftoff-only`: the only WebAssembly in the process is undici's HTTP parser, under
 *   `fetch` (the OpenAI-compatible adapter, MCP over HTTP; the Anthropic adapter sends on
 *   node:http); optimizing it costs a 30 MiB transient on the first request, for a parser
 *   that reads a few KB per model answer.
 * - `--semi-space-growth-factor=1`, except for the long-lived `serve` and `acp`: the young
 *   generation keeps its initial 1 MiB semi-spaces instead of growing to 16 MiB, which was
 *   most of the peak RSS of a short run (about 30 MiB of a 100-step chain, at the same CPU
 *   time). A server keeps V8's default, which favours throughput.
 * - `--interrupt-budget` four times V8's default, on Node 20's V8 only and not for `serve`
 *   and `acp`: functions go to TurboFan after four times as much work. Node 20 has no
 *   mid tier, so a short run compiled about 200 functions with TurboFan, most of them
 *   effect's, whose compile time (on the other core of a 2-core machine) cost more than the
 *   optimized code saved; four times fewer compiles took a third of the CPU time off each
 *   step of a tool chain. Later V8s (Node 22, 24) tier up through Maglev and name their
 *   thresholds differently; they keep their defaults (not measured).
 * - `--heap-growing-percent=35`, for the interactive session only: after each full collection
 *   the old generation may grow by 35% before the next, where V8 lets a busy heap double or
 *   more. Resuming a long session reads and draws its whole log at once; V8's own pacing took
 *   its peak RSS past 100 MiB with most of it garbage, this keeps it near 90 MiB at about the
 *   same CPU time (docs/performance.md). One-shot commands keep V8's pacing (not measured).
 */
/** Node 20 ships V8 11.3 in all its releases. */
const NODE_20_V8 = "11.3."
const INTERRUPT_BUDGET = 4 * 67_584
const HEAP_GROWING = "--heap-growing-percent=35"

/** `interactive`: the command line opens the interactive session on a terminal (the launcher knows it from `isInteractiveArgv`). */
export const v8FlagsFor = (args: ReadonlyArray<string>, v8Version: string, interactive = false): ReadonlyArray<string> => {
  const command = args[0]
  if (command === "serve" || command === "acp") return ["--liftoff-only"]
  const short = ["--liftoff-only", "--semi-space-growth-factor=1", ...(interactive ? [HEAP_GROWING] : [])]
  return v8Version.startsWith(NODE_20_V8) ? [...short, `--interrupt-budget=${INTERRUPT_BUDGET}`] : short
}
