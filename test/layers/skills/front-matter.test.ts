import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseFrontMatter, splitFrontMatter } from "../../../src/layers/skills/front-matter.js"
import { parseSkillFile } from "../../../src/layers/skills/skill-header.js"

const values = (text: string) => {
  const parsed = parseFrontMatter(text)
  if (Either.isLeft(parsed)) throw new Error(`expected the front matter to parse: ${parsed.left}`)
  return Object.fromEntries(parsed.right)
}

const failure = (text: string) => {
  const parsed = parseFrontMatter(text, 2)
  if (Either.isRight(parsed)) throw new Error("expected a parse error")
  return parsed.left
}

describe("splitFrontMatter", () => {
  it("splits at the first closing --- line, with CRLF and a BOM", () => {
    expect(splitFrontMatter("\uFEFF---\r\nname: a\r\n---\r\nbody\r\n---\r\nmore")).toEqual({
      _tag: "Split",
      frontMatter: "name: a\r\n",
      body: "body\r\n---\r\nmore"
    })
    expect(splitFrontMatter("---\nname: a\n---")).toEqual({ _tag: "Split", frontMatter: "name: a\n", body: "" })
  })

  it("tells a file without front matter from one whose front matter never closes", () => {
    expect(splitFrontMatter("# Title\n---\n")._tag).toBe("NoFrontMatter")
    expect(splitFrontMatter("----\nname: a\n---\n")._tag).toBe("NoFrontMatter")
    expect(splitFrontMatter("---\nname: a\n--- not a delimiter\n")._tag).toBe("Unclosed")
  })
})

describe("parseFrontMatter", () => {
  it("reads plain, quoted and commented scalars as text, never typed", () => {
    expect(
      values(
        [
          "# a comment",
          "name: pdf-forms   # trailing comment",
          "description: Fill in PDF forms: text fields, check boxes",
          "single: 'it''s #not a comment'",
          'double: "tab\\there \\u00e9\\x41 \\"q\\""',
          "count: 12",
          "flag: true",
          "empty:",
          ""
        ].join("\n")
      )
    ).toEqual({
      name: "pdf-forms",
      description: "Fill in PDF forms: text fields, check boxes",
      single: "it's #not a comment",
      double: 'tab\there éA "q"',
      count: "12",
      flag: "true",
      empty: null
    })
  })

  it("folds plain and quoted values continued on indented lines", () => {
    expect(values("description: first line\n  second line\n\n  after a blank\nname: x")).toEqual({
      description: "first line second line\nafter a blank",
      name: "x"
    })
    expect(values('description: "one\n  two"')).toEqual({ description: "one two" })
    expect(values("description:\n  on the next line\n  and the one after")).toEqual({ description: "on the next line and the one after" })
  })

  it("reads | and > block scalars with chomping", () => {
    const block = ["  line one", "  line two", "", "  after blank", "    indented"]
    expect(values(["literal: |", ...block].join("\n"))).toEqual({ literal: "line one\nline two\n\nafter blank\n  indented\n" })
    expect(values(["folded: >-", ...block].join("\n"))).toEqual({ folded: "line one line two\nafter blank\n  indented" })
    expect(values("keep: |+\n  a\n\n\nnext: b")).toEqual({ keep: "a\n\n\n", next: "b" })
    expect(values("strip: |-\n  a\n")).toEqual({ strip: "a" })
    expect(values("empty: |\nnext: b")).toEqual({ empty: "", next: "b" })
    expect(values("tabbed: |\n  \tafter the indentation, a tab is text\n")).toEqual({ tabbed: "\tafter the indentation, a tab is text\n" })
  })

  it("reads lists of scalars, flow or block; skips maps and lists of lists or maps as nested", () => {
    expect(
      values(
        ["name: x", "allowed-tools:", "  - Read", "  - Bash(git:*)", "metadata:", "  author: someone", "  tags: [a, b]", "inline: [a, b]", "description: y"].join("\n")
      )
    ).toEqual({ name: "x", "allowed-tools": ["Read", "Bash(git:*)"], metadata: { nested: true }, inline: ["a", "b"], description: "y" })
    expect(values("tools: [read_file]")).toEqual({ tools: ["read_file"] })
    expect(values("tools: []")).toEqual({ tools: [] })
    expect(values(`tools: [ "a, b", 'c''s', d e , ] # trailing comma and comment`)).toEqual({ tools: ["a, b", "c's", "d e"] })
    expect(values("tools: [read_file,\n  grep]\nname: x")).toEqual({ tools: ["read_file", "grep"], name: "x" })
    // A block list may start at the key's own column (valid YAML), with comments and blank lines between items.
    expect(values("tools:\n- read_file\n\n# a comment\n- \"grep\" # why\nname: x")).toEqual({ tools: ["read_file", "grep"], name: "x" })
    expect(values("tools:\n  - [a, b]")).toEqual({ tools: { nested: true } })
    expect(values("tools:\n  - key: value")).toEqual({ tools: { nested: true } })
    expect(values("tools: [[a], b]")).toEqual({ tools: { nested: true } })
    expect(values("tools: [{a: 1}]")).toEqual({ tools: { nested: true } })
    expect(values("tools:\n  - a\n    continued")).toEqual({ tools: { nested: true } })
  })

  it("reports malformed lists with their line number", () => {
    expect(failure("tools: [a, b")).toBe('line 2: the list is not closed by "]"')
    expect(failure("tools: [a, , b]")).toContain("line 2: an empty item in the list")
    expect(failure("tools: [a] b")).toContain(`line 2: unexpected text after the list's "]"`)
    expect(failure('tools: ["a" b]')).toContain('line 2: expected "," or "]" after a list item')
    expect(failure("tools:\n    - a\n  - b")).toBe("line 4: less indented than the list's first item")
    expect(failure("tools:\n  - a\n  b")).toContain("line 4: expected a list item")
    expect(failure("tools:\n  - *alias")).toContain("line 3:")
  })

  it("reports bad lines with their line number", () => {
    expect(failure("name: a\nthis is not yaml")).toBe('line 3: expected "key: value", found "this is not yaml"')
    expect(failure("name: a\nname: b")).toBe('line 3: duplicate key "name"')
    expect(failure("  name: a")).toContain("line 2: unexpected indentation")
    expect(failure('name: "open')).toBe("line 2: the double-quoted value is not closed")
    expect(failure("name: 'open")).toBe("line 2: the single-quoted value is not closed")
    expect(failure('name: "a" b')).toContain("line 2: unexpected text after the closing quote")
    expect(failure('name: "bad \\q escape"')).toContain('invalid escape "\\q"')
    expect(failure("name: &anchor a")).toContain("anchor, alias, tag")
    expect(failure("name: !!str a")).toContain("anchor, alias, tag")
    expect(failure("description: |2\n  a")).toContain("unsupported block scalar header")
    expect(failure("description: |\n    a\n  b")).toBe("line 4: less indented than the first line of the block")
    expect(failure("description: x\n\tcontinued")).toBe("line 3: tabs cannot indent YAML")
    expect(failure("name:a")).toContain("line 2: expected")
  })
})

