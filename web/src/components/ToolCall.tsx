import { useState } from "preact/hooks"
import type { PermissionScope } from "../../../src/domain/permissions.js"
import { type Api, describe } from "../api.js"
import type { Ask, Decision, ToolBlock, ToolOutcome } from "../timeline.js"
import { Diff, looksLikeDiff } from "./Diff.js"

const inputLimit = 400

const compact = (input: unknown): string => {
  if (input === undefined) return ""
  const json = JSON.stringify(input) ?? String(input)
  return json.length > inputLimit ? `${json.slice(0, inputLimit)}…` : json
}

const verbs = { allow: "allowed", deny: "denied", cancelled: "withdrawn" } as const
const scopes = { once: "once", session: "for the session", always: "always" } as const

/** Who or what decided, in words: "allowed once · by user", "denied · by rule settings.json #2 (shell rm)". */
const decisionText = (p: Decision) => {
  const rule = p.rule === undefined ? "" : ` (${p.rule.source} #${p.rule.index} ${p.rule.tool}${p.rule.pattern === undefined ? "" : ` ${p.rule.pattern}`})`
  const scope = p.decision === "allow" ? ` ${scopes[p.scope]}` : ""
  return `${verbs[p.decision]}${scope} · by ${p.by}${rule}${p.reason === undefined ? "" : ` · ${p.reason}`}`
}

const answers: ReadonlyArray<{ readonly label: string; readonly decision: "allow" | "deny"; readonly scope: PermissionScope }> = [
  { label: "Allow once", decision: "allow", scope: "once" },
  { label: "Allow for session", decision: "allow", scope: "session" },
  { label: "Always allow", decision: "allow", scope: "always" },
  { label: "Deny", decision: "deny", scope: "once" }
]

const PermissionCard = ({ api, sessionId, toolCallId, ask }: { readonly api: Api; readonly sessionId: string; readonly toolCallId: string; readonly ask: Ask }) => {
  const [busy, setBusy] = useState(false)
  const [note, setNote] = useState<{ readonly text: string; readonly quiet: boolean } | undefined>(undefined)
  const respond = async (decision: "allow" | "deny", scope: PermissionScope) => {
    setBusy(true)
    const result = await api.call((client) => client.RespondPermission({ sessionId, toolCallId, answer: { decision, scope } }))
    setBusy(false)
    if (result._tag === "Right") return
    // Someone else answered first (another tab, the CLI): the resolution arrives as an event.
    if (result.left._tag === "PermissionNotPending") return setNote({ text: "Already answered elsewhere.", quiet: true })
    setNote({ text: describe(result.left), quiet: false })
  }
  return (
    <div class="permission-card" role="group" aria-label="permission request">
      <p>
        <span class={`risk ${ask.risk}`}>{ask.risk}</span> {ask.summary}
      </p>
      {ask.detail === undefined ? null : looksLikeDiff(ask.detail) ? <Diff text={ask.detail} /> : <pre>{ask.detail}</pre>}
      <div class="actions">
        {answers.map((a) => (
          <button key={a.label} type="button" class={a.decision} disabled={busy} onClick={() => respond(a.decision, a.scope)}>
            {a.label}
          </button>
        ))}
      </div>
      {note === undefined ? null : <p class={note.quiet ? "muted" : "error"}>{note.text}</p>}
    </div>
  )
}

const ShellResult = ({ result, command, exitCode, signal, timedOut, truncated }: {
  readonly result: ToolOutcome
  readonly command: string
  readonly exitCode: number | null
  readonly signal: string | undefined
  readonly timedOut: boolean
  readonly truncated: boolean
}) => {
  const facts = [
    exitCode === null ? undefined : `exit code ${exitCode}`,
    signal === undefined ? undefined : `signal ${signal}`,
    timedOut ? "timed out" : undefined,
    truncated ? "output truncated" : undefined
  ].filter((fact) => fact !== undefined)
  return (
    <div class="shell">
      <pre class="command">$ {command}</pre>
      {result.output === "" ? null : <pre class="output">{result.output}</pre>}
      <p class={exitCode === 0 ? "exit ok" : "exit failed"}>{facts.join(" · ")}</p>
    </div>
  )
}

const Result = ({ result }: { readonly result: ToolOutcome }) => {
  const data = result.data
  switch (data?._tag) {
    case "edit":
      return (
        <div class="edit">
          <p class="path">{data.before === null ? "created" : "edited"} {data.path}</p>
          <Diff text={data.diff} />
        </div>
      )
    case "shell":
      return (
        <ShellResult
          result={result}
          command={data.command}
          exitCode={data.exitCode}
          signal={data.signal}
          timedOut={data.timedOut}
          truncated={data.truncated}
        />
      )
    default:
      return <pre class="output">{result.output}</pre>
  }
}

const stateOf = (tool: ToolBlock) => {
  if (tool.ask?.open === true) return "waiting for permission"
  if (tool.permission !== undefined && tool.permission.decision !== "allow") return "not run"
  if (tool.result !== undefined) return tool.result.isError ? "failed" : `done in ${Math.round(tool.result.durationMs)} ms`
  if (tool.abandoned) return "not run"
  if (tool.started) return "running…"
  return tool.permission === undefined ? "requested" : "starting…"
}

export const ToolCallView = ({ api, sessionId, tool }: { readonly api: Api; readonly sessionId: string; readonly tool: ToolBlock }) => (
  <div class={tool.result?.isError === true ? "block tool failed" : "block tool"} data-tool-call-id={tool.toolCallId}>
    <div class="tool-head">
      <span class="tool-name">{tool.name}</span>
      <code class="tool-input">{compact(tool.input)}</code>
      <span class="tool-state">{stateOf(tool)}</span>
    </div>
    {tool.permission === undefined ? null : (
      <p class={`permission ${tool.permission.decision}`}>{decisionText(tool.permission)}</p>
    )}
    {tool.ask?.open === true ? <PermissionCard api={api} sessionId={sessionId} toolCallId={tool.toolCallId} ask={tool.ask} /> : null}
    {tool.result === undefined ? null : <Result result={tool.result} />}
  </div>
)
