/** What a project's own configuration would turn on once trusted, in words: `2 allow rule(s), an open network and 1 hook(s)`. */
export const projectWidening = (allowRules: number, opensNetwork: boolean, hooks: number | undefined): string => {
  const parts = [
    ...(allowRules > 0 ? [`${allowRules} allow rule(s)`] : []),
    ...(opensNetwork ? ["an open network"] : []),
    ...((hooks ?? 0) > 0 ? [`${hooks} hook(s)`] : [])
  ]
  return parts.length <= 1 ? (parts[0] ?? "nothing") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`
}
