import { useEffect, useRef, useState } from "preact/hooks"
import type { SessionListItem } from "../../src/domain/host.js"
import { showInvisible } from "../../src/domain/visible-text.js"
import { questionsArrived } from "./question-notices.js"

/** Whether this browser may show a notification: it has none, nobody asked yet, or the person said yes or no. */
export type NoticePermission = "unsupported" | NotificationPermission

const permissionNow = (): NoticePermission => (typeof Notification === "undefined" ? "unsupported" : Notification.permission)

/**
 * The permission to notify, asked only when the person clicks for it (never on load: a page
 * that asks unprompted is usually told no, and the browser then stops it asking).
 */
export const useNoticePermission = () => {
  const [permission, setPermission] = useState(permissionNow)
  const ask = async () => {
    if (typeof Notification === "undefined") return
    setPermission(await Notification.requestPermission())
  }
  return { permission, ask }
}

/**
 * A notification when a question arrives while the page is in a background tab (in front, the
 * list and the session say it already); clicking it brings the page forward on that session.
 */
export const useQuestionNotices = (sessions: ReadonlyArray<SessionListItem> | undefined, onOpen: (sessionId: string) => void) => {
  const previous = useRef<ReadonlyArray<SessionListItem> | undefined>(undefined)
  useEffect(() => {
    if (sessions === undefined) return
    const arrived = questionsArrived(previous.current, sessions)
    previous.current = sessions
    if (arrived.length === 0 || document.visibilityState !== "hidden" || permissionNow() !== "granted") return
    for (const session of arrived) {
      try {
        const notice = new Notification("A question waits for you", {
          body: showInvisible(session.title ?? session.sessionId),
          tag: `question-${session.sessionId}`
        })
        notice.onclick = () => {
          window.focus()
          onOpen(session.sessionId)
          notice.close()
        }
      } catch (error) {
        // Some browsers (Chrome on Android) only notify through a service worker: the list still shows it.
        console.warn("could not show a notification", error)
      }
    }
  }, [sessions])
}
