/**
 * How long ago an ISO time was, as a person says it ("just now", "5 min ago", "3 h ago",
 * "yesterday", "2 days ago"); past a week, the date as `date` writes it (the CLI: ISO; the web
 * page: the reader's). A time in the future (another machine's clock) is "just now"; one that
 * cannot be read is shown as it is.
 */
export const relativeTime = (iso: string, now: number, date: (at: Date) => string = (at) => at.toISOString().slice(0, 10)): string => {
  const at = Date.parse(iso)
  if (!Number.isFinite(at)) return iso
  const minutes = Math.floor((now - at) / 60_000)
  if (minutes < 1) return "just now"
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  const days = Math.floor(hours / 24)
  if (days === 1) return "yesterday"
  if (days < 7) return `${days} days ago`
  return date(new Date(at))
}
