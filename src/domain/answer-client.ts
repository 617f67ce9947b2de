/**
 * Where an answer came from, as a person reads it after the verdict ("allowed by user, on the
 * web"): the `client` a `permission.resolved` records, which the transport sets.
 */
export const answerClientLabel = (client: string | undefined): string | undefined => {
  if (client === undefined) return undefined
  if (client === "cli") return "in the terminal"
  if (client === "acp") return "in the editor"
  if (client === "rpc:web") return "on the web"
  if (client === "rpc") return "through the API"
  if (client.startsWith("rpc:")) return `through the API (${client.slice("rpc:".length)})`
  return `through ${client}`
}
