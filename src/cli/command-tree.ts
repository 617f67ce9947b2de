import { CliConfig, CommandDescriptor, type HelpDoc, type Span, type Usage } from "@effect/cli"
import * as Option from "effect/Option"

/** What an option takes after its name. */
export type OptionValue =
  | { readonly _tag: "Flag" }
  | { readonly _tag: "Choice"; readonly choices: ReadonlyArray<string> }
  | { readonly _tag: "Integer" }
  /** Free text; `placeholder` names it in help (`ID`, `FILE`). */
  | { readonly _tag: "Text"; readonly placeholder: string }

export interface OptionSpec {
  /** `--session`, or `-h` and `--help`. */
  readonly names: ReadonlyArray<string>
  readonly value: OptionValue
  readonly required: boolean
  readonly repeatable: boolean
  readonly description: string
}

export interface ArgSpec {
  /** As written in usage: `<prompt>`. */
  readonly name: string
  readonly required: boolean
  readonly repeatable: boolean
  readonly description: string
}

/** One command as the CLI accepts it: its full path, options, positional arguments and subcommands. */
export interface CommandSpec {
  /** From the program down: `["custom-agent", "mcp", "list"]`. */
  readonly path: ReadonlyArray<string>
  readonly description: string
  readonly options: ReadonlyArray<OptionSpec>
  readonly args: ReadonlyArray<ArgSpec>
  /** In the order they were declared; empty for a command that runs. */
  readonly subcommands: () => ReadonlyArray<CommandSpec>
}

export const commandName = (spec: CommandSpec) => spec.path.join(" ")

/*
 * Read through @effect/cli's public descriptions of a command: its Usage (names, accepted
 * values, optional, repeated) and its HelpDoc (the descriptions). The HelpDoc of an option
 * opens with a paragraph on its type ("A user-defined piece of text.") and ends with the
 * library's notes ("This setting is optional."): only what we wrote is kept.
 */

const config = CliConfig.make({ showBuiltIns: false })

interface Named {
  readonly names: ReadonlyArray<string>
  readonly acceptedValues: Option.Option<string>
  readonly required: boolean
  readonly repeatable: boolean
}

const namedIn = (usage: Usage.Usage, required: boolean, repeatable: boolean): ReadonlyArray<Named> => {
  switch (usage._tag) {
    case "Named":
      return [{ names: usage.names, acceptedValues: usage.acceptedValues, required, repeatable }]
    case "Optional":
      return namedIn(usage.usage, false, repeatable)
    case "Repeated":
      // `repeated` accepts none at all: never required.
      return namedIn(usage.usage, false, true)
    case "Alternation":
      return [...namedIn(usage.left, false, repeatable), ...namedIn(usage.right, false, repeatable)]
    case "Concat":
      return [...namedIn(usage.left, required, repeatable), ...namedIn(usage.right, required, repeatable)]
    case "Empty":
    case "Mixed":
      return []
  }
}

export const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
  }
}

type Block =
  | { readonly _tag: "Header"; readonly text: string }
  | { readonly _tag: "Paragraph"; readonly text: string }
  | { readonly _tag: "Definitions"; readonly entries: ReadonlyArray<readonly [string, ReadonlyArray<string>]> }
  | { readonly _tag: "Items"; readonly texts: ReadonlyArray<string> }

/** A HelpDoc's paragraphs, in order, as plain text. */
export const paragraphsOf = (doc: HelpDoc.HelpDoc): ReadonlyArray<string> =>
  blocksOf(doc).flatMap((block) => (block._tag === "Paragraph" ? [block.text] : block._tag === "Items" ? block.texts : []))

const blocksOf = (doc: HelpDoc.HelpDoc): ReadonlyArray<Block> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
      return [{ _tag: "Header", text: spanText(doc.value) }]
    case "Paragraph":
      return [{ _tag: "Paragraph", text: spanText(doc.value) }]
    case "DescriptionList":
      return [{ _tag: "Definitions", entries: doc.definitions.map(([span, body]) => [spanText(span), paragraphsOf(body)] as const) }]
    case "Enumeration":
      return [{ _tag: "Items", texts: doc.elements.flatMap(paragraphsOf) }]
    case "Sequence":
      return [...blocksOf(doc.left), ...blocksOf(doc.right)]
  }
}

const LIBRARY_NOTE = /^This (setting|option|argument) (is optional|may be repeated|must be repeated|can be set)/

/** What we wrote about an option or argument: its definition minus the type line and the library's notes. */
const ownDescription = (paragraphs: ReadonlyArray<string>): string =>
  paragraphs
    .slice(1)
    .filter((text) => !LIBRARY_NOTE.test(text))
    .join(" ")

