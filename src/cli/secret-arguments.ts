import * as Effect from "effect/Effect"
import { stderr } from "./io.js"

/**
 * A secret given as an argument is visible to every local user (`ps`, `/proc/<pid>/cmdline`).
 * A database URL cannot leave the command line, but its password can: the PostgreSQL driver
 * reads `PGPASSWORD` and `~/.pgpass` when the URL has none. So a URL with a password is warned
 * about (the process already shows it; the warning is for the next run).
 */

/** The URL's password, when it has one (an unparsable URL is the driver's to refuse). */
export const passwordInUrl = (url: string): string | undefined => {
  if (!URL.canParse(url)) return undefined
  const password = new URL(url).password
  return password === "" ? undefined : password
}

/** One line on stderr when `url` carries a password. */
export const warnPasswordInUrl = Effect.fn("warnPasswordInUrl")(function* (option: string, url: string) {
  if (passwordInUrl(url) === undefined) return
  yield* stderr(
    `custom-agent: warning: the password in ${option} is visible to every local user (ps, /proc/<pid>/cmdline); ` +
      `leave it out of the URL and set PGPASSWORD or use ~/.pgpass\n`
  )
})
