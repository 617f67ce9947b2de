import DOMPurify, { type Config } from "dompurify"
import { useMemo, useRef } from "preact/hooks"
import { useCopyButtons } from "../copy-buttons.js"
import { blockRenderer } from "../markdown.js"
import "highlight.js/styles/github.css"

/**
 * A second line of defence behind the renderer (which already escapes raw HTML and refuses
 * unsafe links): only the elements and attributes the renderer writes get through.
 */
const allowed: Config = {
  ALLOWED_TAGS: ["a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul"],
  ALLOWED_ATTR: ["href", "title", "class", "rel", "target", "start", "align"]
}

const sanitize = (html: string): string => DOMPurify.sanitize(html, allowed)

/**
 * Model output rendered as Markdown, a Copy button on each code block. Each top-level block is
 * its own element, so while the text streams the DOM changes only in the last one.
 */
export const Markdown = ({ text, streaming }: { readonly text: string; readonly streaming: boolean }) => {
  const render = useMemo(() => blockRenderer(sanitize), [])
  const pieces = useMemo(() => render(text, streaming), [render, text, streaming])
  const container = useRef<HTMLDivElement>(null)
  useCopyButtons(container, pieces)
  return (
    <div class="content markdown" ref={container}>
      {pieces.map((html, index) => (
        <div key={index} class="md-piece" dangerouslySetInnerHTML={{ __html: html }} />
      ))}
    </div>
  )
}
