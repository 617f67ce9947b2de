import type { HookListing } from "../services/Hooks.js"
import { joinText, jsonText, sanitizeInline, type TerminalText, term } from "./terminal-text.js"

/**
 * The configured hooks for a person: what runs when, where it is configured, and whether it runs.
 * A command is one line whatever it holds (newlines shown as `^J`), so it cannot draw a hook's
 * second line for itself.
 */
export const formatHooks = (listing: HookListing): TerminalText => {
  if (listing.hooks.length === 0) return term`no hooks configured\n`
  return joinText(
    listing.hooks.map((hook) => {
      const matcher = hook.matcher === undefined || hook.matcher === "" ? "" : ` [${hook.matcher}]`
      const state = hook.trusted ? "runs" : "not trusted: does not run (custom-agent trust)"
      return term`${sanitizeInline(`${hook.event}${matcher}: ${hook.command}`)}\n  ${sanitizeInline(`${hook.source} · ${hook.file}`)} · timeout ${hook.timeoutSeconds} s · ${state}\n`
    })
  )
}

/** What was found but does not run (other events, other handler types) and files that could not be read, one line each. */
export const hookNotes = (listing: HookListing): ReadonlyArray<string> => [
  ...listing.ignored.map((ignored) => `${ignored.file}: ${ignored.event} is not run (${ignored.why})`),
  ...listing.problems.map((problem) => `${problem.message} (its hooks do not run)`)
]

export const hooksJson = (listing: HookListing): TerminalText =>
  jsonText(`${JSON.stringify({ hooks: listing.hooks, ignored: listing.ignored, problems: listing.problems.map((p) => ({ file: p.file, problem: p.problem })) }, null, 2)}\n`)
