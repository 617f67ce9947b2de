import {
  client as clientApp,
  type ClientConnection,
  type ContentBlock,
  type InitializeResponse,
  methods,
  ndJsonStream,
  type PromptResponse,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type WriteTextFileRequest
} from "@agentclientprotocol/sdk/unstable"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { assertBuilt, cliPath, repoRoot, runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import type { makeTemp } from "../support/temp-dirs.js"

/** Temporary folders of one test file, removed by `cleanup`. */
export interface Workspace {
  /** Where the agent works (absolute, symlinks resolved). */
  readonly cwd: string
  readonly dataDir: string
  /** An empty user configuration: no rules, skills or MCP servers from the machine running the tests. */
  readonly configDir: string
  /** An empty Claude Code user folder: no slash commands from the machine running the tests. */
  readonly claudeDir: string
  readonly script: (name: string, script: Script) => string
}

export const makeWorkspace = (temp: ReturnType<typeof makeTemp>): Workspace => {
  const root = temp.dir("acp-")
  const cwd = join(root, "work")
  const dataDir = join(root, "data")
  const configDir = join(root, "config")
  const claudeDir = join(root, "claude")
  for (const dir of [cwd, dataDir, configDir, claudeDir]) mkdirSync(dir, { recursive: true })
  return {
    cwd,
    dataDir,
    configDir,
    claudeDir,
    script: (name, script) => {
      const file = join(root, `${name}.json`)
      writeFileSync(file, JSON.stringify(script))
      return file
    }
  }
}

/** What the test's client does when the agent calls it. */
export interface ClientBehaviour {
  readonly onPermission?: (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse> | RequestPermissionResponse
  /** Given: the client advertises fs and serves these; the calls are recorded either way. */
  readonly files?: {
    readonly read: (request: ReadTextFileRequest) => string
    readonly write: (request: WriteTextFileRequest) => void
  }
}

export interface AcpProcess {
  readonly child: ChildProcessWithoutNullStreams
  readonly connection: ClientConnection
  /** The agent's answer to `initialize`: its capabilities. */
  readonly initialized: InitializeResponse
  /** Every `session/update` the client received, in order. */
  readonly updates: Array<SessionNotification>
  readonly permissionRequests: Array<RequestPermissionRequest>
  readonly fileCalls: Array<{ readonly method: string; readonly path: string }>
  readonly rawStdout: () => string
  readonly stderr: () => string
  /** Bytes straight onto the agent's stdin, past the SDK. */
  readonly writeRaw: (text: string) => void
  readonly newSession: (cwd: string) => Promise<string>
  readonly prompt: (sessionId: string, text: string | ReadonlyArray<ContentBlock>) => Promise<PromptResponse>
  readonly cancel: (sessionId: string) => Promise<void>
  readonly updatesOf: (sessionId: string) => Array<SessionUpdate>
  /** Closes the connection (stdin ends) and resolves with the agent's exit code. */
  readonly stop: () => Promise<number | null>
}

const reject = (): RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId: "reject_once" } })

/** Starts `custom-agent acp` and connects the SDK's client side to it over real pipes, initialized. */
export const startAcp = async (
  workspace: Workspace,
  options: { readonly script?: string; readonly behaviour?: ClientBehaviour } = {}
): Promise<AcpProcess> => {
  assertBuilt()
  const args = [cliPath, "acp", "--data-dir", workspace.dataDir, ...(options.script === undefined ? [] : ["--script", options.script])]
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: {
      PATH: process.env["PATH"],
      HOME: process.env["HOME"],
      NO_COLOR: "1",
      CUSTOM_AGENT_CONFIG_HOME: workspace.configDir,
      // Claude Code's user folder (its commands are the user's too): none of the machine's.
      CLAUDE_CONFIG_DIR: workspace.claudeDir
    },
    stdio: ["pipe", "pipe", "pipe"]
  })
  const raw: Array<Buffer> = []
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))

  // Every stdout byte is kept for the raw check; the SDK reads them until the connection closes.
  let reading = true
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on("data", (chunk: Buffer) => {
        raw.push(chunk)
        if (reading) controller.enqueue(new Uint8Array(chunk))
      })
      child.stdout.once("end", () => {
        if (reading) controller.close()
        reading = false
      })
    },
    cancel() {
      reading = false
    }
  })
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve, fail) => child.stdin.write(chunk, (error) => (error ? fail(error) : resolve())))
  })
  const stream = ndJsonStream(writable, readable)

  const updates: Array<SessionNotification> = []
  const permissionRequests: Array<RequestPermissionRequest> = []
  const fileCalls: Array<{ method: string; path: string }> = []
  const behaviour = options.behaviour ?? {}
  const app = clientApp({ name: "acp-test-client" })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params)
    })
    .onRequest(methods.client.session.requestPermission, ({ params, signal }) => {
      permissionRequests.push(params)
      return (behaviour.onPermission ?? reject)(params, signal)
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => {
      fileCalls.push({ method: "read", path: params.path })
      if (behaviour.files === undefined) throw new Error("fs was not advertised")
      return { content: behaviour.files.read(params) }
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      fileCalls.push({ method: "write", path: params.path })
      if (behaviour.files === undefined) throw new Error("fs was not advertised")
      behaviour.files.write(params)
      return {}
    })
  const connection = app.connect(stream)
  const fs = behaviour.files !== undefined
  let initialized: InitializeResponse
  try {
    initialized = await connection.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs } },
      clientInfo: { name: "acp-test-client", version: "0.0.0" }
    })
    if (initialized.protocolVersion !== 1) throw new Error(`unexpected protocol version ${initialized.protocolVersion}`)
  } catch (error) {
    await stopChild(child, connection)
    throw new Error(`the agent did not initialize: ${String(error)}\nstderr: ${stderr}`)
  }

  return {
    child,
    connection,
    initialized,
    updates,
    permissionRequests,
    fileCalls,
    rawStdout: () => Buffer.concat(raw).toString("utf8"),
    stderr: () => stderr,
    writeRaw: (text) => void child.stdin.write(text),
    newSession: async (cwd) => (await connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId,
    prompt: (sessionId, text) =>
      connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: typeof text === "string" ? [{ type: "text", text }] : [...text]
      }),
    cancel: (sessionId) => connection.agent.notify(methods.agent.session.cancel, { sessionId }),
    updatesOf: (sessionId) => updates.filter((n) => n.sessionId === sessionId).map((n) => n.update),
    stop: () => stopChild(child, connection)
  }
}

