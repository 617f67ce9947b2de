import type { SummarySections } from "./events.js"

/** A compaction summary's sections in order, with the heading the model is asked to use and clients show. */
export const summarySectionHeadings: ReadonlyArray<readonly [keyof SummarySections, string]> = [
  ["goal", "Goal"],
  ["decisions", "Decisions and constraints"],
  ["progress", "Progress"],
  ["nextStep", "Next step"],
  ["openQuestions", "Open questions"]
]
