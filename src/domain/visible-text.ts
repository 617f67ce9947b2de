/**
 * The characters a reader cannot see, as a regular-expression class body: controls (but line
 * feed and tab), every format character (bidi, zero-width, the tag characters), the line and
 * paragraph separators, every character Unicode says a renderer may draw as nothing
 * (`Default_Ignorable_Code_Point`: variation selectors, the combining grapheme joiner, the
 * Mongolian free variation selectors, the Khmer inherent vowels, the Hangul fillers, the
 * reserved ranges), and the characters that have a glyph that is blank: the Braille blank and
 * the Khitan filler. Built from Unicode's properties, so a new such character is in it without
 * a list to keep.
 */
const invisibleClass = String.raw`\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\u{16FE4}`

/**
 * The one set: what the terminal's sanitizer (src/cli/terminal-text.ts) refuses and what the
 * web page shows visibly. Line feed and tab are kept (they are layout).
 */
export const invisibleCharacters = new RegExp(String.raw`[\x00-\x08\x0b-\x1f${invisibleClass}]`, "gu")

/** The same and line feed and tab too: for text that must stay on one line. */
export const invisibleInline = new RegExp(String.raw`[\x00-\x1f${invisibleClass}]`, "gu")

/** A character by its code point: `<U+202E>`. */
export const codePointName = (char: string): string => `<U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}>`

/**
 * Text a person judges (a path, a command, a diff in a permission question) with each invisible
 * character shown as `<U+XXXX>`, so `evil\u202etxt.sh` cannot pass for another name. For pages,
 * which print text as text but would let such characters act.
 */
export const showInvisible = (text: string): string => text.replace(invisibleCharacters, codePointName)
