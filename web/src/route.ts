/** The open session lives in the URL (`?session=ses_...`), so a reload or a shared link reopens it. */
export const sessionInUrl = (): string | undefined => new URLSearchParams(location.search).get("session") ?? undefined

export const openInUrl = (sessionId: string | undefined): void => {
  const params = new URLSearchParams(location.search)
  if (sessionId === undefined) params.delete("session")
  else params.set("session", sessionId)
  const search = params.toString()
  history.pushState(null, "", `${location.pathname}${search === "" ? "" : `?${search}`}${location.hash}`)
}
