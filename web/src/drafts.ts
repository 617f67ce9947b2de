/**
 * What was typed in a session's composer and not sent yet, kept in localStorage per session:
 * a reload, a restarted server, a lost token or a closed tab does not lose it. Removed once
 * sent. Storage that is off or full keeps nothing, with a warning.
 */
const prefix = "custom-agent:draft:"

const storage = (): Storage | undefined => {
  try {
    return localStorage
  } catch (error) {
    console.warn("drafts are not kept: localStorage is not available", error)
    return undefined
  }
}

export const loadDraft = (sessionId: string): string => storage()?.getItem(`${prefix}${sessionId}`) ?? ""

export const saveDraft = (sessionId: string, text: string): void => {
  const store = storage()
  if (store === undefined) return
  const key = `${prefix}${sessionId}`
  if (text === "") return store.removeItem(key)
  try {
    store.setItem(key, text)
  } catch (error) {
    console.warn(`the draft of ${sessionId} is not kept: storage is full`, error)
  }
}
