import { Option } from "effect"
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks"
import type { SessionListItem } from "../../../src/domain/host.js"
import { showInvisible } from "../../../src/domain/visible-text.js"
import { type Api, describe } from "../api.js"
import { restore, save } from "../cache.js"
import { type Connection, follow } from "../follow.js"
import { useFork } from "../fork.js"
import { useFrameState } from "../frame-state.js"
import type { MemoryReview } from "../memory.js"
import { type EventRange, linkTo, type Route } from "../route.js"
import { modelChoices } from "../model-choices.js"
import type { RetrySignal } from "../retry.js"
import { paneStatus, type ShownStatus, statusLabels } from "../session-list.js"
import { slotMarks } from "../slot-marks.js"
import {
  blocksInRange,
  currentTasks,
  emptyTimeline,
  type ForkedFrom,
  lastMemoryNote,
  lastTurnFailed,
  openAsks,
  retryablePrompt,
  type TimelineState
} from "../timeline.js"
import { BlockView } from "./Blocks.js"
import { CompactResult, useCompaction } from "./Compact.js"
import { Composer } from "./Composer.js"
import { QueueView } from "./Queue.js"
import { RewindCard, useRewind } from "./Rewind.js"
import { TaskList } from "./TaskList.js"
import { ForkButton, RewindMenu } from "./TurnActions.js"
import { sessionCost } from "../turn-stats.js"
import { shownCost } from "../../../src/domain/spend.js"

interface Props {
  readonly api: Api
  readonly sessionId: string
  /** The session as the session list has it (its status knows a turn a dead process left open). */
  readonly listed: SessionListItem | undefined
  /** Events to show first and mark (a memory's evidence), from the link that opened the session. */
  readonly events: EventRange | undefined
  readonly onNavigate: (route: Route) => void
  readonly review: MemoryReview["review"]
  /** A memory was proposed, approved, rejected or deleted in this session: the memory lists may want to know. */
  readonly onMemoryNote: () => void
  /** Cuts the pause before the stream is opened again short ("Retry now"). */
  readonly retry: RetrySignal
  /** The models other sessions use, suggested in the model picker. */
  readonly otherModels: ReadonlyArray<string | undefined>
}

const saveDelayMs = 250

const paneTitles: Partial<Record<ShownStatus, string>> = {
  interrupted: "A turn of this session never ended: the process running it stopped.",
  failed: "The last turn failed: see its end below."
}

