/** A duration as a person reads it at a glance: `840 ms`, `12.4 s`, `3m 05s`. */
export const formatDuration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`
}

const short = (value: number, unit: string) => `${value.toFixed(1).replace(/\.0$/, "")}${unit}`

/** A token count: `950`, `12.3k`, `1.2M`. */
export const formatTokens = (count: number): string => {
  if (count < 1000) return String(Math.round(count))
  if (count < 999_950) return short(count / 1000, "k")
  return short(count / 1_000_000, "M")
}
