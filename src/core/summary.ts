import type { PayloadOf, SummarySections } from "../domain/events.js"
import { summarySectionHeadings } from "../domain/summary-sections.js"

const aliases: ReadonlyArray<readonly [keyof SummarySections, RegExp]> = [
  ["goal", /^goals?$/],
  ["decisions", /^(decisions?( and constraints)?|constraints( and decisions)?|decisions? & constraints)$/],
  ["progress", /^(progress|done so far|what was done)$/],
  ["nextStep", /^next steps?$/],
  ["openQuestions", /^open (questions|issues)$/]
]

const aliasOf = (name: string): keyof SummarySections | undefined => {
  const normalized = name.trim().toLowerCase()
  return aliases.find(([, pattern]) => pattern.test(normalized))?.[0]
}

/** A heading line opens a section: `## Goal`, `**Goal**`, `Goal:`, or `Goal: text` with the section's first text. */
const sectionOf = (line: string): { readonly key: keyof SummarySections; readonly rest: string } | undefined => {
  const bare = line.trim().replace(/^#{1,6}\s*/, "").replace(/\*\*/g, "").trim()
  const whole = aliasOf(bare.replace(/:$/, ""))
  if (whole !== undefined) return { key: whole, rest: "" }
  const labelled = /^([A-Za-z][A-Za-z &]*):\s*(.*)$/.exec(bare)
  const key = labelled === null ? undefined : aliasOf(labelled[1] ?? "")
  return key === undefined ? undefined : { key, rest: (labelled?.[2] ?? "").trim() }
}

/**
 * The model's summary split into the fixed sections. Text before the first heading (a model
 * that ignored the format) is kept in `progress`, so nothing it wrote is lost.
 */
export const parseSections = (text: string): SummarySections => {
  const lines: Record<keyof SummarySections, Array<string>> = { goal: [], decisions: [], progress: [], nextStep: [], openQuestions: [] }
  const preamble: Array<string> = []
  let current: keyof SummarySections | undefined
  for (const line of text.split("\n")) {
    const heading = sectionOf(line)
    if (heading !== undefined) {
      current = heading.key
      if (heading.rest !== "") lines[current].push(heading.rest)
      continue
    }
    ;(current === undefined ? preamble : lines[current]).push(line)
  }
  const joined = (parts: ReadonlyArray<string>) => parts.join("\n").trim()
  const progress = [joined(preamble), joined(lines.progress)].filter((part) => part !== "").join("\n\n")
  return {
    goal: joined(lines.goal),
    decisions: joined(lines.decisions),
    progress,
    nextStep: joined(lines.nextStep),
    openQuestions: joined(lines.openQuestions)
  }
}

const summaryOpening = "Summary of the earlier conversation (older turns were compacted):"

/**
 * What the model reads in place of the compacted events: the sections under their headings
 * and the files the log says were changed. A summary recorded before sections existed is
 * shown as it was.
 */
export const summaryText = (payload: PayloadOf<"context.compacted">): string => {
  const { sections, changedFiles } = payload
  if (sections === undefined) return `${summaryOpening}\n\n${payload.summary}`
  const parts = summarySectionHeadings.flatMap(([key, heading]) => (sections[key] === "" ? [] : [`## ${heading}\n\n${sections[key]}`]))
  if (changedFiles !== undefined && changedFiles.length > 0) {
    parts.push(`## Files changed so far (from the session log)\n\n${changedFiles.map((path) => `- ${path}`).join("\n")}`)
  }
  return [summaryOpening, ...parts].join("\n\n")
}
