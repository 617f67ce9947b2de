import { wrapTextWithAnsi } from "@mariozechner/pi-tui"

/** Each line wrapped to the width at spaces (its colours carried over), an empty line kept. */
export const wrapLines = (lines: ReadonlyArray<string>, width: number): Array<string> =>
  lines.flatMap((line) => (line === "" ? [""] : wrapTextWithAnsi(line, Math.max(1, width))))
