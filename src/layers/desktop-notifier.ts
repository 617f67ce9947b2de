import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import { delimiter, join } from "node:path"
import { accessSync, constants } from "node:fs"
import { type Notice, Notifier } from "../services/Notifier.js"
import { childEnvironment, FIXED_ONLY } from "./subprocess-env.js"

/** How long a notifier may take before it is ended: a notification service that hangs holds nothing up. */
const NOTIFY_TIMEOUT_MS = 5_000

/**
 * What the desktop's notification service needs to be found (its bus, the display), and
 * nothing of the user's secrets: the fixed allowlist (PATH, HOME, XDG_RUNTIME_DIR, the locale)
 * and these names when set.
 */
const DESKTOP_NAMES = ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"] as const

export const desktopEnvironment = (source: NodeJS.ProcessEnv = process.env) => {
  const set: Record<string, string> = {}
  for (const name of DESKTOP_NAMES) {
    const value = source[name]
    if (value !== undefined && value !== "") set[name] = value
  }
  return childEnvironment(FIXED_ONLY, set, source)
}

/** The first executable `name` on PATH, or none. */
const onPath = (name: string, path: string | undefined): string | undefined => {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue
    const file = join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // Not here: the next directory.
    }
  }
  return undefined
}

/**
 * notify-send shows a notification's body with the markup some services read (`<b>`, `<a>`):
 * the text is plain, so its markup characters are escaped.
 */
export const plain = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/**
 * The desktop's notifications through `notify-send` (libnotify), when it is installed: run
 * with an argument list (no shell), `--` before the text so a title cannot read as an option,
 * the allowlisted environment, no input, its output ignored, ended after 5 s, and never waited
 * for. Where it is missing nothing is shown.
 */
export const desktopNotifierLayer = Layer.sync(Notifier, () => {
  const command = onPath("notify-send", process.env["PATH"])
  return Notifier.of({
    notify: (notice: Notice) =>
      command === undefined
        ? Effect.void
        : Effect.sync(() => {
            try {
              const child = spawn(command, ["--app-name=custom-agent", "--", notice.title, plain(notice.body)], {
                stdio: "ignore",
                env: desktopEnvironment(),
                timeout: NOTIFY_TIMEOUT_MS
              })
              child.on("error", () => {})
              child.unref()
            } catch {
              // A notification that cannot be shown is no failure of the host's.
            }
          })
  })
})
