// The Playground takes the rest of the viewport below whatever the app layout puts above it (the
// phone header, banners that come and go), so the composer is on screen without scrolling the page
// and only the message list scrolls. Measured rather than guessed: the banners differ per account.
import { useLayoutEffect, useRef, useState } from 'react'

/** Below this the page scrolls instead (a very short window): the chat stays usable. */
const MIN_HEIGHT = 360

export function useFillViewport<T extends HTMLElement>() {
  const ref = useRef<T>(null)
  const [height, setHeight] = useState<number | null>(null)

  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const measure = () => {
      const top = el.getBoundingClientRect().top + window.scrollY
      // the layout's padding below the page still has to fit
      const parent = el.parentElement
      const below = parent ? parseFloat(getComputedStyle(parent).paddingBottom) || 0 : 0
      const next = Math.max(MIN_HEIGHT, Math.floor(window.innerHeight - top - below))
      setHeight((h) => (h === next ? h : next))
    }
    measure()
    // banners appearing or being dismissed move the page down or up
    const observer = new ResizeObserver(measure)
    observer.observe(document.body)
    window.addEventListener('resize', measure)
    return () => {
      observer.disconnect()
      window.removeEventListener('resize', measure)
    }
  }, [])

  return { ref, height }
}
