import { sanitize, sanitizeInline } from "../terminal-text.js"

/**
 * Content (the model's words, a command, a path, tool output, a title) as the screen may show
 * it: every control and invisible character in a visible notation (the project's one
 * sanitizer, `terminal-text.ts`), tabs as spaces (a tab's width is the terminal's to decide,
 * and the layout counts columns). Newlines are kept.
 */
export const safeText = (text: string): string => sanitize(text).text.replace(/\t/g, "    ")

/** The same on one line: newlines and tabs shown too (`^J`, `^I`). */
export const safeInline = (text: string): string => sanitizeInline(text).text

/** Whitespace runs as one space, cut to `max` characters with `…`: a summary of content on one line, made safe. */
export const oneLine = (text: string, max = 120): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return safeInline([...line].length > max ? `${[...line].slice(0, max - 1).join("")}…` : line)
}
