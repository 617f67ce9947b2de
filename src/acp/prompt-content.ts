import type { ContentBlock } from "@agentclientprotocol/sdk/unstable"
import * as Either from "effect/Either"
import { type AttachedBlock, joinParts } from "../domain/attached-blocks.js"

/** A prompt as the host takes it: its text, and where each embedded resource's block lies in it. */
export interface PromptContent {
  readonly content: string
  readonly attached: ReadonlyArray<AttachedBlock>
}

/**
 * A prompt's content blocks as the one text the host takes: text as it is, a resource link
 * as its URI (the agent reads it with its tools), an embedded resource as its URI and text
 * (a `<context>` block, declared with its place so views fold it and nothing else).
 * Images and audio are not advertised, so a client sending them gets an error.
 */
export const promptContent = (blocks: ReadonlyArray<ContentBlock>): Either.Either<PromptContent, string> => {
  const parts: Array<{ readonly text: string } | { readonly uri: string; readonly text: string }> = []
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push({ text: block.text })
        break
      case "resource_link":
        parts.push({ text: `[${block.title ?? block.name}](${block.uri})` })
        break
      case "resource": {
        const { resource } = block
        if ("text" in resource) {
          parts.push({ uri: resource.uri, text: resource.text })
        } else {
          parts.push({ text: `[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}, not included]` })
        }
        break
      }
      case "image":
      case "audio":
        return Either.left(`${block.type} content is not supported (see promptCapabilities)`)
    }
  }
  const joined = joinParts(parts, "\n\n")
  return joined.content.trim() === "" ? Either.left("the prompt has no text") : Either.right(joined)
}

/** The prompt's text alone. */
export const promptText = (blocks: ReadonlyArray<ContentBlock>): Either.Either<string, string> => Either.map(promptContent(blocks), (prompt) => prompt.content)
