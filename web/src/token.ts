const storageKey = "custom-agent:token"

/**
 * The bearer token: taken from the `#token=...` the server prints, kept for this tab in
 * sessionStorage, and removed from the address bar so it is not bookmarked or shared.
 */
export const takeToken = (): string | undefined => {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""))
  const given = fragment.get("token")
  if (given !== null && given !== "") {
    sessionStorage.setItem(storageKey, given)
    fragment.delete("token")
    const rest = fragment.toString()
    history.replaceState(history.state, "", `${location.pathname}${location.search}${rest === "" ? "" : `#${rest}`}`)
  }
  return sessionStorage.getItem(storageKey) ?? undefined
}

export const forgetToken = (): void => sessionStorage.removeItem(storageKey)
