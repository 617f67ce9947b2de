import type { ToolResultData } from "../../domain/tools.js"
import { joinText, paint, sanitizeInline, type TerminalText, term } from "../terminal-text.js"
import { formatDuration } from "./units.js"
import { fitEnd, fitStart, textWidth } from "./width.js"

/** How a call ended: `denied` when a permission answer refused it (it never ran). */
export type ToolOutcome = "ok" | "denied" | "error"

/** A finished tool call, as its line and its detail show it. */
export interface ToolCallView {
  readonly name: string
  readonly input: unknown
  readonly outcome: ToolOutcome
  readonly durationMs: number
  /** What the tool gave back to the model (an error's message, a command's output). */
  readonly output: string
  readonly data?: ToolResultData
}

export interface FitOptions {
  readonly width: number
  readonly color: boolean
}

/** Where a call acts, taken from its input: what a person recognises it by. */
export interface ToolTarget {
  readonly text: string
  /** A path keeps its end (the file's name) when cut; a command or a pattern its start. */
  readonly keep: "start" | "end"
}

const stringField = (input: unknown, key: string): string | undefined => {
  if (typeof input !== "object" || input === null || !(key in input)) return undefined
  const value: unknown = Reflect.get(input, key)
  return typeof value === "string" && value !== "" ? value : undefined
}

/** Input fields that name what a call is about, in the order they are looked for. */
const pathKeys = ["path", "file_path", "file", "directory"]
const startKeys = ["command", "pattern", "query", "url", "agent", "name", "skill", "description"]

/**
 * The path, command or pattern a call is about, from its input (an edit's result names its
 * path when the input did not); undefined when nothing in it names one.
 */
export const toolTarget = (input: unknown, data?: ToolResultData): ToolTarget | undefined => {
  const command = stringField(input, "command") ?? (data?._tag === "shell" ? data.command : undefined)
  if (command !== undefined) return { text: command, keep: "start" }
  const path = pathKeys.map((key) => stringField(input, key)).find((value) => value !== undefined) ?? (data?._tag === "edit" ? data.path : undefined)
  const pattern = stringField(input, "pattern")
  // A search reads best as what it looks for, then where.
  if (pattern !== undefined) return { text: path === undefined ? pattern : `${pattern} in ${path}`, keep: "start" }
  if (path !== undefined) return { text: path, keep: "end" }
  const other = startKeys.map((key) => stringField(input, key)).find((value) => value !== undefined)
  return other === undefined ? undefined : { text: other, keep: "start" }
}

/** A shell call's status (`exit 1`, `timed out`); undefined for other tools. */
const shellStatus = (data: ToolResultData | undefined): string | undefined => {
  if (data?._tag !== "shell") return undefined
  if (data.timedOut) return "timed out"
  return data.exitCode === null ? `killed (${data.signal ?? "signal"})` : `exit ${data.exitCode}`
}

/** The first line of what a failed call said, the reason a person looks for. */
const firstLine = (text: string): string => text.trim().split("\n")[0]?.trim() ?? ""

/** Below this many columns a target or a message says too little to be worth its place. */
const minTarget = 8
const minMessage = 12
/** The columns a failed call's reason keeps when its target would take them. */
const reasonShare = 30

/**
 * One line per finished call: its mark, the tool, what it acted on, how it ended and how long
 * it took, then (a failed call) the first line of its error, in at most `width` columns. The
 * target (a path keeps its file name) and the error share what the rest leaves, the tool's
 * name gives way last;
 * every piece is content, shown on one line with its controls visible.
 */
