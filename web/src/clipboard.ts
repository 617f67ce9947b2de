/**
 * Copies text to the clipboard; false where the browser will not (no clipboard API outside a
 * secure context, such as a server reached over plain HTTP by a LAN name, or permission refused).
 */
export const copyText = async (text: string): Promise<boolean> => {
  if (!window.isSecureContext || navigator.clipboard === undefined) return false
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch (error) {
    console.warn("the clipboard refused the copy", error)
    return false
  }
}

/** Selects an element's text, so a person can copy it with the keyboard where the page cannot. */
export const selectText = (element: Element): void => {
  const range = document.createRange()
  range.selectNodeContents(element)
  const selection = getSelection()
  selection?.removeAllRanges()
  selection?.addRange(range)
}
