import hljs from "highlight.js/lib/core"
import bash from "highlight.js/lib/languages/bash"
import diff from "highlight.js/lib/languages/diff"
import go from "highlight.js/lib/languages/go"
import javascript from "highlight.js/lib/languages/javascript"
import json from "highlight.js/lib/languages/json"
import python from "highlight.js/lib/languages/python"
import rust from "highlight.js/lib/languages/rust"
import sql from "highlight.js/lib/languages/sql"
import typescript from "highlight.js/lib/languages/typescript"
import xml from "highlight.js/lib/languages/xml"
import yaml from "highlight.js/lib/languages/yaml"

/**
 * Syntax highlighting for fenced code: highlight.js's core with the languages a coding agent
 * mostly shows, registered by hand so the bundle stays small (the full set is ~1 MB).
 * Aliases (ts, js, sh, shell, py, html, yml, ...) come with the language definitions.
 */
const languages = { bash, diff, go, javascript, json, python, rust, sql, typescript, xml, yaml }
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language)

/**
 * The code as highlighted HTML (highlight.js escapes the code itself), or undefined when the
 * fence names no language this page knows: then the caller shows it plain.
 */
export const highlightCode = (code: string, language: string | undefined): string | undefined => {
  if (language === undefined || hljs.getLanguage(language) === undefined) return undefined
  return hljs.highlight(code, { language, ignoreIllegals: true }).value
}
