/** The events of a session a link points at (a memory's evidence): highlighted and scrolled to. */
export interface EventRange {
  readonly from: number
  readonly to: number
}

/**
 * What the page shows lives in the URL (`?session=ses_...&events=5-9`, `?view=memory`,
 * `?view=permissions`), so a
 * reload or a shared link reopens it.
 */
export type Route =
  | { readonly _tag: "home" }
  | { readonly _tag: "session"; readonly sessionId: string; readonly events?: EventRange }
  | { readonly _tag: "memory" }
  | { readonly _tag: "permissions" }

const rangeOf = (text: string | null): EventRange | undefined => {
  const match = /^(\d+)-(\d+)$/.exec(text ?? "")
  if (match?.[1] === undefined || match[2] === undefined) return undefined
  const from = Number(match[1])
  const to = Number(match[2])
  return from <= to ? { from, to } : { from: to, to: from }
}

export const parseRoute = (search: string): Route => {
  const params = new URLSearchParams(search)
  if (params.get("view") === "memory") return { _tag: "memory" }
  if (params.get("view") === "permissions") return { _tag: "permissions" }
  const sessionId = params.get("session")
  if (sessionId === null || sessionId === "") return { _tag: "home" }
  const events = rangeOf(params.get("events"))
  return events === undefined ? { _tag: "session", sessionId } : { _tag: "session", sessionId, events }
}

/** The query string of a route, with its leading "?" (empty for home). */
export const searchOf = (route: Route): string => {
  const params = new URLSearchParams()
  switch (route._tag) {
    case "home":
      break
    case "memory":
      params.set("view", "memory")
      break
    case "permissions":
      params.set("view", "permissions")
      break
    case "session":
      params.set("session", route.sessionId)
      if (route.events !== undefined) params.set("events", `${route.events.from}-${route.events.to}`)
  }
  const search = params.toString()
  return search === "" ? "" : `?${search}`
}

export const routeInUrl = (): Route => parseRoute(location.search)

export const hrefOf = (route: Route): string => `${location.pathname}${searchOf(route)}`

export const pushRoute = (route: Route): void => {
  history.pushState(null, "", `${hrefOf(route)}${location.hash}`)
}

/**
 * The `href` and click handler of an in-page link: a plain click navigates without a reload
 * (open sessions keep their subscriptions); a modified click (new tab, new window) is left to
 * the browser.
 */
export const linkTo = (route: Route, navigate: (route: Route) => void) => ({
  href: hrefOf(route),
  onClick: (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(route)
  }
})
