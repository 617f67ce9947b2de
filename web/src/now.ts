import { useEffect, useState } from "preact/hooks"

/** How often relative times ("2 min ago") are brought up to date. */
const tickMs = 30_000

const listeners = new Set<(now: number) => void>()
let timer: ReturnType<typeof setInterval> | undefined

const subscribe = (listener: (now: number) => void) => {
  listeners.add(listener)
  timer ??= setInterval(() => {
    const now = Date.now()
    for (const each of listeners) each(now)
  }, tickMs)
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer)
      timer = undefined
    }
  }
}

/** The time now, renewed every half minute by one timer the whole page shares (none while nothing shows a relative time). */
export const useNow = (): number => {
  const [now, setNow] = useState(Date.now)
  useEffect(() => subscribe(setNow), [])
  return now
}
