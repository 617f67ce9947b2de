import { useNow } from "../now.js"
import { absoluteTime, relativeTime } from "../relative-time.js"

interface Props {
  readonly iso: string
  /** Said before the time (`ended`). */
  readonly prefix?: string
  /** More for the tooltip, after the full time. */
  readonly more?: string
}

/** A moment as "2 min ago", the full time in its tooltip. */
export const When = ({ iso, prefix, more }: Props) => {
  const now = useNow()
  return (
    <time dateTime={iso} title={`${absoluteTime(iso)}${more === undefined ? "" : ` ${more}`}`}>
      {prefix === undefined ? "" : `${prefix} `}
      {relativeTime(iso, now)}
    </time>
  )
}