/** Ends the connection (stdin closes) and waits for the agent to exit; kills it if it lingers. */
const stopChild = (child: ChildProcessWithoutNullStreams, connection: ClientConnection) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
    child.once("exit", (code) => resolve(code))
    connection.close()
    child.stdin.end()
    setTimeout(() => child.kill("SIGTERM"), 5_000).unref()
    setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
  })

/** Every line the agent wrote to stdout is one JSON-RPC 2.0 message: nothing else ever goes there. */
export const jsonRpcProblems = (stdout: string): Array<string> =>
  stdout
    .split("\n")
    .filter((line) => line !== "")
    .flatMap((line) => {
      try {
        const message: unknown = JSON.parse(line)
        if (typeof message !== "object" || message === null || Array.isArray(message)) return [`not an object: ${line}`]
        if (!("jsonrpc" in message) || message.jsonrpc !== "2.0") return [`not JSON-RPC 2.0: ${line}`]
        if (!("method" in message) && !("id" in message)) return [`neither a call nor a response: ${line}`]
        return []
      } catch {
        return [`not JSON: ${line}`]
      }
    })

/** The session's stored events, through the CLI as a user would export them. */
export const exportEvents = async (workspace: Workspace, sessionId: string): Promise<Array<AgentEvent>> => {
  const result = await runCli(["sessions", "export", sessionId, "--data-dir", workspace.dataDir], {
    env: { CUSTOM_AGENT_CONFIG_HOME: workspace.configDir }
  })
  if (result.code !== 0) throw new Error(`export failed: ${result.stderr}`)
  return parseEventLines(result.stdout)
}

/** Resolves once `predicate` holds for the updates received so far (checked as they arrive). */
export const waitFor = (acp: AcpProcess, predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> =>
  new Promise((resolve, fail) => {
    const started = Date.now()
    const check = () => {
      if (predicate()) return resolve()
      if (Date.now() - started > timeoutMs) return fail(new Error(`timed out waiting for ${what}\nstderr: ${acp.stderr()}`))
      setTimeout(check, 10)
    }
    check()
  })

/** The agent's stdout as messages, in the order written (for checks of what came before what). */
export const rawMessages = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .split("\n")
    .filter((line) => line !== "")
    .flatMap((line) => {
      const message: unknown = JSON.parse(line)
      return typeof message === "object" && message !== null && !Array.isArray(message) ? [{ ...message }] : []
    })

/** Index of the first response whose result has `key`, and of the last `session/update` for `sessionId` before it. */
export const updatesBeforeResponse = (stdout: string, key: string, sessionId: string) => {
  const messages = rawMessages(stdout)
  const response = messages.findIndex((m) => typeof m["result"] === "object" && m["result"] !== null && key in m["result"])
  const updates = messages.flatMap((m, i) =>
    m["method"] === "session/update" && typeof m["params"] === "object" && m["params"] !== null && "sessionId" in m["params"] && m["params"].sessionId === sessionId ? [i] : []
  )
  return { response, updates }
}

/**
 * What the client received from the agent, in order: each update as `update <kind> <toolCallId>`,
 * each request as `<method> <path>` (for file requests), responses left out.
 */
export const receivedOrder = (stdout: string): Array<string> =>
  rawMessages(stdout).flatMap((m) => {
    const params: unknown = m["params"]
    if (typeof m["method"] !== "string" || typeof params !== "object" || params === null) return []
    if (m["method"] !== "session/update") return [`${m["method"]} ${String(Reflect.get(params, "path") ?? "")}`.trim()]
    const update: unknown = Reflect.get(params, "update")
    if (typeof update !== "object" || update === null) return []
    return [`update ${String(Reflect.get(update, "sessionUpdate"))} ${String(Reflect.get(update, "toolCallId") ?? "")}`.trim()]
  })