export const toolLine = (call: ToolCallView, options: FitOptions & { readonly indent?: string }): TerminalText => {
  const { width, color } = options
  const [dim, red, green, yellow] = [paint(color, "2"), paint(color, "31"), paint(color, "32"), paint(color, "33")]
  const indent = options.indent ?? ""
  const mark = call.outcome === "ok" ? green("✓") : call.outcome === "denied" ? yellow("✗") : red("✗")
  const status = call.outcome === "denied" ? "denied" : (shellStatus(call.data) ?? (call.outcome === "error" ? "error" : undefined))
  const tail = [...(status === undefined ? [] : [status]), ...(call.outcome === "denied" ? [] : [formatDuration(call.durationMs)])].join(" · ")
  const found = toolTarget(call.input, call.data)
  const target = found === undefined ? undefined : { ...found, text: sanitizeInline(found.text).text }
  // A command's output is its detail; another tool's error says what went wrong.
  const message = call.outcome === "error" && call.data?._tag !== "shell" ? sanitizeInline(firstLine(call.output)).text : ""

  const fixed = textWidth(`${indent}✓  · ${tail}`)
  let name = sanitizeInline(call.name).text
  // The name gives way last, and not below a few columns.
  const nameRoom = Math.max(minTarget, width - fixed)
  if (textWidth(name) > nameRoom) name = fitEnd(name, nameRoom)
  let room = width - fixed - textWidth(name)
  let shownTarget = ""
  // A failed call's reason keeps a share of the line: the target is what gives way first to it.
  const reserved = message === "" ? 0 : Math.min(textWidth(message), reasonShare) + 3
  const targetRoom = Math.max(minTarget, room - 1 - reserved)
  if (target !== undefined && room - 1 >= minTarget) {
    const fitted = target.keep === "end" ? fitStart(target.text, targetRoom) : fitEnd(target.text, targetRoom)
    shownTarget = ` ${fitted}`
    room -= textWidth(shownTarget)
  }
  const shownMessage = message !== "" && room - 3 >= Math.min(minMessage, textWidth(message)) ? fitEnd(message, room - 3) : ""
  const line = term`${indent}${mark} ${name}${shownTarget}${dim(` · ${tail}`)}${shownMessage === "" ? "" : term`${dim(" · ")}${red(shownMessage)}`}`
  // Narrower than the fixed parts themselves: the plain line, cut.
  return textWidth(line.text) <= width ? line : sanitizeInline(fitEnd(`${indent}${call.outcome === "ok" ? "✓" : "✗"} ${name} · ${tail}`, width))
}

/** What a call's line leaves out, for a view that expands it: its arguments, an edit's diff, the tool's whole output. */
export interface ToolDetail {
  /** The input as indented JSON. */
  readonly arguments: string
  readonly diff?: string
  readonly output: string
}

export const toolDetail = (call: ToolCallView): ToolDetail => ({
  arguments: JSON.stringify(call.input, null, 2) ?? "",
  ...(call.data?._tag === "edit" ? { diff: call.data.diff } : {}),
  output: call.output
})

export interface DetailOptions extends FitOptions {
  /** Lines shown before `… N more lines`. */
  readonly maxLines: number
  readonly indent?: string
}

/** Lines of a text, each on one line of at most `width` columns (controls visible), at most `maxLines` of them. */
const bounded = (lines: ReadonlyArray<string>, options: DetailOptions, style: (line: string) => TerminalText): ReadonlyArray<TerminalText> => {
  const indent = options.indent ?? ""
  const room = Math.max(1, options.width - textWidth(indent))
  const shown = lines.length > options.maxLines ? lines.slice(0, options.maxLines) : lines
  const fitted = shown.map((line) => term`${indent}${style(fitEnd(sanitizeInline(line).text, room))}`)
  const more = lines.length - shown.length
  return more === 0 ? fitted : [...fitted, term`${indent}${paint(options.color, "2")(`… ${more} more line${more === 1 ? "" : "s"}`)}`]
}

/** A unified diff's lines, additions green and removals red, its file header lines left out. */
export const diffLines = (diff: string, options: DetailOptions): ReadonlyArray<TerminalText> => {
  const [dim, red, green] = [paint(options.color, "2"), paint(options.color, "31"), paint(options.color, "32")]
  const lines = diff
    .replace(/\n$/, "")
    .split("\n")
    .filter((l) => !l.startsWith("===") && !l.startsWith("Index:"))
  return bounded(lines, options, (l) => (l.startsWith("+") && !l.startsWith("+++") ? green(l) : l.startsWith("-") && !l.startsWith("---") ? red(l) : dim(l)))
}

/** A tool's output, dim, one terminal line per line of it. */
export const outputLines = (output: string, options: DetailOptions): ReadonlyArray<TerminalText> => {
  const text = output.replace(/\n$/, "")
  return text === "" ? [] : bounded(text.split("\n"), options, paint(options.color, "2"))
}

/** The lines `run` prints under a call's line: an edit's diff, a command's output; nothing for other tools. */
export const detailLines = (call: ToolCallView, options: DetailOptions): ReadonlyArray<TerminalText> => {
  if (call.data?._tag === "edit" && call.outcome === "ok") return diffLines(call.data.diff, options)
  if (call.data?._tag === "shell") return outputLines(call.output, options)
  return []
}

/** The line and the lines under it, as one text (no final newline). */
export const toolBlock = (call: ToolCallView, options: DetailOptions): TerminalText =>
  joinText([toolLine(call, options), ...detailLines(call, { ...options, indent: `${options.indent ?? ""}  ` })], "\n")
