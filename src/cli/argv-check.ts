import { type CommandSpec, commandName, type OptionSpec } from "./command-tree.js"
import { didYouMean } from "./suggest.js"

/** What a command line asks for, or why it cannot be run, before @effect/cli parses it. */
export type Checked =
  | { readonly _tag: "Help"; readonly command: CommandSpec }
  | { readonly _tag: "Version" }
  | {
      readonly _tag: "Run"
      readonly command: CommandSpec
      /** The arguments to hand @effect/cli: the ones given, or in an order it reads the same way (see `forLibrary`). */
      readonly argv: ReadonlyArray<string>
    }
  | { readonly _tag: "Usage"; readonly command: CommandSpec; readonly message: string }

const HELP = ["--help", "-h"]

// @effect/cli lets a flag take an explicit boolean after it (`--json false`): so do we.
const BOOLEAN_WORDS = ["true", "false", "yes", "no", "on", "off", "y", "n", "1", "0"]

const isOptionLike = (token: string) => token.startsWith("-") && token !== "-"

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** How an option is shown in messages: `--mode`, `--session ID`. */
export const optionLabel = (option: OptionSpec): string => {
  const name = option.names.find((n) => n.startsWith("--")) ?? option.names[0] ?? ""
  switch (option.value._tag) {
    case "Flag":
      return name
    case "Choice":
      return `${name} ${option.value.choices.join("|")}`
    case "Integer":
      return `${name} N`
    case "Text":
      return `${name} ${placeholderOf(option.value.placeholder)}`
  }
}

/** @effect/cli names untyped values by their type (`text`); help shows a short capital word instead. */
export const placeholderOf = (placeholder: string): string => {
  switch (placeholder) {
    case "text":
      return "TEXT"
    case "directory":
      return "DIR"
    case "file":
      return "FILE"
    case "path":
      return "PATH"
    default:
      return placeholder
  }
}

const problemWithValue = (option: OptionSpec, name: string, value: string): string | undefined => {
  switch (option.value._tag) {
    case "Choice": {
      const { choices } = option.value
      if (choices.some((choice) => sameName(choice, value))) return undefined
      return `${name} must be one of ${choices.join(", ")}, got ${value}${didYouMean(value, choices)}`
    }
    case "Integer":
      return /^[+-]?\d+$/.test(value.trim()) ? undefined : `${name} must be a whole number, got ${value}`
    case "Flag":
      return BOOLEAN_WORDS.includes(value.toLowerCase()) ? undefined : `${name} takes no value, got ${value}`
    case "Text":
      return undefined
  }
}

const optionNames = (command: CommandSpec) => [...command.options.flatMap((o) => o.names), "--help"]

/** What the positional words leave unsaid or say too much of, for a command that runs. */
const problemWithArgs = (command: CommandSpec, words: ReadonlyArray<string>): string | undefined => {
  const required = command.args.filter((arg) => arg.required)
  const missing = required.slice(words.length)[0]
  if (missing !== undefined) return `missing ${missing.name}${missing.description === "" ? "" : ` (${missing.description})`}`
  const unbounded = command.args.some((arg) => arg.repeatable)
  if (unbounded || words.length <= command.args.length) return undefined
  const extra = words.slice(command.args.length)
  if (command.args.length === 0) return `takes no arguments, got ${extra.map((w) => `'${w}'`).join(" ")}`
  return `takes ${command.args.map((arg) => arg.name).join(" ")}, got ${words.length} words (${words
    .map((w) => `'${w}'`)
    .join(" ")}): quote a text that has spaces`
}

interface OptionRead {
  readonly option: OptionSpec | undefined
  /** Where the next token is. */
  readonly next: number
  readonly problem?: string
}

