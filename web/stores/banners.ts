// Which notices above the pages were closed. Shared by a banner and the app's banner row, which on
// a phone shows only the first open one (issue 29: the conversation takes the height banners leave).
import { create } from 'zustand'

export type BannerKind = 'lowBalance' | 'emailVerification' | 'testPayments' | 'demo'

/** Where a closed banner is remembered: for good (demo), for the tab (test payments), or until the page reloads. */
const REMEMBERED: Partial<Record<BannerKind, { storage: 'local' | 'session'; key: string }>> = {
  demo: { storage: 'local', key: 'demo-banner-dismissed' },
  testPayments: { storage: 'session', key: 'test-payments-banner-dismissed' },
}

const storageOf = (kind: 'local' | 'session') => (kind === 'local' ? localStorage : sessionStorage)

function readDismissed(): Partial<Record<BannerKind, true>> {
  const out: Partial<Record<BannerKind, true>> = {}
  for (const [kind, where] of Object.entries(REMEMBERED) as Array<[BannerKind, { storage: 'local' | 'session'; key: string }]>) {
    try {
      if (storageOf(where.storage).getItem(where.key) === '1') out[kind] = true
    } catch {
      // storage unavailable (private mode): the banner simply shows
    }
  }
  return out
}

interface BannersState {
  dismissed: Partial<Record<BannerKind, true>>
  dismiss: (kind: BannerKind) => void
}

export const useBanners = create<BannersState>()((set) => ({
  dismissed: typeof window === 'undefined' ? {} : readDismissed(),
  dismiss: (kind) => {
    const where = REMEMBERED[kind]
    if (where)
      try {
        storageOf(where.storage).setItem(where.key, '1')
      } catch {
        // not remembered: hidden until the next page load
      }
    set((s) => ({ dismissed: { ...s.dismissed, [kind]: true } }))
  },
}))

export const useDismissed = (kind: BannerKind) => useBanners((s) => s.dismissed[kind] === true)
