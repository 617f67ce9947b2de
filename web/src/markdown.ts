import { Marked, type Token, type Tokens } from "marked"
import { highlightCode } from "./highlight.js"

/**
 * Markdown of model output (answers, thinking) as HTML. Model output is untrusted: raw HTML
 * in it is shown as text, links go only to the web or mail, and images are shown as links
 * (an image would be fetched without a click, which a prompt injection can use to send data
 * away). The page sanitizes the result once more before it reaches the DOM.
 */

const escapes: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Every character that means something in HTML, `&` included: nothing the model wrote is read as markup. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c)

const allowedSchemes = new Set(["http", "https", "mailto"])

/**
 * The link target to write into an `href`, or undefined for one that must not be a link
 * (`javascript:`, `data:`, `vbscript:`, ...). The target is kept literally (only `&amp;` is
 * read as `&`) and escaped whole, so a character reference such as `javascript&#58;` stays
 * text and never becomes a scheme in the browser.
 */
export const safeHref = (href: string): string | undefined => {
  const literal = href.replace(/&amp;/g, "&")
  // Browsers skip control characters and spaces inside a scheme ("java\tscript:").
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(literal.replace(/[\u0000-\u0020\u007f-\u009f]/g, ""))?.[1]
  if (scheme !== undefined && !allowedSchemes.has(scheme.toLowerCase())) return undefined
  return literal
}

const anchor = (href: string, title: string | null | undefined, inner: string, kind?: string) =>
  `<a href="${escapeHtml(href)}"${title === null || title === undefined || title === "" ? "" : ` title="${escapeHtml(title)}"`}` +
  `${kind === undefined ? "" : ` class="${kind}"`} rel="noopener noreferrer nofollow" target="_blank">${inner}</a>`

const fencedLanguage = (lang: string | undefined): string | undefined => {
  const first = /^\S+/.exec(lang ?? "")?.[0]
  return first === undefined ? undefined : first.toLowerCase()
}

const makeMarked = (highlight: boolean) =>
  new Marked({
    gfm: true,
    async: false,
    renderer: {
      html: ({ text, block }: Tokens.HTML | Tokens.Tag) => (block ? `<p class="raw-html">${escapeHtml(text.replace(/\n+$/, ""))}</p>\n` : escapeHtml(text)),
      link({ href, title, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens)
        const target = safeHref(href)
        return target === undefined ? inner : anchor(target, title, inner)
      },
      image: ({ href, title, text }: Tokens.Image) => {
        const target = safeHref(href)
        const label = escapeHtml(text === "" ? href : text)
        return target === undefined ? label : anchor(target, title, `image: ${label}`, "image-link")
      },
      code: ({ text, lang }: Tokens.Code) => {
        const language = fencedLanguage(lang)
        const coloured = highlight ? highlightCode(text, language) : undefined
        const kind = language === undefined ? "" : ` class="${coloured === undefined ? "" : "hljs "}language-${escapeHtml(language)}"`
        return `<pre><code${kind}>${coloured ?? escapeHtml(text)}</code></pre>\n`
      },
      checkbox: ({ checked }: Tokens.Checkbox) => `<span class="task">${checked ? "☑" : "☐"}</span> `
    }
  })

const highlighted = makeMarked(true)
const plain = makeMarked(false)

/**
 * Renders a text's top-level blocks one by one and remembers the finished ones. While an
 * answer streams, only its last block changes, so only that one is rendered again (and
 * without highlighting, which comes once the block is complete). `finish` is applied to a
 * block's HTML before it is remembered (the page's sanitizer).
 */
export const blockRenderer = (finish: (html: string) => string = (html) => html) => {
  const done = new Map<string, string>()
  return (text: string, streaming: boolean): ReadonlyArray<string> => {
    const tokens = highlighted.lexer(text)
    // Reference links resolve against definitions anywhere in the text: a new one can change an earlier block.
    const links = JSON.stringify(tokens.links)
    const open = streaming ? tokens.findLastIndex((token) => token.type !== "space") : -1
    return tokens.flatMap((token: Token, index) => {
      if (token.type === "space" || token.type === "def") return []
      // Trimmed: the newline marked puts after each block would be text at the block's end.
      if (open !== -1 && index >= open) return [finish(plain.parser([token]).trim())]
      const key = `${links}\u0000${token.raw}`
      const known = done.get(key)
      if (known !== undefined) return [known]
      const html = finish(highlighted.parser([token]).trim())
      done.set(key, html)
      return [html]
    })
  }
}
