/**
 * How long ago an ISO time was, as a person says it ("just now", "5 min ago", "3 h ago",
 * "2 days ago"); past a week, the date. A time in the future (another machine's clock) is
 * "just now".
 */
export const relativeTime = (iso: string, now: number): string => {
  const at = Date.parse(iso)
  if (Number.isNaN(at)) return iso
  const seconds = Math.max(0, Math.floor((now - at) / 1000))
  if (seconds < 60) return "just now"
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  const days = Math.floor(hours / 24)
  if (days < 7) return days === 1 ? "yesterday" : `${days} days ago`
  return iso.slice(0, 10)
}
