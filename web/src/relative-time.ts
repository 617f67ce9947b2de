import { relativeTime as domainRelativeTime } from "../../src/domain/relative-time.js"

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/** As the domain says it (src/domain/relative-time.ts), past a week the date as "1 Jan 2025". */
export const relativeTime = (iso: string, now: number): string =>
  domainRelativeTime(iso, now, (date) => `${date.getDate()} ${months[date.getMonth()] ?? ""} ${date.getFullYear()}`)

/** The moment in full, in the reader's locale (a `title`, beside the relative time). */
export const absoluteTime = (iso: string): string => {
  const then = Date.parse(iso)
  return Number.isFinite(then) ? new Date(then).toLocaleString() : iso
}
