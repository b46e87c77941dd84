// The notices above the signed-in pages: each kind one dismissible line, and on a phone only the
// first open one (closing it brings the next), so a page that fills the screen — the Playground's
// conversation — keeps the height (issue 29). Most pressing first.
import type { ComponentType } from 'react'
import { DemoBanner, useDemoBannerShown } from '../../components/demo-banner'
import { EmailVerificationBanner, useEmailVerificationBannerShown } from '../../components/email-verification-banner'
import { LowBalanceBanner, useLowBalanceBannerShown } from '../../components/low-balance-banner'
import { TestPaymentsBanner, useTestPaymentsBannerShown } from '../../components/test-payments-banner'
import { useMediaQuery } from '../../lib/use-media-query'

const BANNERS: Array<{ kind: string; useShown: () => boolean; Banner: ComponentType }> = [
  { kind: 'lowBalance', useShown: useLowBalanceBannerShown, Banner: LowBalanceBanner },
  { kind: 'emailVerification', useShown: useEmailVerificationBannerShown, Banner: EmailVerificationBanner },
  { kind: 'testPayments', useShown: useTestPaymentsBannerShown, Banner: TestPaymentsBanner },
  { kind: 'demo', useShown: useDemoBannerShown, Banner: DemoBanner },
]

export function AppBanners() {
  const wide = useMediaQuery('(min-width: 640px)')
  // the hooks run in the same order on every render (a fixed list)
  const shown = BANNERS.map((b) => b.useShown())
  const open = BANNERS.filter((_, i) => shown[i])
  return (
    <>
      {(wide ? open : open.slice(0, 1)).map(({ kind, Banner }) => (
        <Banner key={kind} />
      ))}
    </>
  )
}
