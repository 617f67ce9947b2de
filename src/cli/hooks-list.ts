import type { HookListing } from "../services/Hooks.js"

/** The configured hooks for a person: what runs when, where it is configured, and whether it runs. */
export const formatHooks = (listing: HookListing): string => {
  if (listing.hooks.length === 0) return "no hooks configured\n"
  return listing.hooks
    .map((hook) => {
      const matcher = hook.matcher === undefined || hook.matcher === "" ? "" : ` [${hook.matcher}]`
      const state = hook.trusted ? "runs" : "not trusted: does not run (custom-agent trust)"
      return `${hook.event}${matcher}: ${hook.command}\n  ${hook.source} · ${hook.file} · timeout ${hook.timeoutSeconds} s · ${state}\n`
    })
    .join("")
}

/** What was found but does not run (other events, other handler types) and files that could not be read, one line each. */
export const hookNotes = (listing: HookListing): ReadonlyArray<string> => [
  ...listing.ignored.map((ignored) => `${ignored.file}: ${ignored.event} is not run (${ignored.why})`),
  ...listing.problems.map((problem) => `${problem.message} (its hooks do not run)`)
]

export const hooksJson = (listing: HookListing): string =>
  `${JSON.stringify({ hooks: listing.hooks, ignored: listing.ignored, problems: listing.problems.map((p) => ({ file: p.file, problem: p.problem })) }, null, 2)}\n`
