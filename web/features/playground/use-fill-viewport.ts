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
      // the layout's padding below the page still has to fit, less what the page's own negative
      // margin takes back (a phone runs the Playground to the screen's bottom edge)
      const parent = el.parentElement
      const padding = parent ? parseFloat(getComputedStyle(parent).paddingBottom) || 0 : 0
      const below = Math.max(0, padding + (parseFloat(getComputedStyle(el).marginBottom) || 0))
      const next = Math.max(MIN_HEIGHT, Math.floor(window.innerHeight - top - below))
      setHeight((h) => (h === next ? h : next))
    }
    measure()
    // Banners appearing or being dismissed move the page down or up. The body's size alone misses
    // a banner that mounts in the same frame as our own resize (the body is back at the size last
    // reported, so no notification): watch the layout's children above the page come and go too.
    const resized = new ResizeObserver(measure)
    resized.observe(document.body)
    const mounted = new MutationObserver(measure)
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) mounted.observe(node, { childList: true })
    window.addEventListener('resize', measure)
    return () => {
      resized.disconnect()
      mounted.disconnect()
      window.removeEventListener('resize', measure)
    }
  }, [])

  return { ref, height }
}
