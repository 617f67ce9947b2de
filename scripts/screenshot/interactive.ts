/**
 * The README's pictures of the interactive session: the built CLI on a real pseudo-terminal,
 * driven by a scripted model through one small task (a question card, then the answer), and
 * what it wrote drawn by xterm.js in Debian's Chromium. Nothing is staged by hand: the
 * pictures are what the terminal showed. Run with `npm run screenshot` after `npm run build`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"
import { runOnPty } from "../bench/pty-run.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const cli = join(root, "bin", "custom-agent.js")
const out = join(root, "docs", "images")
const cols = 100
const rows = 32

const mathJs = `export const add = (a, b) => a + b\n\nexport const parse = (text) => text.split(",").map(add)\n`

const answer = [
  "## Fixed: `parse` summed the wrong things",
  "",
  "`parse` handed each **string** to `add`, so `\"1,2\"` became `\"10\"` and `\"21\"`. It now converts first:",
  "",
  "```js",
  "export const parse = (text) => text.split(\",\").map(Number)",
  "```",
  "",
  "| input | before | after |",
  "|---|---|---|",
  "| `\"1,2\"` | `[\"10\", \"21\"]` | `[1, 2]` |",
  "",
  "- `add` is unchanged",
  "- run `npm test` to confirm"
].join("\n")

const script = {
  responses: [
    { chunks: [{ text: "Let me read the module first." }, { toolCall: { name: "read_file", input: { path: "src/math.js" } } }], usage: { inputTokens: 2_140, outputTokens: 38 } },
    {
      chunks: [
        { text: "`parse` maps with `add`, which concatenates strings. I'll convert with `Number`." },
        { toolCall: { name: "edit_file", input: { path: "src/math.js", old_string: 'split(",").map(add)', new_string: 'split(",").map(Number)' } } }
      ],
      usage: { inputTokens: 2_410, outputTokens: 71 }
    },
    { chunks: [{ text: answer }], usage: { inputTokens: 2_650, outputTokens: 164 } }
  ]
}

const scratch = mkdtempSync(join(tmpdir(), "screenshot-"))
const workspace = join(scratch, "calc")
const home = join(scratch, "home")
mkdirSync(join(workspace, "src"), { recursive: true })
writeFileSync(join(workspace, "src", "math.js"), mathJs)
writeFileSync(join(workspace, "package.json"), JSON.stringify({ name: "calc", type: "module", scripts: { test: "node --test" } }, null, 2))
writeFileSync(join(workspace, "script.json"), JSON.stringify(script))

const session = runOnPty([cli, "--script", "script.json"], {
  cwd: workspace,
  cols,
  rows,
  env: { PATH: process.env["PATH"] ?? "", HOME: home, COLORTERM: "truecolor", CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: join(home, "config") }
})
/** Waits until what the program wrote so far contains `text` (the scripted model answers at once). */
const waitFor = (text: string) => session.waitForText(text, { timeoutMs: 20_000 })

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"]
})
try {
  const page = await browser.newPage({ deviceScaleFactor: 2 })
  await page.setContent(
    `<html><head><style>${readFileSync(join(root, "node_modules/@xterm/xterm/css/xterm.css"), "utf8")}
     body { margin: 0; background: #1e1e1e; } #t { padding: 12px; display: inline-block; } .xterm-viewport { overflow: hidden !important; }</style></head>
     <body><div id="t"></div></body></html>`
  )
  await page.addScriptTag({ content: readFileSync(join(root, "node_modules/@xterm/xterm/lib/xterm.js"), "utf8") })

  /** Draws everything the program wrote so far in a fresh xterm.js the size of the pty, and photographs it. */
  const shoot = async (file: string): Promise<void> => {
    await page.evaluate(
      ({ data, cols, rows }) =>
        new Promise<void>((resolve) => {
          const host = document.getElementById("t")
          if (host === null) throw new Error("no terminal element")
          host.innerHTML = ""
          // xterm.js's browser build puts its exports on the page's global object.
          const Terminal = Reflect.get(globalThis, "Terminal") as new (options: object) => { open(el: HTMLElement): void; write(data: string, done: () => void): void }
          const term = new Terminal({ cols, rows, fontSize: 14, fontFamily: "DejaVu Sans Mono, monospace", theme: { background: "#1e1e1e" } })
          term.open(host)
          term.write(data, () => requestAnimationFrame(() => resolve()))
        }),
      { data: session.output(), cols, rows }
    )
    await page.locator("#t").screenshot({ path: join(out, file) })
    process.stdout.write(`wrote docs/images/${file}\n`)
  }

  mkdirSync(out, { recursive: true })
  await waitFor("custom-agent")
  session.type("parse(\"1,2\") gives strings, not numbers. Fix it.")
  session.type("\r")
  await waitFor("allow once")
  await shoot("interactive-question.png")
  session.type("y")
  await waitFor("to confirm")
  await waitFor("tokens")
  await shoot("interactive-answer.png")
} finally {
  await browser.close()
  await session.quit()
  rmSync(scratch, { recursive: true, force: true })
}
