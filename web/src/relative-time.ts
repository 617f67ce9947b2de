const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/**
 * How long ago a moment was, as a person says it: "just now", "2 min ago", "3 h ago",
 * "yesterday", "4 days ago", then the date ("1 Jan 2025"). A moment in the future (another
 * machine's clock) is "just now"; a time that cannot be read is shown as it is.
 */
export const relativeTime = (iso: string, now: number): string => {
  const then = Date.parse(iso)
  if (!Number.isFinite(then)) return iso
  const minutes = Math.floor((now - then) / 60_000)
  if (minutes < 1) return "just now"
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  const days = Math.floor(hours / 24)
  if (days === 1) return "yesterday"
  if (days < 7) return `${days} days ago`
  const date = new Date(then)
  return `${date.getDate()} ${months[date.getMonth()] ?? ""} ${date.getFullYear()}`
}

/** The moment in full, in the reader's locale (a `title`, beside the relative time). */
export const absoluteTime = (iso: string): string => {
  const then = Date.parse(iso)
  return Number.isFinite(then) ? new Date(then).toLocaleString() : iso
}
