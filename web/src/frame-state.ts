import { useCallback, useEffect, useRef, useState } from "preact/hooks"

/**
 * State that takes many updates a frame (a streamed answer's deltas) but renders at most once
 * per animation frame, with the newest value: the reducer keeps up with every event, the page
 * draws what a screen can show.
 */
export const useFrameState = <A>(initial: () => A): readonly [A, (next: A) => void] => {
  const [shown, setShown] = useState(initial)
  const latest = useRef<A>(shown)
  const frame = useRef<number | undefined>(undefined)
  useEffect(
    () => () => {
      if (frame.current !== undefined) cancelAnimationFrame(frame.current)
    },
    []
  )
  const set = useCallback((next: A) => {
    latest.current = next
    if (frame.current !== undefined) return
    frame.current = requestAnimationFrame(() => {
      frame.current = undefined
      setShown(latest.current)
    })
  }, [])
  return [shown, set] as const
}
