// The seller the server wrote into the page (SELLER_*; src/spa/index.ts, src/content/seller.ts):
// the legal pages and the footer name it from the first paint; null without SELLER_*.
import { type PublicSeller, SELLER_ISLAND_ID } from '../../src/content/seller'

function read(): PublicSeller | null {
  if (typeof document === 'undefined') return null
  const text = document.getElementById(SELLER_ISLAND_ID)?.textContent
  if (!text) return null
  try {
    return JSON.parse(text) as PublicSeller
  } catch {
    return null
  }
}

export const siteSeller: PublicSeller | null = read()
