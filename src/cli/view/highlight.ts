import hljs from "highlight.js/lib/common"

/**
 * SGR colours by highlight.js scope (its class name without `hljs-`), with the code that ends
 * each: a line carries its own colours, so a wrapped or a cut line never bleeds into the next.
 */
const scopeStyles: Record<string, readonly [string, string]> = {
  keyword: ["35", "39"],
  built_in: ["35", "39"],
  type: ["35", "39"],
  literal: ["35", "39"],
  "selector-tag": ["35", "39"],
  string: ["32", "39"],
  regexp: ["32", "39"],
  symbol: ["32", "39"],
  addition: ["32", "39"],
  deletion: ["31", "39"],
  number: ["33", "39"],
  comment: ["2", "22"],
  quote: ["2", "22"],
  meta: ["2", "22"],
  title: ["36", "39"],
  section: ["36", "39"],
  name: ["36", "39"],
  attr: ["36", "39"],
  attribute: ["36", "39"],
  "selector-class": ["36", "39"],
  "selector-id": ["36", "39"]
}

/** The five entities highlight.js writes, and nothing else: `&#27;` in the code stays those five characters. */
const entities: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" }

const piece = /<span class="([^"]*)">|<\/span>|&(?:amp|lt|gt|quot|#x27);|[^<&]+|[<&]/g

/** The scope a span's classes name (`hljs-title function_` is a title). */
const scopeOf = (classes: string): string | undefined => classes.split(" ").find((c) => c.startsWith("hljs-"))?.slice(5)

/**
 * highlight.js's HTML as lines with SGR colours: each run of text takes the innermost styled
 * scope's colour, opened and closed on its own line.
 */
const toLines = (html: string): Array<string> => {
  const lines: Array<string> = [""]
  const stack: Array<readonly [string, string] | undefined> = []
  const add = (text: string) => {
    const style = stack.findLast((s) => s !== undefined)
    for (const [i, part] of text.split("\n").entries()) {
      if (i > 0) lines.push("")
      if (part === "") continue
      lines[lines.length - 1] += style === undefined ? part : `\x1b[${style[0]}m${part}\x1b[${style[1]}m`
    }
  }
  for (const match of html.matchAll(piece)) {
    const [whole, classes] = match
    if (classes !== undefined) stack.push(scopeStyles[scopeOf(classes) ?? ""])
    else if (whole === "</span>") stack.pop()
    else add(entities[whole] ?? whole)
  }
  return lines
}

/**
 * A code block's lines, highlighted when colour is on and its language is one highlight.js
 * knows (its common set); otherwise as written. The code is content sanitized before (it came
 * through the Markdown renderer): highlighting only adds colours around it.
 */
export const highlightCode = (code: string, language: string | undefined, color: boolean): Array<string> => {
  const known = language === undefined || language === "" ? undefined : hljs.getLanguage(language)
  if (!color || known === undefined) return code.split("\n")
  return toLines(hljs.highlight(code, { language: language ?? "", ignoreIllegals: true }).value)
}