describe("parseSkillFile", () => {
  const parsed = (text: string, readLimit?: number) => parseSkillFile(text, readLimit)

  it("validates name and description and returns the body without leading blank lines", () => {
    expect(parsed("---\nname: my_skill.v2\ndescription: >\n  Does things\n  well.\nlicense: MIT\n---\n\n\n# Steps\n1. go\n\n")).toEqual(
      Either.right({ header: { name: "my_skill.v2", description: "Does things well." }, body: "# Steps\n1. go" })
    )
  })

  it("explains what is wrong with the header", () => {
    expect(parsed("---\ndescription: d\n---\n")).toEqual(Either.left('"name" is missing'))
    expect(parsed("---\nname: Bad Name\ndescription: d\n---\n")).toEqual(
      Either.left('"name" may only hold lowercase letters, digits, "-", "_" and "." (starting with a letter or digit)')
    )
    expect(parsed(`---\nname: ${"a".repeat(65)}\ndescription: d\n---\n`)).toEqual(Either.left('"name" is longer than 64 characters'))
    expect(parsed("---\nname: a\ndescription: '   '\n---\n")).toEqual(Either.left('"description" is empty'))
    expect(parsed(`---\nname: a\ndescription: ${"d".repeat(1025)}\n---\n`)).toEqual(Either.left('"description" is longer than 1024 characters'))
    expect(parsed("---\nname:\n  - a\ndescription:\n---\n")).toEqual(Either.left('"name" must be text; "description" must be text'))
    expect(parsed("# Just markdown\n")).toEqual(Either.left(expect.stringContaining("no front matter")))
    expect(parsed("---\nname: a\n", 16 * 1024)).toEqual(Either.left('the front matter is not closed by a "---" line within the first 16.0 KiB'))
  })
})
