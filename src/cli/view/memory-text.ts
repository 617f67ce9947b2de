import { invisibleInline } from "../../domain/visible-text.js"
import { visible } from "../terminal-text.js"

/** A run of line breaks, with the blanks around and between them (blank lines). */
const LINE_BREAKS = /[^\S\r\n]*(?:\r\n|\r|\n)(?:[^\S\r\n]*(?:\r\n|\r|\n))*[^\S\r\n]*/g
/** More than three blanks in a row (spaces, tabs, no-break and ideographic spaces, separators). */
const BLANKS = /\s{4,}/gu

/**
 * A memory's text on one line, all of it, so a listing shows what approving it stores: each run
 * of line breaks as `⏎` (with its count when more than one: `⏎×9000`), each run of more than
 * three blanks as `␣×N`, each run of one invisible character as its notation and count
 * (`<U+200B>×500`), every other invisible character in the sanitizer's notation. A text made
 * mostly of line breaks or blanks cannot push what it says below a listing's cut or off the
 * screen, nor start a line that reads as another entry.
 */
export const memoryOneLine = (text: string): string =>
  text
    .replace(LINE_BREAKS, (run) => {
      const breaks = run.replace(/\r\n/g, "\n").replace(/[^\r\n]/g, "").length
      return breaks === 1 ? " ⏎ " : ` ⏎×${breaks} `
    })
    .replace(BLANKS, (run) => ` ␣×${[...run].length} `)
    .replace(new RegExp(`(${invisibleInline.source})\\1*`, "gu"), (run, char: string) => {
      const count = [...run].length
      return count === 1 ? visible(char) : `${visible(char)}×${count}`
    })
