import { Option } from "effect"
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks"
import { type Api, describe } from "../api.js"
import { restore, save } from "../cache.js"
import { type Connection, follow } from "../follow.js"
import { emptyTimeline, type TimelineState } from "../timeline.js"
import { BlockView } from "./Blocks.js"
import { Composer } from "./Composer.js"
import { QueueView } from "./Queue.js"

interface Props {
  readonly api: Api
  readonly sessionId: string
  /** The session started or stopped running: the list may want to know. */
  readonly onStatus: () => void
}

const saveDelayMs = 250

const ConnectionNote = ({ connection }: { readonly connection: Connection }) => {
  switch (connection._tag) {
    case "live":
      return null
    case "connecting":
      return <p class="connection muted">Connecting…</p>
    case "retrying":
      return <p class="connection warn">Reconnecting: {connection.reason}</p>
    case "stopped":
      return <p class="connection error">{connection.reason}</p>
  }
}

/** Keeps the latest view in sessionStorage (at most every `saveDelayMs`, and on leaving the page) for a resume. */
const usePersisted = (state: TimelineState) => {
  const latest = useRef(state)
  latest.current = state
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => {
    if (pending.current !== undefined) return
    pending.current = setTimeout(() => {
      pending.current = undefined
      save(latest.current)
    }, saveDelayMs)
  }, [state])
  useEffect(() => {
    const flush = () => {
      clearTimeout(pending.current)
      pending.current = undefined
      save(latest.current)
    }
    addEventListener("pagehide", flush)
    return () => {
      removeEventListener("pagehide", flush)
      flush()
    }
  }, [])
}

/** Keeps the newest content in sight while the reader is at the bottom. */
const useStickToBottom = (dependency: unknown) => {
  const ref = useRef<HTMLDivElement>(null)
  const atBottom = useRef(true)
  useLayoutEffect(() => {
    const element = ref.current
    if (element !== null && atBottom.current) element.scrollTop = element.scrollHeight
  }, [dependency])
  const onScroll = () => {
    const element = ref.current
    if (element !== null) atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40
  }
  return { ref, onScroll }
}

export const SessionPane = ({ api, sessionId, onStatus }: Props) => {
  const [state, setState] = useState(() => Option.getOrElse(restore(sessionId), () => emptyTimeline(sessionId)))
  const [connection, setConnection] = useState<Connection>({ _tag: "connecting" })
  const [cancelError, setCancelError] = useState<string | undefined>(undefined)
  usePersisted(state)
  const scroll = useStickToBottom(state)

  useEffect(() => api.fork(follow(state, { onState: setState, onConnection: setConnection })), [api, sessionId])
  useEffect(onStatus, [state.running])

  const cancel = async () => {
    const result = await api.call((client) => client.Cancel({ sessionId }))
    setCancelError(result._tag === "Left" ? describe(result.left) : undefined)
  }

  const header = state.header
  return (
    <main class="pane">
      <header class="session-header">
        <div>
          <h2>{header?.title ?? sessionId}</h2>
          <p class="muted">
            {header?.cwd ?? ""}
            {header?.model === undefined ? "" : ` · ${header.model}`}
          </p>
        </div>
        <div class="status">
          {state.running ? (
            <>
              <span class="running" role="status">
                <span class="spinner" /> running
              </span>
              <button type="button" class="cancel" onClick={cancel}>
                Cancel
              </button>
            </>
          ) : (
            <span class="idle" role="status">
              idle
            </span>
          )}
        </div>
      </header>
      <ConnectionNote connection={connection} />
      {cancelError === undefined ? null : <p class="error">{cancelError}</p>}
      <div class="timeline" ref={scroll.ref} onScroll={scroll.onScroll}>
        {state.blocks.length === 0 && connection._tag === "live" ? <p class="muted">Nothing yet: send a prompt below.</p> : null}
        {state.blocks.map((block) => (
          <BlockView key={block.sequence} api={api} sessionId={sessionId} block={block} />
        ))}
      </div>
      <QueueView api={api} sessionId={sessionId} inbox={state.inbox} />
      <Composer api={api} sessionId={sessionId} running={state.running} />
    </main>
  )
}
