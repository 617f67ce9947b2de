import type { ContentBlock } from "@agentclientprotocol/sdk/unstable"
import * as Either from "effect/Either"

/**
 * A prompt's content blocks as the one text the host takes: text as it is, a resource link
 * as its URI (the agent reads it with its tools), an embedded resource as its URI and text.
 * Images and audio are not advertised, so a client sending them gets an error.
 */
export const promptText = (blocks: ReadonlyArray<ContentBlock>): Either.Either<string, string> => {
  const parts: Array<string> = []
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text)
        break
      case "resource_link":
        parts.push(`[${block.title ?? block.name}](${block.uri})`)
        break
      case "resource": {
        const { resource } = block
        if ("text" in resource) {
          parts.push(`<context uri="${resource.uri}">\n${resource.text}\n</context>`)
        } else {
          parts.push(`[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}, not included]`)
        }
        break
      }
      case "image":
      case "audio":
        return Either.left(`${block.type} content is not supported (see promptCapabilities)`)
    }
  }
  const text = parts.join("\n\n")
  return text.trim() === "" ? Either.left("the prompt has no text") : Either.right(text)
}
