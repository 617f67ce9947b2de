import { useLayoutEffect, useRef } from "preact/hooks"
import type { LiveOutput, ToolOutcome } from "../timeline.js"
import { type Arg, exitText, type ToolView } from "../tool-view.js"
import { Diff } from "./Diff.js"
import { Markdown } from "./Markdown.js"
import { TaskItems } from "./TaskList.js"

/** A call's arguments as a table of names and values. */
const ArgsTable = ({ args }: { readonly args: ReadonlyArray<Arg> }) =>
  args.length === 0 ? null : (
    <table class="args">
      <tbody>
        {args.map((arg) => (
          <tr key={arg.key}>
            <th scope="row">{arg.key}</th>
            <td>
              <code>{arg.value}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )

const Output = ({ result }: { readonly result: ToolOutcome }) =>
  result.output === "" ? null : <pre class={result.isError ? "output error" : "output"}>{result.output}</pre>

/**
 * What a running call printed so far, scrolled to its end as it grows (where a person looks
 * while a command runs). After a cancel, what ran before it.
 */
const Live = ({ live, ended }: { readonly live: LiveOutput; readonly ended: boolean }) => {
  const box = useRef<HTMLPreElement>(null)
  useLayoutEffect(() => {
    const element = box.current
    if (element !== null) element.scrollTop = element.scrollHeight
  }, [live.text])
  return (
    <>
      {ended ? <p class="live-note muted">Output before it ended:</p> : null}
      <pre ref={box} class="output live" aria-live={ended ? "off" : "polite"}>
        {live.text}
      </pre>
      {live.capped && !ended ? <p class="live-note muted">More output: shown when the command ends.</p> : null}
    </>
  )
}

const LiveOf = ({ live, result }: { readonly live: LiveOutput | undefined; readonly result: ToolOutcome | undefined }) =>
  live === undefined ? null : <Live live={live} ended={result !== undefined} />

/** The line in the call's head beside its name: what it works on. */
export const ToolSubject = ({ view }: { readonly view: ToolView }) => {
  switch (view._tag) {
    case "read":
      return (
        <span class="tool-subject">
          <code class="path">{view.path}</code> <span class="lines">{view.lines ?? "whole file"}</span>
        </span>
      )
    case "edit":
      return (
        <span class="tool-subject">
          {view.verb} <code class="path">{view.path}</code>
        </span>
      )
    case "shell":
      return <span class="tool-subject muted">{view.description ?? ""}</span>
    case "mcp":
      return (
        <span class="tool-subject">
          <span class="mcp-server">{view.server}</span> › <span class="mcp-tool">{view.tool}</span>
        </span>
      )
    case "tasks": {
      const done = view.todos.filter((todo) => todo.status === "completed").length
      return <span class="tool-subject muted">{`${view.todos.length} task(s), ${done} done`}</span>
    }
    case "subagent":
      return (
        <span class="tool-subject">
          <span class="agent">{view.agent}</span> <span class="muted">subagent</span>
        </span>
      )
    case "other":
      return <span class="tool-subject" />
  }
}

/** What the call did: a read's content (folded), an edit's diff, a command's output and exit, arguments and output otherwise. */
export const ToolBody = ({ view, result, live }: { readonly view: ToolView; readonly result: ToolOutcome | undefined; readonly live?: LiveOutput | undefined }) => {
  switch (view._tag) {
    case "read":
      if (result === undefined) return null
      return result.isError ? (
        <Output result={result} />
      ) : (
        <details class="read-content">
          <summary>Content</summary>
          <Output result={result} />
        </details>
      )
    case "edit":
      if (view.diff !== undefined) return <Diff text={view.diff} />
      return result === undefined ? null : <Output result={result} />
    case "shell":
      return (
        <div class="shell">
          <pre class="command">$ {view.command}</pre>
          {result === undefined ? null : <Output result={result} />}
          <LiveOf live={live} result={result} />
          {view.exit === undefined ? null : <p class={view.exit.exitCode === 0 ? "exit ok" : "exit failed"}>{exitText(view.exit)}</p>}
        </div>
      )
    case "tasks":
      return (
        <>
          <TaskItems todos={view.todos} />
          {result === undefined || !result.isError ? null : <Output result={result} />}
        </>
      )
    case "subagent":
      // The prompt folded (the call's own), the answer once, as the Markdown it is.
      return (
        <>
          <details class="subagent-prompt">
            <summary>Prompt</summary>
            <pre>{view.prompt}</pre>
          </details>
          {result === undefined ? null : result.isError ? (
            <Output result={result} />
          ) : (
            <div class="subagent-answer">
              <Markdown text={result.output} streaming={false} />
            </div>
          )}
        </>
      )
    case "mcp":
    case "other":
      return (
        <>
          <ArgsTable args={view.args} />
          {result === undefined ? null : <Output result={result} />}
          <LiveOf live={live} result={result} />
        </>
      )
  }
}
