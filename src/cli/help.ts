import { optionLabel } from "./argv-check.js"
import { type ArgSpec, type CommandSpec, commandName } from "./command-tree.js"
import { joinText, paint, type Printable, type TerminalText, term } from "./terminal-text.js"
import { twoColumns, wrap } from "./wrap.js"

export interface HelpStyle {
  /** Bold headings and names: only for a terminal that wants colour (see `useColor`). */
  readonly color: boolean
  /** Columns to wrap to. */
  readonly width: number
  /** Shown by the program's own help. */
  readonly version: string
}

const TERM_COLUMN = 30

const argUsage = (arg: ArgSpec) => (arg.repeatable ? `${arg.required ? "" : "["}${arg.name}...${arg.required ? "" : "]"}` : arg.required ? arg.name : `[${arg.name}]`)

/** The command line's shape: the full command, required options, `[options]`, then the arguments. */
export const usageLine = (command: CommandSpec): string => {
  if (command.subcommands().length > 0) return `${commandName(command)} <command>`
  const required = command.options.filter((o) => o.required).map(optionLabel)
  const optional = command.options.some((o) => !o.required) ? ["[options]"] : []
  return [commandName(command), ...required, ...optional, ...command.args.map(argUsage)].join(" ")
}

/**
 * A command's help: usage, description, arguments, subcommands and options, wrapped to the
 * width; repeatable options say so, nothing is padded past the width, and no ANSI codes
 * unless `style.color`.
 */
export const renderHelp = (command: CommandSpec, style: HelpStyle): TerminalText => {
  const bold = paint(style.color, "1")
  const isProgram = command.path.length === 1
  // The program runs with no command too (the interactive session), with the options listed
  // below, and so does a group with options of its own (`custom-agent sessions`, the live view).
  const usage =
    isProgram || (command.options.length > 0 && command.subcommands().length > 0)
      ? term`${bold("Usage:")} ${commandName(command)} [options]\n       ${commandName(command)} <command> [options]\n`
      : term`${bold("Usage:")} ${usageLine(command)}\n`
  const sections: Array<Printable> = [usage]
  const about = isProgram ? `${commandName(command)} ${style.version}: ${command.description}` : command.description
  if (about !== "") sections.push(`${wrap(about, style.width).join("\n")}\n`)
  const columns = (rows: ReadonlyArray<readonly [string, string]>, termStyle?: (text: string) => Printable) =>
    twoColumns(rows, { width: style.width, maxTerm: TERM_COLUMN, indent: 2, ...(termStyle === undefined ? {} : { term: termStyle }) })

  const described = command.args.filter((arg) => arg.description !== "")
  if (described.length > 0) sections.push(term`${bold("Arguments:")}\n${columns(described.map((arg) => [arg.name, arg.description]))}`)
  const subcommands = command.subcommands()
  if (subcommands.length > 0) {
    sections.push(term`${bold("Commands:")}\n${columns(subcommands.map((c) => [c.path.at(-1) ?? "", c.description]), bold)}`)
  }
  const options: Array<readonly [string, string]> = command.options.map((o) => [
    // A short alias first, as `-h, --help` is.
    [...o.names.filter((name) => /^-[^-]/.test(name)), optionLabel(o)].join(", "),
    o.repeatable ? `${o.description} (repeatable)` : o.description
  ])
  options.push(["-h, --help", "Show this help"])
  if (isProgram) options.push(["--version", "Print the version"])
  sections.push(term`${bold("Options:")}\n${columns(options)}`)
  if (subcommands.length > 0) sections.push(`Run ${commandName(command)} <command> --help for a command's options.\n`)
  return joinText(sections, "\n")
}
