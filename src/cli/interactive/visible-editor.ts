import { decodeKittyPrintable, Editor } from "@mariozechner/pi-tui"
import { invisibleInline } from "../../domain/visible-text.js"
import { visible } from "../terminal-text.js"

/** Text as the editor holds it: its lines with every invisible character shown as the sanitizer shows it (tabs as the editor's four spaces). */
export const editorText = (text: string): string =>
  text
    .replace(/\r\n?/g, "\n")
    .replace(/\t/g, "    ")
    .split("\n")
    .map((line) => line.replace(invisibleInline, visible))
    .join("\n")

/**
 * Keys as they reach the editor: the invisible characters past ASCII (bidi, zero-width,
 * default-ignorable, C1) shown visibly. ASCII controls are left alone: they are keys (Enter,
 * Backspace, an escape sequence), and the editor takes none of them as text.
 */
const keysText = (data: string): string => data.replace(invisibleInline, (char) => ((char.codePointAt(0) ?? 0) < 0x80 ? char : visible(char)))

/**
 * pi-tui's editor, holding no character a reader cannot see: whatever enters it (typed,
 * pasted, set, completed) has each such character replaced by its visible notation
 * (`<U+202E>`, as everywhere else on the screen), so a pasted bidi override or a file name's
 * zero-width character cannot make the line read as something else. The notation is the
 * text itself, so its width is what pi-tui lays out, and what is sent is what was shown:
 * `<U+202E>` as text, never the character. pi-tui's editor filters only C0, C1 and DEL; the
 * mapping is done where text comes in, and checked again after every key and before every
 * frame, so a way in that is missed (history, a completion applied later) is caught there.
 */
export class VisibleEditor extends Editor {
  override handleInput(data: string): void {
    // A key the kitty keyboard protocol sends as its code point (`ESC [ 8238 u`).
    const key = decodeKittyPrintable(data)
    super.handleInput(key !== undefined && key !== keysText(key) ? keysText(key) : keysText(data))
    this.#keepVisible()
  }

  override setText(text: string): void {
    super.setText(editorText(text))
  }

  override insertTextAtCursor(text: string): void {
    super.insertTextAtCursor(editorText(text))
  }

  override render(width: number): Array<string> {
    this.#keepVisible()
    return super.render(width)
  }

  /** The backstop: text that got in raw by a way not mapped is shown visibly (the cursor goes to its end). */
  #keepVisible(): void {
    const text = this.getText()
    const shown = editorText(text)
    if (shown !== text) super.setText(shown)
  }
}
