import type { Api } from "../api.js"
import type { Decision, ToolBlock } from "../timeline.js"
import { cardDetail, toolViewOf } from "../tool-view.js"
import { toolAnchor } from "../turn-stats.js"
import { PermissionCard } from "./PermissionCard.js"
import { PlanView } from "./PlanView.js"
import { ToolBody, ToolSubject } from "./ToolDetails.js"

const verbs = { allow: "allowed", deny: "denied", cancelled: "withdrawn" } as const
const scopes = { once: "once", session: "for the session", always: "always" } as const

/** Who or what decided, in words: "allowed once · by user", "denied · by rule settings.json #2 (shell rm)". */
const decisionText = (p: Decision) => {
  const rule = p.rule === undefined ? "" : ` (${p.rule.source} #${p.rule.index} ${p.rule.tool}${p.rule.pattern === undefined ? "" : ` ${p.rule.pattern}`})`
  const scope = p.decision === "allow" || p.scope !== "once" ? ` ${scopes[p.scope]}` : ""
  return `${verbs[p.decision]}${scope} · by ${p.by}${rule}${p.reason === undefined ? "" : ` · ${p.reason}`}`
}

const stateOf = (tool: ToolBlock) => {
  if (tool.ask?.open === true) return "waiting for permission"
  if (tool.plan?.open === true) return "waiting for approval"
  if (tool.permission !== undefined && tool.permission.decision !== "allow") return "not run"
  if (tool.result !== undefined) return tool.result.isError ? "failed" : `done in ${Math.round(tool.result.durationMs)} ms`
  if (tool.abandoned) return "not run"
  if (tool.started) return "running…"
  // Asked, then the question went away without an answer on record (an interrupted turn).
  if (tool.ask !== undefined) return "question withdrawn"
  return tool.permission === undefined ? "requested" : "starting…"
}

export const ToolCallView = ({ api, sessionId, tool }: { readonly api: Api; readonly sessionId: string; readonly tool: ToolBlock }) => {
  const view = toolViewOf(tool)
  return (
    <div
      id={toolAnchor(tool.toolCallId)}
      class={`block tool ${view._tag}${tool.result?.isError === true ? " failed" : ""}`}
      data-tool-call-id={tool.toolCallId}
    >
      <div class="tool-head">
        <span class="tool-name">{view._tag === "mcp" ? "mcp" : tool.name}</span>
        <ToolSubject view={view} />
        <span class="tool-state">{stateOf(tool)}</span>
      </div>
      {tool.permission === undefined ? null : <p class={`permission ${tool.permission.decision}`}>{decisionText(tool.permission)}</p>}
      {tool.ask?.open === true ? (
        <PermissionCard api={api} sessionId={sessionId} toolCallId={tool.toolCallId} ask={tool.ask} detail={cardDetail(view, tool.ask.detail)} />
      ) : null}
      {tool.plan === undefined ? (
        <ToolBody view={view} result={tool.result} live={tool.live} />
      ) : (
        <>
          <PlanView api={api} sessionId={sessionId} toolCallId={tool.toolCallId} plan={tool.plan} />
          {tool.result === undefined ? null : <pre class={tool.result.isError ? "output error" : "output"}>{tool.result.output}</pre>}
        </>
      )}
    </div>
  )
}
