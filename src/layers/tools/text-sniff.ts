/** How much of a file is inspected to tell text from binary. */
export const SNIFF_BYTES = 8192

/** Above this share of U+FFFD replacement characters, the bytes are not UTF-8 text. */
const MAX_REPLACEMENT_RATIO = 0.1

/** Binary if the sample has a NUL byte or decodes as UTF-8 mostly into replacement characters. */
export const looksBinaryBytes = (sample: Uint8Array): boolean =>
  sample.includes(0) || looksBinaryText(new TextDecoder("utf-8").decode(sample))

/** The same judgement on text already decoded (e.g. from an editor buffer): a NUL, or mostly U+FFFD. */
export const looksBinaryText = (text: string): boolean => {
  const sample = text.slice(0, SNIFF_BYTES)
  if (sample.includes("\u0000")) return true
  let replacements = 0
  for (const char of sample) if (char === "\uFFFD") replacements++
  return sample.length > 0 && replacements / sample.length > MAX_REPLACEMENT_RATIO
}
