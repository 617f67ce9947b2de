/**
 * Characters a reader cannot see but that change what text means or how it reads: controls
 * (but line feed and tab), bidi and other format characters (zero-width ones, the tag
 * characters), the line and paragraph separators, and the Hangul fillers that render as blanks.
 * The one set: the terminal's sanitizer (src/cli/terminal-text.ts) refuses these too.
 */
export const invisibleCharacters = /[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]/gu

/** A character by its code point: `<U+202E>`. */
export const codePointName = (char: string): string => `<U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}>`

/**
 * Text a person judges (a path, a command, a diff in a permission question) with each invisible
 * character shown as `<U+XXXX>`, so `evil\u202etxt.sh` cannot pass for another name. For pages,
 * which print text as text but would let such characters act.
 */
export const showInvisible = (text: string): string => text.replace(invisibleCharacters, codePointName)
