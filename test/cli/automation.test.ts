import { afterAll, describe, expect, it } from "vitest"
import { Ajv } from "ajv"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { repoRoot, runCli, startServer, stop } from "../support/cli.js"
import { goldenTranscripts } from "../support/golden.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), "automation-"))
  dirs.push(dir)
  return dir
}

/** A fresh data and config home, with a script (and settings) written into it. */
const setup = (script: unknown, settings?: unknown) => {
  const dir = temp()
  const scriptFile = join(dir, "script.json")
  writeFileSync(scriptFile, JSON.stringify(script))
  if (settings !== undefined) writeFileSync(join(dir, "settings.json"), JSON.stringify(settings))
  return { dir, scriptFile, env: { CUSTOM_AGENT_HOME: join(dir, "data"), CUSTOM_AGENT_CONFIG_HOME: dir } }
}

const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { type: string; sessionId: string; payload: Record<string, unknown> })

const schemaFile = () => {
  const file = join(temp(), "answer.schema.json")
  writeFileSync(
    file,
    JSON.stringify({ type: "object", required: ["status"], properties: { status: { enum: ["ok", "broken"] } }, additionalProperties: false })
  )
  return file
}

describe("custom-agent schema events", () => {
  it("prints the shipped JSON Schema; ajv validates every golden transcript against it and refuses a wrong event", async () => {
    const result = await runCli(["schema", "events"])
    expect(result.code).toBe(0)
    const schema = JSON.parse(result.stdout) as Record<string, unknown>
    expect(schema).toEqual(JSON.parse(readFileSync(join(repoRoot, "schema/events.schema.json"), "utf8")))
    const validate = new Ajv({ allErrors: true, strictTypes: false }).compile(schema)
    for (const transcript of goldenTranscripts()) {
      for (const event of transcript.events) expect(validate(event) ? null : validate.errors).toBeNull()
    }
    const [first] = goldenTranscripts()[0]?.events ?? []
    expect(validate({ ...(first as object), type: "session.exploded" })).toBe(false)
  })
})

describe("run --output-schema", () => {
  it("an invalid first answer is asked again; the valid second one is the final event's payload with --json", async () => {
    const { scriptFile, env } = setup({ responses: ['{"status": "fine"}', '{"status": "ok"}'] })
    const result = await runCli(["run", "check it", "--json", "--script", scriptFile, "--output-schema", schemaFile()], { env })
    expect(result.code).toBe(0)
    const events = lines(result.stdout)
    const structured = events.find((e) => e.type === "output.structured")
    expect(structured?.payload).toEqual({ value: { status: "ok" }, attempts: 2 })
    expect(events.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "final" } })
    expect(events.at(-2)?.type).toBe("output.structured")
  })

  it("without --json, stdout carries only the validated value; each answer sent back is one line on stderr", async () => {
    const { scriptFile, env } = setup({ responses: ["The build is green.", '{"status": "fine"}', '{"status": "ok"}'] })
    const result = await runCli(["run", "check it", "--script", scriptFile, "--output-schema", schemaFile()], { env })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('{"status":"ok"}\n')
    const sentBack = result.stderr.split("\n").filter((line) => line.includes("did not validate against --output-schema"))
    expect(sentBack).toEqual([
      expect.stringMatching(/^answer 1 did not validate against --output-schema, asking again: the answer is not JSON/),
      expect.stringMatching(/^answer 2 did not validate against --output-schema, asking again: \/status: must be equal to one of the allowed values/)
    ])
  })

  it("answers that never validate exit 3 with the problems", async () => {
    const { scriptFile, env } = setup({ responses: ["not json", '{"status": 1}', '{"state": "ok"}'] })
    const json = await runCli(["run", "check it", "--json", "--script", scriptFile, "--output-schema", schemaFile()], { env })
    expect(json.code).toBe(3)
    expect(lines(json.stdout).at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "error", errorCode: "output_invalid" } })
    const again = setup({ responses: ["not json", "still not"] })
    const text = await runCli(["run", "check it", "--script", again.scriptFile, "--output-schema", schemaFile(), "--output-retries", "1"], { env: again.env })
    expect(text.code).toBe(3)
    expect(text.stdout + text.stderr).toMatch(/output_invalid.*no answer validated against the output schema after 2 attempt/s)
  })

  it("a turn stopped by its step limit before an answer validated exits 3 as well", async () => {
    const { scriptFile, env } = setup({ responses: ['{"status": 1}', '{"status": 2}'] })
    const result = await runCli(["run", "check it", "--script", scriptFile, "--output-schema", schemaFile(), "--max-steps", "1"], { env })
    expect(result.code).toBe(3)
    expect(result.stderr).toContain("the turn stopped (max_steps) before an answer validated against --output-schema")
  })

  it("a schema file that is missing, not JSON or not a schema is a usage error before anything runs", async () => {
    const { scriptFile, env } = setup({ responses: ["{}"] })
    const bad = join(temp(), "bad.json")
    writeFileSync(bad, '{"type": "nonsense"}')
    const notJson = join(temp(), "not.json")
    writeFileSync(notJson, "{")
    for (const [file, message] of [
      [join(temp(), "missing.json"), "--output-schema: no such file: "],
      [notJson, "not JSON"],
      [bad, "not a usable JSON Schema"]
    ] as const) {
      const result = await runCli(["run", "x", "--script", scriptFile, "--output-schema", file], { env })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(message)
    }
  })
})

