import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { showInvisible } from "../../src/domain/visible-text.js"

describe("text a person judges on a page", () => {
  it("shows bidi, zero-width, tag and control characters by their code point", () => {
    expect(showInvisible("src/evil\u202etxt.sh")).toBe("src/evil<U+202E>txt.sh")
    expect(showInvisible("rm\u200b -rf")).toBe("rm<U+200B> -rf")
    expect(showInvisible("a\u{E0041}b")).toBe("a<U+E0041>b")
    expect(showInvisible("x\u001b[31my\r")).toBe("x<U+001B>[31my<U+000D>")
    expect(showInvisible("line\u2028next")).toBe("line<U+2028>next")
  })

  it("shows what draws as nothing or as a blank: variation selectors, the grapheme joiner, the Braille blank", () => {
    expect(showInvisible("build\uFE0F.sh")).toBe("build<U+FE0F>.sh")
    expect(showInvisible("a\u{E0100}\u034F\u180B\u17B4b")).toBe("a<U+E0100><U+034F><U+180B><U+17B4>b")
    expect(showInvisible("rm\u2800-rf")).toBe("rm<U+2800>-rf")
  })

  it("leaves what a reader sees as it is: line feeds, tabs, letters of every script, emoji", () => {
    const seen = "naïve 日本語 ελληνικά\n\tfn() { return 1 } 🙂"
    expect(showInvisible(seen)).toBe(seen)
  })

  it.prop("what it gives holds no invisible character, and text without one comes back unchanged", { text: FastCheck.fullUnicodeString() }, ({ text }) => {
    const shown = showInvisible(text)
    expect(/[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800]/u.test(shown)).toBe(false)
    expect(showInvisible(shown)).toBe(shown)
  })
})
