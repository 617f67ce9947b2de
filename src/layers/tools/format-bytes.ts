/** `1536` -> `1.5 KiB`: sizes in messages. */
export const formatBytes = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} bytes`
  const units = ["KiB", "MiB", "GiB", "TiB"]
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1)} ${units[unit] ?? "TiB"}`
}
