import * as Schema from "effect/Schema"

/**
 * A file or resource attached to a message, as the message records it: its URI and where its
 * `<context>` block lies in the message's content (`start` to `end`, in UTF-16 code units, as
 * `String.prototype.slice` counts). Written by whoever builds the content with the block (the
 * CLI's `@path`, an ACP embedded resource), never parsed back out of text: a view folds only
 * what this list declares, so text that merely looks like a block is shown as text.
 */
export const AttachedBlock = Schema.Struct({
  uri: Schema.String,
  start: Schema.NonNegativeInt,
  end: Schema.NonNegativeInt
})
export type AttachedBlock = typeof AttachedBlock.Type

/** The text a block of `uri` holding `text` is given to the model as. */
export const contextBlock = (uri: string, text: string): string => `<context uri="${uri}">\n${text}\n</context>`

/** `prompt`, then each block after a blank line: the content and where each block lies in it. */
export const withContextBlocks = (
  prompt: string,
  blocks: ReadonlyArray<{ readonly uri: string; readonly text: string }>
): { readonly content: string; readonly attached: ReadonlyArray<AttachedBlock> } => joinParts([{ text: prompt }, ...blocks], "\n\n")

/**
 * Parts joined by `separator`; a part with a `uri` is a block, recorded with its extent. The one
 * place a content and its declared blocks are made together, so they cannot disagree.
 */
export const joinParts = (
  parts: ReadonlyArray<{ readonly text: string } | { readonly uri: string; readonly text: string }>,
  separator: string
): { readonly content: string; readonly attached: ReadonlyArray<AttachedBlock> } => {
  let content = ""
  const attached: Array<AttachedBlock> = []
  parts.forEach((part, index) => {
    if (index > 0) content += separator
    if ("uri" in part) {
      const block = contextBlock(part.uri, part.text)
      attached.push({ uri: part.uri, start: content.length, end: content.length + block.length })
      content += block
    } else {
      content += part.text
    }
  })
  return { content, attached }
}

/**
 * A message as a person reads it: the blocks its `attached` declares taken out and named (a
 * `file://` URI as its path), the rest of the content as it is. A declared extent that is not
 * a whole block of that URI at that place (overlapping, out of order, another text) folds
 * nothing: what cannot be shown to be an attachment is shown. Without `attached` (a log older
 * than the field, a message nobody attached to) the content is shown whole.
 */
export const foldDeclared = (
  content: string,
  attached: ReadonlyArray<AttachedBlock> | undefined
): { readonly text: string; readonly attached: ReadonlyArray<string> } => {
  if (attached === undefined || attached.length === 0) return { text: content, attached: [] }
  let text = ""
  let at = 0
  const names: Array<string> = []
  for (const block of attached) {
    const slice = content.slice(block.start, block.end)
    const whole = block.start >= at && block.end <= content.length && slice.startsWith(`<context uri="${block.uri}">\n`) && slice.endsWith("\n</context>")
    if (!whole) continue
    text += content.slice(at, block.start).replace(/\n+$/, "")
    at = block.end
    names.push(block.uri.startsWith("file://") ? safeDecode(block.uri.slice("file://".length)) : block.uri)
  }
  text += content.slice(at)
  return { text: text.trimEnd(), attached: names }
}

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
