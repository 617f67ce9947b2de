import { durationOf, formatDuration, formatUsage, toolAnchor, type TurnStats } from "../turn-stats.js"

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

/** A turn's facts at its end: when it started, how long it took, its tokens and the files it changed. */
export const TurnSummary = ({ stats }: { readonly stats: TurnStats }) => {
  const duration = durationOf(stats)
  return (
    <span class="turn-stats">
      <time dateTime={stats.startedAt} title={stats.startedAt}>
        {new Date(stats.startedAt).toLocaleTimeString()}
      </time>
      {duration === undefined ? null : <span class="duration">{formatDuration(duration)}</span>}
      <span class="tokens">{formatUsage(stats.usage)}</span>
      {stats.files.length === 0 ? null : (
        <span class="changed">
          changed{" "}
          {stats.files.map((file) => (
            <FileLinks key={file.path} path={file.path} toolCallIds={file.toolCallIds} />
          ))}
        </span>
      )}
    </span>
  )
}
