import type { EditorTheme, SelectListTheme } from "@mariozechner/pi-tui"

/** One style: text in, the text with its SGR codes around it (or as it is, without colour). */
export type Paint = (text: string) => string

/**
 * The session's own styles (the answer's Markdown is `view/markdown-theme.ts`'s, shared with `run`). Each closes only what it opened (bold with 22, a colour with 39, ...),
 * so styles nest inside Markdown's and inside each other. Only ever applied to text that was
 * made safe first (`safe-text.ts`): these codes are the only escapes on the screen.
 */
export interface Theme {
  readonly color: boolean
  readonly bold: Paint
  readonly dim: Paint
  readonly italic: Paint
  readonly underline: Paint
  readonly strike: Paint
  readonly red: Paint
  readonly green: Paint
  readonly yellow: Paint
  readonly blue: Paint
  readonly magenta: Paint
  readonly cyan: Paint
  readonly gray: Paint
  readonly inverse: Paint
}

const sgr = (on: boolean, open: number, close: number): Paint => (on ? (text) => `\x1b[${open}m${text}\x1b[${close}m` : (text) => text)

export const makeTheme = (color: boolean): Theme => ({
  color,
  bold: sgr(color, 1, 22),
  dim: sgr(color, 2, 22),
  italic: sgr(color, 3, 23),
  underline: sgr(color, 4, 24),
  strike: sgr(color, 9, 29),
  red: sgr(color, 31, 39),
  green: sgr(color, 32, 39),
  yellow: sgr(color, 33, 39),
  blue: sgr(color, 34, 39),
  magenta: sgr(color, 35, 39),
  cyan: sgr(color, 36, 39),
  gray: sgr(color, 90, 39),
  // Without colour the selection still shows: a marker the list draws itself.
  inverse: sgr(color, 7, 27)
})

export const selectListTheme = (t: Theme): SelectListTheme => ({
  selectedPrefix: t.cyan,
  selectedText: t.bold,
  description: t.dim,
  scrollInfo: t.dim,
  noMatch: t.dim
})

export const editorTheme = (t: Theme): EditorTheme => ({
  borderColor: t.gray,
  selectList: selectListTheme(t)
})