interface Sections {
  readonly description: string
  readonly arguments: ReadonlyArray<readonly [string, ReadonlyArray<string>]>
  readonly options: ReadonlyArray<readonly [string, ReadonlyArray<string>]>
  /** The first word of each line of the COMMANDS list: the subcommands in declared order (with repeats). */
  readonly commandOrder: ReadonlyArray<string>
}

const sectionsOf = (doc: HelpDoc.HelpDoc): Sections => {
  let section = ""
  const description: Array<string> = []
  const args: Array<readonly [string, ReadonlyArray<string>]> = []
  const options: Array<readonly [string, ReadonlyArray<string>]> = []
  const commandOrder: Array<string> = []
  for (const block of blocksOf(doc)) {
    if (block._tag === "Header") section = block.text
    else if (section === "DESCRIPTION" && block._tag === "Paragraph") description.push(block.text)
    else if (section === "ARGUMENTS" && block._tag === "Definitions") args.push(...block.entries)
    else if (section === "OPTIONS" && block._tag === "Definitions") options.push(...block.entries)
    else if (section === "COMMANDS" && block._tag === "Items") commandOrder.push(...block.texts.map((text) => text.trim().split(/\s+/)[0] ?? ""))
  }
  return { description: description.join(" "), arguments: args, options, commandOrder }
}

/** The description written for `name`, if the definition at this position is its own. */
const describedAt = (entries: ReadonlyArray<readonly [string, ReadonlyArray<string>]>, index: number, name: string): string => {
  const entry = entries[index]
  if (entry === undefined) return ""
  const [label, paragraphs] = entry
  const own = label.replace(/^\(/, "").split(/[\s,)]/)
  return own.includes(name) ? ownDescription(paragraphs) : ""
}

const valueOf = (accepted: Option.Option<string>): OptionValue => {
  if (Option.isNone(accepted)) return { _tag: "Flag" }
  const text = accepted.value
  if (text.includes(" | ")) return { _tag: "Choice", choices: text.split(" | ") }
  if (text === "integer") return { _tag: "Integer" }
  return { _tag: "Text", placeholder: text }
}

/** A command's direct subcommands, in the order its help lists them. */
const subcommandsOf = (descriptor: CommandDescriptor.Command<unknown>, sections: Sections): ReadonlyArray<CommandDescriptor.Command<unknown>> => {
  if (sections.commandOrder.length === 0) return []
  const byName = new Map(CommandDescriptor.getSubcommands(descriptor))
  const order = [...new Set(sections.commandOrder)].filter((name) => byName.has(name))
  const rest = [...byName.keys()].filter((name) => !order.includes(name)).sort()
  return [...order, ...rest].flatMap((name) => {
    const child = byName.get(name)
    return child === undefined ? [] : [child]
  })
}

/**
 * The command tree under `descriptor`, read lazily: only the commands a command line walks are
 * described. @effect/cli hands out a subcommand that has subcommands of its own without them,
 * so the program passes its top-level commands' own descriptors as `children`.
 */
export const describeCommand = (
  descriptor: CommandDescriptor.Command<unknown>,
  parent: ReadonlyArray<string> = [],
  children?: ReadonlyArray<CommandDescriptor.Command<unknown>>
): CommandSpec => {
  const named = namedIn(CommandDescriptor.getUsage(descriptor), true, false)
  const [self, ...rest] = named
  const path = [...parent, self?.names[0] ?? ""]
  const sections = sectionsOf(CommandDescriptor.getHelp(descriptor, config))
  const optionNamed = rest.filter((n) => n.names.some((name) => name.startsWith("-")))
  const argNamed = rest.filter((n) => !n.names.some((name) => name.startsWith("-")))
  const options = optionNamed.map(
    (n, i): OptionSpec => ({
      names: n.names,
      value: valueOf(n.acceptedValues),
      required: n.required,
      repeatable: n.repeatable,
      description: describedAt(sections.options, i, n.names[0] ?? "")
    })
  )
  const args = argNamed.map(
    (n, i): ArgSpec => ({
      name: n.names[0] ?? "",
      required: n.required,
      repeatable: n.repeatable,
      description: describedAt(sections.arguments, i, n.names[0] ?? "")
    })
  )
  let described: ReadonlyArray<CommandSpec> | undefined
  const subcommands = () => (described ??= (children ?? subcommandsOf(descriptor, sections)).map((child) => describeCommand(child, path)))
  return { path, description: sections.description, options, args, subcommands }
}
