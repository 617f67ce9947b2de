/**
 * V8 settings the launcher (`bin/custom-agent.js`) applies with `v8.setFlagsFromString`
 * before it loads the CLI, chosen by the command. Most heap flags only work on the command
 * line; these two were measured to work when set at run time, so every way of starting the
 * CLI gets them without a shebang flag or a second process (docs/performance.md).
 *
 * - `--liftoff-only`: the only WebAssembly in the process is undici's HTTP parser, under
 *   `fetch` (the OpenAI-compatible adapter, MCP over HTTP; the Anthropic adapter sends on
 *   node:http); optimizing it costs a 30 MiB transient on the first request, for a parser
 *   that reads a few KB per model answer.
 * - `--semi-space-growth-factor=1`, except for the long-lived `serve` and `acp`: the young
 *   generation keeps its initial 1 MiB semi-spaces instead of growing to 16 MiB, which was
 *   most of the peak RSS of a short run (about 30 MiB of a 100-step chain, at the same CPU
 *   time). A server keeps V8's default, which favours throughput.
 */
export const v8FlagsFor = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const command = args[0]
  const longLived = command === "serve" || command === "acp"
  return longLived ? ["--liftoff-only"] : ["--liftoff-only", "--semi-space-growth-factor=1"]
}
