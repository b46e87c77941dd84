// A payment API under test: the fake YooKassa as a real HTTP server, and the real app pointed at
// it (plus the fake upstream, so customers can also spend). Reconciliation runs every second.
import { startFakeYooKassa } from '../payments/fake'
import { startGateway } from './gateway'

export const SHOP_ID = '100500'
export const SHOP_SECRET = 'test_shop_secret_key'

export async function startPayments(env: Record<string, string> = {}) {
  const yookassa = startFakeYooKassa({ shopId: SHOP_ID, secretKey: SHOP_SECRET })
  const gw = await startGateway({
    YOOKASSA_SHOP_ID: SHOP_ID,
    YOOKASSA_SECRET_KEY: SHOP_SECRET,
    YOOKASSA_API_URL: yookassa.url,
    PAYMENT_RECONCILE_AFTER_SEC: '2',
    PAYMENT_RECONCILE_CRON: '* * * * * *',
    ...env,
  })
  return {
    ...gw,
    yookassa,
    webhookUrl: `${gw.url}/api/payments/webhook`,
    /** The provider's payment behind one of ours (from the create call's Idempotence-Key). */
    async providerIdOf(paymentId: string): Promise<string> {
      const [row] = await gw.read<{ provider_payment_id: string }>('select provider_payment_id from payments where id = ?', paymentId)
      return row!.provider_payment_id
    },
    async stop() {
      await gw.stop()
      yookassa.stop()
    },
  }
}
