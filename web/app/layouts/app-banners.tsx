// The notices above the signed-in pages: each kind one dismissible line, and on a phone only the
// first open one (closing it brings the next), so a page that fills the screen — the Playground's
// conversation — keeps the height (issue 29). Most pressing first.
import type { ComponentType } from 'react'
import { DemoBanner, useDemoBannerShown } from '../../components/demo-banner'
import { EmailVerificationBanner, useEmailVerificationBannerShown } from '../../components/email-verification-banner'
import { LowBalanceBanner, useLowBalanceBannerShown } from '../../components/low-balance-banner'
import { TestPaymentsBanner, useTestPaymentsBannerShown } from '../../components/test-payments-banner'
import { useMediaQuery } from '../../lib/use-media-query'

// The confirmation first: until it, the balance is low by definition (the bonus waits for it).
const BANNERS: Array<{ kind: string; Banner: ComponentType }> = [
  { kind: 'emailVerification', Banner: EmailVerificationBanner },
  { kind: 'lowBalance', Banner: LowBalanceBanner },
  { kind: 'testPayments', Banner: TestPaymentsBanner },
  { kind: 'demo', Banner: DemoBanner },
]

export function AppBanners() {
  const wide = useMediaQuery('(min-width: 640px)')
  const shown = [useEmailVerificationBannerShown(), useLowBalanceBannerShown(), useTestPaymentsBannerShown(), useDemoBannerShown()]
  const open = BANNERS.filter((_, i) => shown[i])
  return (
    <>
      {(wide ? open : open.slice(0, 1)).map(({ kind, Banner }) => (
        <Banner key={kind} />
      ))}
    </>
  )
}
