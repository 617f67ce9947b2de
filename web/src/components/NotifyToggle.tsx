import { useNoticePermission } from "../notify.js"

/** Offers notifications of questions once, on the person's click; says nothing when they cannot be had or were refused. */
export const NotifyToggle = () => {
  const { permission, ask } = useNoticePermission()
  switch (permission) {
    case "default":
      return (
        <button type="button" class="notify" onClick={() => void ask()} title="A browser notification when a question arrives while this tab is in the background">
          Notify me when a question waits
        </button>
      )
    case "granted":
      return <p class="notify muted">Questions notify you while this tab is in the background.</p>
    case "denied":
    case "unsupported":
      return null
  }
}