/** The option at `argv[at]` and its value (`--name value`, `--name=value`, a flag with or without a boolean word). */
const readOption = (command: CommandSpec, argv: ReadonlyArray<string>, at: number): OptionRead => {
  const token = argv[at] ?? ""
  const equals = token.indexOf("=")
  const name = token.startsWith("--") && equals > 0 ? token.slice(0, equals) : token
  const inline = name === token ? undefined : token.slice(equals + 1)
  const option = command.options.find((o) => o.names.some((n) => sameName(n, name)))
  if (option === undefined) return { option, next: at + 1, problem: `unknown option ${name}${didYouMean(name, optionNames(command))}` }
  if (option.value._tag === "Flag") {
    if (inline !== undefined) return { option, next: at + 1, ...withProblem(problemWithValue(option, name, inline)) }
    const word = argv[at + 1]
    return { option, next: word !== undefined && BOOLEAN_WORDS.includes(word.toLowerCase()) ? at + 2 : at + 1 }
  }
  const value = inline ?? argv[at + 1]
  const next = inline === undefined ? at + 2 : at + 1
  if (value === undefined) return { option, next, problem: `${name} needs a value: ${optionLabel(option)}` }
  return { option, next, ...withProblem(problemWithValue(option, name, value)) }
}

const withProblem = (problem: string | undefined) => (problem === undefined ? {} : { problem })

/**
 * Walks the command line through the command tree: subcommands first, then each option with
 * its value, then the positional arguments. Anything @effect/cli would refuse is refused here
 * with a message that names the option and what it accepts (and a near miss, when there is one); help
 * and the version are answered here too, so the library never prints.
 */
export const checkArgv = (root: CommandSpec, argv: ReadonlyArray<string>): Checked => {
  let command = root
  let help = false
  let forced = false
  let problem: string | undefined
  const words: Array<string> = []
  /** Everything but the positional words: subcommands, options and their values. */
  const rest: Array<string> = []
  const seen = new Set<OptionSpec>()
  /** The program's own options given before a command: they belong to the interactive session, not to the command. */
  let programOption: string | undefined

  for (let i = 0; i < argv.length; ) {
    const token = argv[i] ?? ""
    if (!forced && token === "--") forced = true
    else if (!forced && HELP.includes(token)) help = true
    else if (!forced && token === "--version" && command === root) return { _tag: "Version" }
    else if (!forced && isOptionLike(token)) {
      const read = readOption(command, argv, i)
      if (read.option !== undefined) seen.add(read.option)
      if (command === root) programOption ??= token.split("=")[0]
      problem ??= read.problem
      rest.push(...argv.slice(i, read.next))
      i = read.next
      continue
    } else if (command.subcommands().length > 0) {
      const child = command.subcommands().find((c) => sameName(c.path.at(-1) ?? "", token))
      if (child === undefined) {
        const names = command.subcommands().map((c) => c.path.at(-1) ?? "")
        problem ??= `unknown command ${token}${didYouMean(token, names)} (${commandName(command)} has: ${names.join(", ")})`
        break
      }
      if (command === root && programOption !== undefined) {
        problem ??= `${programOption} is an option of ${commandName(root)} itself (the interactive session): give ${commandName(child)}'s options after it`
      }
      command = child
      rest.push(token)
    } else words.push(token)
    i++
  }

  // Help wins over any mistake on the same line; a bare group (`custom-agent mcp`) shows what it
  // has. The program itself runs with no command (the interactive session), and so does a group
  // with options of its own (`custom-agent sessions`, the live view): only a command that runs takes them.
  const runsBare = command === root || command.options.length > 0
  if (help || (problem === undefined && !runsBare && command.subcommands().length > 0)) return { _tag: "Help", command }
  const usage = (message: string): Checked => ({ _tag: "Usage", command, message })
  if (problem !== undefined) return usage(problem)
  const missing = command.options.find((o) => o.required && !seen.has(o))
  if (missing !== undefined) return usage(`missing ${optionLabel(missing)}`)
  const wrongArgs = problemWithArgs(command, words)
  return wrongArgs === undefined ? { _tag: "Run", command, argv: forLibrary(argv, rest, words) } : usage(wrongArgs)
}

/**
 * @effect/cli stops reading options at a bare `-` (`run - --json` fails there), so a line with
 * one as a word goes to it with the words after `--`; any other line goes as it was given.
 */
const forLibrary = (argv: ReadonlyArray<string>, rest: ReadonlyArray<string>, words: ReadonlyArray<string>): ReadonlyArray<string> =>
  words.includes("-") ? [...rest, "--", ...words] : argv