describe("the terms over a server", () => {
  it("run --server carries --output-schema and --max-turn-tokens to the server's turn", { timeout: 60_000 }, async () => {
    const { scriptFile, env, dir } = setup({
      responses: ['{"status": "unknown"}', '{"status": "broken"}', { chunks: [{ toolCall: { name: "list_files", input: {} } }], usage: { inputTokens: 900, outputTokens: 200 } }, "never asked"]
    })
    const server = await startServer(["--script", scriptFile], { env })
    try {
      const remote = { ...env, CUSTOM_AGENT_TOKEN: server.token }
      const structured = await runCli(["run", "check", "--server", server.url, "--json", "--output-schema", schemaFile()], { env: remote, cwd: dir })
      expect(structured.code).toBe(0)
      expect(lines(structured.stdout).find((e) => e.type === "output.structured")?.payload).toEqual({ value: { status: "broken" }, attempts: 2 })
      // The same session: the scripted model's answers go on where the first turn left them.
      const sessionId = lines(structured.stdout)[0]?.sessionId ?? ""
      const budget = await runCli(["run", "look", "--server", server.url, "--session", sessionId, "--json", "--max-turn-tokens", "1000", "--approve", "allow-reads"], {
        env: remote,
        cwd: dir
      })
      expect(budget.code).toBe(0)
      const events = lines(budget.stdout)
      expect(events.find((e) => e.type === "turn.started")?.payload["terms"]).toEqual({ maxTurnTokens: 1000 })
      expect(events.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "budget", message: "the turn used 1100 tokens, its limit is 1000" } })
    } finally {
      await stop(server.child)
    }
  })
})

describe("cost and budgets on the command line", () => {
  const usage = { inputTokens: 100_000, outputTokens: 10_000 }
  const step = { chunks: [{ toolCall: { name: "list_files", input: {} } }], usage }
  // $1 per million input tokens, $10 per million output: each step costs $0.20.
  const settings = { prices: { scripted: { inputPerMTok: 1, outputPerMTok: 10 } } }

  it("--max-cost-usd stops the chain at the step that crosses it; run, sessions show and the log say what it cost", async () => {
    const { scriptFile, env, dir } = setup({ responses: [step, step, step, step, "done"] }, settings)
    const result = await runCli(["run", "look around", "--script", scriptFile, "--max-cost-usd", "0.5", "--approve", "allow-reads"], { env, cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout + result.stderr).toContain("budget: the turn cost $0.6000, its limit is $0.5000")
    expect(result.stderr).toMatch(/cost \$0\.6000 \(330000 tokens\)\nsession ses_\S+\n/)
    const sessionId = /session (ses_\S+)/.exec(result.stderr)?.[1] ?? ""
    const shown = await runCli(["sessions", "show", sessionId], { env })
    expect(shown.stdout).toContain("· $0.2000")
    expect(shown.stdout).toContain("── budget")
    expect(shown.stdout).toContain("session: 3 model request(s), 330000 tokens, cost $0.6000")
    const exported = lines((await runCli(["sessions", "export", sessionId], { env })).stdout)
    expect(exported.filter((e) => e.type === "model.completed").map((e) => e.payload["costUsd"])).toEqual([0.2, 0.2, 0.2])
  })

  it("--max-turn-tokens and --max-cost-usd refuse values that are not limits", async () => {
    for (const args of [["--max-cost-usd", "0"], ["--max-cost-usd", "abc"], ["--max-turn-tokens", "-5"]]) {
      const result = await runCli(["run", "x", ...args])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(args[0] ?? "")
    }
  })
})

describe("OpenTelemetry from the command line", () => {
  it("run sends its spans before it exits; sessions export --otlp sends the same ones again", async () => {
    const bodies: Array<string> = []
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
      req.on("end", () => {
        bodies.push(body)
        res.writeHead(200).end("{}")
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      const { scriptFile, env, dir } = setup({ responses: [{ chunks: [{ toolCall: { name: "list_files", input: {} } }] }, "done"] })
      const otel = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }
      const run = await runCli(["run", "look", "--script", scriptFile, "--approve", "allow-reads"], { env: otel, cwd: dir })
      expect(run.code).toBe(0)
      const spanNames = (from: number) =>
        bodies
          .slice(from)
          .flatMap((body) => (JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; spanId: string }> }> }> }).resourceSpans)
          .flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => `${s.name}:${s.spanId}`)))
          .sort()
      const live = spanNames(0)
      expect(live.map((s) => s.split(":")[0])).toEqual(["chat scripted", "chat scripted", "execute_tool list_files", "invoke_agent custom-agent"])
      const sessionId = /session (ses_\S+)/.exec(run.stderr)?.[1] ?? ""
      const before = bodies.length
      const exported = await runCli(["sessions", "export", sessionId, "--otlp"], { env: otel })
      expect(exported.code).toBe(0)
      expect(exported.stderr).toContain(`sent 4 span(s) of 1 turn(s) to http://127.0.0.1:${port}/v1/traces`)
      expect(spanNames(before)).toEqual(live)
      const unset = await runCli(["sessions", "export", sessionId, "--otlp"], { env })
      expect(unset.code).toBe(1)
      expect(unset.stderr).toContain("OTEL_EXPORTER_OTLP_ENDPOINT")
    } finally {
      server.close()
    }
  })
})
