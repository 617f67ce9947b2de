import { durationOf, formatDuration, formatNotKept, formatUsage, toolAnchor, type TurnCheckpoint, type TurnStats } from "../turn-stats.js"
import { shownCost, type Spend } from "../../../src/domain/spend.js"
import { absoluteTime } from "../relative-time.js"
import { When } from "./When.js"

/** Links to the diffs of a file's changes: the file's name goes to the first, "2", "3", ... to the later ones. */
const FileLinks = ({ path, toolCallIds }: { readonly path: string; readonly toolCallIds: ReadonlyArray<string> }) => (
  <span class="changed-file">
    {toolCallIds.map((id, index) => (
      <a key={id} href={`#${toolAnchor(id)}`} title={`the diff of ${path}`}>
        {index === 0 ? path : index + 1}
      </a>
    ))}
  </span>
)

/** What the turn's checkpoints recorded: how many files changed, and the files a rewind could not restore. */
const CheckpointFacts = ({ checkpoint }: { readonly checkpoint: TurnCheckpoint }) => (
  <>
    <span class="checkpoint" title={checkpoint.changed.join("\n")}>
      checkpoint: {checkpoint.changed.length} {checkpoint.changed.length === 1 ? "file" : "files"} changed
    </span>
    {checkpoint.notKept.length === 0 ? null : <span class="not-kept">not kept: {checkpoint.notKept.map(formatNotKept).join(", ")}</span>}
  </>
)

/** What the cost counts: the requests (its subagents' included), and how many had no price (the cost is then a lower bound). */
const costTitle = (spend: Spend): string =>
  `What the turn's model requests cost (USD), its subagents' included: ${spend.requests} request(s)` +
  (spend.unpriced === 0 ? "" : `, ${spend.unpriced} with no price (not counted)`)

/** A turn's facts at its end: when it ended, how long it took, its tokens, the files it changed and its checkpoints. */
export const TurnSummary = ({ stats }: { readonly stats: TurnStats }) => {
  const duration = durationOf(stats)
  const cost = shownCost(stats.cost)
  return (
    <span class="turn-stats">
      {/* When it ended (the block marks its end); when it started is in the tooltip. */}
      <When iso={stats.endedAt ?? stats.startedAt} more={`(${stats.endedAt === undefined ? "started" : `ended; started ${absoluteTime(stats.startedAt)}`})`} />
      {duration === undefined ? null : <span class="duration">{formatDuration(duration)}</span>}
      <span class="tokens">{formatUsage(stats.usage)}</span>
      {cost === undefined || stats.cost === undefined ? null : (
        <span class="cost" title={costTitle(stats.cost)}>
          {cost}
        </span>
      )}
      {stats.files.length === 0 ? null : (
        <span class="changed">
          changed{" "}
          {stats.files.map((file) => (
            <FileLinks key={file.path} path={file.path} toolCallIds={file.toolCallIds} />
          ))}
        </span>
      )}
      {stats.checkpoint === undefined ? null : <CheckpointFacts checkpoint={stats.checkpoint} />}
    </span>
  )
}