const ConnectionNote = ({ connection }: { readonly connection: Connection }) => {
  switch (connection._tag) {
    case "live":
      return null
    case "connecting":
      return <p class="connection muted">Connecting…</p>
    case "retrying":
      // Nothing answers: the page's one banner says so, for every stream.
      return connection.unreachable ? null : <p class="connection warn">Reconnecting: {connection.reason}</p>
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

/** The header's note on a forked session: where its first events were copied from. */
const ForkNote = ({ forkedFrom, onNavigate }: { readonly forkedFrom: ForkedFrom; readonly onNavigate: (route: Route) => void }) => (
  <p class="forked-from muted">
    Forked from <a {...linkTo({ _tag: "session", sessionId: forkedFrom.sessionId }, onNavigate)}>{forkedFrom.sessionId}</a> at event{" "}
    {forkedFrom.atSequence}
  </p>
)

const rangeKey = (events: EventRange | undefined) => (events === undefined ? undefined : `${events.from}-${events.to}`)

/**
 * Keeps the newest content in sight while the reader is at the bottom. Opened at some events
 * instead, it scrolls to the first marked block once it has been replayed, and stays there.
 */
const useScrolling = (state: TimelineState, events: EventRange | undefined) => {
  const ref = useRef<HTMLDivElement>(null)
  const atBottom = useRef(events === undefined)
  const shown = useRef<string | undefined>(undefined)
  useLayoutEffect(() => {
    const element = ref.current
    if (element === null) return
    const wanted = rangeKey(events)
    if (wanted !== undefined && shown.current !== wanted) {
      const target = element.querySelector(".slot.marked > *")
      if (target === null) return
      shown.current = wanted
      atBottom.current = false
      target.scrollIntoView({ block: "center" })
      return
    }
    if (atBottom.current) element.scrollTop = element.scrollHeight
  }, [state, events])
  const onScroll = () => {
    const element = ref.current
    if (element !== null) atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40
  }
  return { ref, onScroll }
}

export const SessionPane = ({ api, sessionId, listed, events, onNavigate, review, onMemoryNote, retry, otherModels }: Props) => {
  const [state, setState] = useFrameState(() => Option.getOrElse(restore(sessionId), () => emptyTimeline(sessionId)))
  const [connection, setConnection] = useState<Connection>({ _tag: "connecting" })
  const [actionError, setActionError] = useState<string | undefined>(undefined)
  const compaction = useCompaction(api, sessionId)
  const rewind = useRewind(api, sessionId)
  const fork = useFork(api, sessionId, onNavigate)
  usePersisted(state)
  const scroll = useScrolling(state, events)
  const marked = useMemo(() => (events === undefined ? new Set<number>() : blocksInRange(state, events)), [state, events])
  const memoryNote = lastMemoryNote(state)
  const statsByTurn = useMemo(() => new Map(state.turns.map((turn) => [turn.turnId, turn])), [state.turns])
  const cost = useMemo(() => shownCost(sessionCost(state.turns)), [state.turns])
  const marks = useMemo(() => slotMarks(state), [state])
  const tasks = useMemo(() => currentTasks(state), [state.tasks, state.rewinds])
  // One change at a time, and none while a turn runs (the server would refuse it).
  const turnActionsOff = state.running || rewind.busy || fork.forking

  useEffect(() => api.fork(follow(state, { onState: setState, onConnection: setConnection, retry })), [api, sessionId])
  useEffect(() => {
    if (memoryNote > 0) onMemoryNote()
  }, [memoryNote])

  const cancel = async () => {
    const result = await api.call((client) => client.Cancel({ sessionId }))
    setActionError(result._tag === "Left" ? describe(result.left) : undefined)
  }

  const retryable = useMemo(() => (state.running ? undefined : retryablePrompt(state)), [state])
  const retryContent = retryable?.content
  const onRetry = useCallback(async () => {
    if (retryContent === undefined) return
    const result = await api.call((client) => client.Prompt({ sessionId, content: retryContent, mode: "queue", client: "web" }))
    setActionError(result._tag === "Left" ? `Retry failed: ${describe(result.left)}` : undefined)
  }, [api, sessionId, retryContent])

  const header = state.header
  const questionsOpen = useMemo(() => openAsks(state).length, [state.blocks])
  const status = paneStatus({ running: state.running, questionsOpen, lastTurnFailed: lastTurnFailed(state) }, listed?.status)
  return (
    <main class="pane">
      <header class="session-header">
        <div>
          <h2>{showInvisible(header?.title ?? listed?.title ?? sessionId)}</h2>
          <p class="muted">
            {showInvisible(header?.cwd ?? "")}
            {header?.model === undefined ? "" : ` · ${header.model}`}
            {cost === undefined ? "" : ` · cost ${cost}`}
          </p>
          {header?.forkedFrom === undefined ? null : <ForkNote forkedFrom={header.forkedFrom} onNavigate={onNavigate} />}
        </div>
        <div class="status">
          {state.running ? (
            <>
              <span class={status} role="status" title={status === "waiting" ? "The turn waits for your answer to the question below" : undefined}>
                {status === "waiting" ? <span class="dot" /> : <span class="spinner" />} {statusLabels[status]}
              </span>
              <button type="button" class="cancel" onClick={cancel}>
                Cancel
              </button>
            </>
          ) : (
            <span class={status} role="status" title={paneTitles[status]}>
              {statusLabels[status]}
            </span>
          )}
          {state.redo.redoable > 0 ? (
            <button type="button" class="redo" disabled={turnActionsOff} onClick={rewind.redo} title="Put back what the last rewind changed">
              Redo
            </button>
          ) : null}
          <button
            type="button"
            class="compact"
            disabled={state.running || compaction.compacting}
            onClick={compaction.compact}
            title="Summarize the completed turns for the model; the log keeps every event"
          >
            {compaction.compacting ? "Compacting…" : "Compact"}
          </button>
        </div>
      </header>
      <ConnectionNote connection={connection} />
      {actionError === undefined ? null : <p class="connection error">{actionError}</p>}
      {events === undefined ? null : (
        <p class="connection marked-range">
          <span>
            Marked: events {events.from}–{events.to}, the conversation a memory came from.
          </span>
          <a {...linkTo({ _tag: "session", sessionId }, onNavigate)}>Clear</a>
        </p>
      )}
      {compaction.outcome === undefined ? null : <CompactResult outcome={compaction.outcome} onDismiss={compaction.dismiss} />}
      {rewind.outcome === undefined ? null : (
        <RewindCard outcome={rewind.outcome} busy={rewind.busy} onForce={rewind.force} onDismiss={rewind.dismiss} />
      )}
      {fork.error === undefined ? null : <p class="connection error">Fork failed: {fork.error}</p>}
      <TaskList tasks={tasks} />
      <div class="timeline" ref={scroll.ref} onScroll={scroll.onScroll}>
        {state.blocks.length === 0 && connection._tag === "live" ? <p class="muted">Nothing yet: send a prompt below.</p> : null}
        {state.blocks.map((block, index) => {
          const mark = marks[index]
          return (
            // `display: contents`: marks a block without changing the timeline's layout.
            <div key={block.sequence} class={`slot${marked.has(block.sequence) ? " marked" : ""}${mark?.rewound === true ? " rewound" : ""}`}>
              {mark?.firstRewound === true ? <p class="rewound-label">rewound</p> : null}
              {mark?.rewindTurn === undefined ? null : <RewindMenu turn={mark.rewindTurn} disabled={turnActionsOff} onRewind={rewind.rewind} />}
              <BlockView
                api={api}
                sessionId={sessionId}
                block={block}
                review={review}
                stats={block._tag === "turnEnd" && block.turnId !== undefined ? statsByTurn.get(block.turnId) : undefined}
                onRetry={retryable?.turnEnd === block.sequence ? onRetry : undefined}
              />
              {mark?.forkAt === undefined ? null : <ForkButton atSequence={mark.forkAt} disabled={turnActionsOff} onFork={fork.fork} />}
            </div>
          )
        })}
      </div>
      <QueueView api={api} sessionId={sessionId} inbox={state.inbox} />
      <Composer
        api={api}
        sessionId={sessionId}
        running={state.running}
        mode={state.mode}
        model={header?.model ?? listed?.model}
        modelChoices={modelChoices(header?.model ?? listed?.model, otherModels)}
      />
    </main>
  )
}
