import { describe, expect, it } from "@effect/vitest"
import { blockRenderer, escapeHtml, safeHref } from "../../web/src/markdown.js"

/** A finished text, as the page renders it: its blocks in order. */
const renderMarkdown = (text: string) => blockRenderer()(text, false).join("\n")

/** The attributes and tags in some HTML, for checking what could run in a browser. */
const tagsOf = (html: string) => [...html.matchAll(/<([a-z][a-z0-9]*)\b/gi)].map((m) => m[1]?.toLowerCase())
const hrefsOf = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])

describe("Markdown of model output", () => {
  it("renders headings, lists, emphasis, links, tables and fenced code with highlighting", () => {
    const html = renderMarkdown(
      [
        "# Plan",
        "",
        "Some **bold**, *italic* and `code`, see [the docs](https://example.com/docs).",
        "",
        "1. first",
        "2. second",
        "",
        "| file | lines |",
        "|:--|--:|",
        "| a.ts | 12 |",
        "",
        "```ts",
        "const answer: number = 42",
        "```",
        ""
      ].join("\n")
    )
    expect(html).toContain("<h1>Plan</h1>")
    expect(html).toContain("<strong>bold</strong>")
    expect(html).toContain("<em>italic</em>")
    expect(html).toContain("<code>code</code>")
    expect(html).toContain('<a href="https://example.com/docs" rel="noopener noreferrer nofollow" target="_blank">the docs</a>')
    expect(html).toContain("<ol>\n<li>first</li>")
    expect(html).toMatch(/<table>[\s\S]*<th align="left">file<\/th>[\s\S]*<td align="right">12<\/td>/)
    expect(html).toContain('<pre><code class="hljs language-ts"><span class="hljs-keyword">const</span>')
    expect(html).toContain('<span class="hljs-number">42</span>')
  })

  it("shows code in a language it does not know, plain and escaped", () => {
    expect(renderMarkdown("```brainfuck\n<b>+</b>\n```")).toBe('<pre><code class="language-brainfuck">&lt;b&gt;+&lt;/b&gt;</code></pre>')
    expect(renderMarkdown("```\nx < y\n```")).toBe("<pre><code>x &lt; y</code></pre>")
  })

  it("shows raw HTML as text: no script, no event handler, no element the model wrote", () => {
    const html = renderMarkdown(
      [
        "<script>alert(1)</script>",
        "",
        '<img src="x" onerror="alert(1)">',
        "",
        'Inline <b onclick="alert(1)">bold</b> and <iframe src="https://evil.example"></iframe>.',
        "",
        "<details><summary>hi</summary>text</details>"
      ].join("\n")
    )
    expect(tagsOf(html).filter((tag) => tag !== "p")).toEqual([])
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(html).toContain("&lt;img src=&quot;x&quot; onerror=&quot;alert(1)&quot;&gt;")
    expect(html).toContain("&lt;b onclick=&quot;alert(1)&quot;&gt;bold&lt;/b&gt;")
  })

  it("makes no link of javascript:, data: or vbscript:, however it is spelled", () => {
    const html = renderMarkdown(
      [
        "[a](javascript:alert(1))",
        "[b](JaVaScRiPt:alert(1))",
        "[c](<javascript:alert(1)>)",
        "<javascript:alert(1)>",
        "[d](data:text/html;base64,PHNjcmlwdD4=)",
        "[e](vbscript:msgbox)",
        "[f](javascript&#58;alert(1))",
        "[g](javascript&colon;alert(1))",
        "[h][ref]",
        "",
        "[ref]: javascript:alert(1)"
      ].join(" ")
    )
    const links = hrefsOf(html)
    // The ones that stayed links are character references written out, which the browser reads as text: relative links.
    expect(links).toEqual(["javascript&amp;#58;alert(1)", "javascript&amp;colon;alert(1)"])
    for (const href of links) {
      // A browser decodes the attribute once: only our own escapes are in it, so it gets the text as the model wrote it.
      expect(href).toMatch(/^(?:[^&]|&(?:amp|quot|lt|gt|#39);)*$/)
      const decoded = (href ?? "").replace(/&amp;/g, "&")
      expect(/^[a-z][a-z0-9+.-]*:/i.test(decoded.replace(/[\u0000-\u0020]/g, ""))).toBe(false)
    }
    expect(html).toContain("a b c javascript:alert(1) d e")
  })

  it("shows an image as a link to it, so nothing is fetched without a click", () => {
    const html = renderMarkdown("![chart](https://example.com/c.png) ![x](javascript:alert(1))")
    expect(tagsOf(html)).not.toContain("img")
    expect(html).toContain('<a href="https://example.com/c.png" class="image-link" rel="noopener noreferrer nofollow" target="_blank">image: chart</a>')
    expect(html).toContain(" x</p>")
  })

  it("keeps web and mail links, relative ones and anchors; refuses other schemes", () => {
    expect(safeHref("https://example.com/?a=1&amp;b=2")).toBe("https://example.com/?a=1&b=2")
    expect(safeHref("mailto:someone@example.com")).toBe("mailto:someone@example.com")
    expect(safeHref("docs/setup.md")).toBe("docs/setup.md")
    expect(safeHref("#notes")).toBe("#notes")
    expect(safeHref("javascript:alert(1)")).toBeUndefined()
    expect(safeHref(" java\tscript:alert(1)")).toBeUndefined()
    expect(safeHref("file:///etc/passwd")).toBeUndefined()
    expect(safeHref("data:text/html,x")).toBeUndefined()
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
  })

  it("renders a streaming text block by block: the open block plain, finished blocks once and highlighted", () => {
    const finished: Array<string> = []
    const render = blockRenderer((html) => {
      finished.push(html)
      return html
    })
    const streaming = render("Intro.\n\n```ts\nconst x = 1", true)
    expect(streaming).toEqual(["<p>Intro.</p>", '<pre><code class="language-ts">const x = 1</code></pre>'])
    const more = render("Intro.\n\n```ts\nconst x = 1\n```\n\nAfter", true)
    expect(more[0]).toBe("<p>Intro.</p>")
    expect(more[1]).toContain('class="hljs language-ts"')
    expect(more[2]).toBe("<p>After</p>")
    const done = render("Intro.\n\n```ts\nconst x = 1\n```\n\nAfter.", false)
    expect(done).toEqual([more[0], more[1], "<p>After.</p>"])
    // "Intro." was finished (and sanitized) once; the open block each time it changed.
    expect(finished.filter((html) => html === "<p>Intro.</p>")).toHaveLength(1)
  })

  it("resolves a reference link whose definition arrives after it", () => {
    const render = blockRenderer()
    expect(render("See [the guide][g].\n\n", true)).toEqual(["<p>See [the guide][g].</p>"])
    expect(render("See [the guide][g].\n\n[g]: https://example.com/guide\n", false)).toEqual([
      '<p>See <a href="https://example.com/guide" rel="noopener noreferrer nofollow" target="_blank">the guide</a>.</p>'
    ])
  })
})
