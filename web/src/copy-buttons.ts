import type { RefObject } from "preact"
import { useLayoutEffect } from "preact/hooks"
import { copyText, selectText } from "./clipboard.js"

const resetMs = 1_500

const copy = async (button: HTMLButtonElement, code: Element) => {
  const copied = await copyText(code.textContent ?? "")
  if (!copied) selectText(code)
  button.textContent = copied ? "Copied" : "Selected: press Ctrl+C"
  setTimeout(() => (button.textContent = "Copy"), resetMs)
}

/**
 * A "Copy" button on every code block under `ref`. The blocks are rendered HTML (sanitized, not
 * diffed by Preact), so the buttons are added to the DOM after each render that may have
 * replaced them, and one listener on the container handles them all.
 */
export const useCopyButtons = (ref: RefObject<HTMLElement>, rendered: unknown) => {
  useLayoutEffect(() => {
    const container = ref.current
    if (container === null) return
    for (const pre of container.querySelectorAll("pre")) {
      if (pre.querySelector(":scope > button.copy") !== null) continue
      const button = document.createElement("button")
      button.type = "button"
      button.className = "copy"
      button.textContent = "Copy"
      button.title = "Copy the code"
      pre.prepend(button)
    }
  }, [rendered])
  useLayoutEffect(() => {
    const container = ref.current
    if (container === null) return
    const onClick = (event: MouseEvent) => {
      const button = event.target instanceof Element ? event.target.closest("button.copy") : null
      const code = button?.parentElement?.querySelector("code")
      if (!(button instanceof HTMLButtonElement) || code === null || code === undefined) return
      void copy(button, code)
    }
    container.addEventListener("click", onClick)
    return () => container.removeEventListener("click", onClick)
  }, [])
}
