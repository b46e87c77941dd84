// «Пригласите друзей» on the account page: the personal invitation link (GET /api/billing/referral,
// made on first ask), its copy button, the rules with the bonus the server states, and what it brought.
// When REFERRAL_BONUS_RUB is 0 the server says the programme is off, and so does the block.
import type { ReactNode } from 'react'
import useSWR from 'swr'
import { formatInteger, formatRubles } from '../../../src/content/format'
import type { Referral } from '../../../src/wire'
import { Card } from '../../components/card'
import { CopyButton } from '../../components/copy-button'
import { InfoIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { ListSkeleton, LoadError } from '../../components/list-state'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'

export const REFERRAL_KEY = '/api/billing/referral'

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-baseline justify-between gap-3 rounded-lg bg-slate-50 px-3 py-2 sm:block sm:py-2.5">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="text-base font-semibold whitespace-nowrap text-slate-900 tabular-nums sm:mt-0.5">{children}</dd>
    </div>
  )
}

function Figures({ data }: { data: Referral }) {
  return (
    <dl className="mt-4 grid grid-cols-1 gap-2 sm:grid-cols-3" data-testid="referral-figures">
      <Figure label="Зарегистрировались">{formatInteger(data.invited)}</Figure>
      <Figure label="Пополнили баланс">{formatInteger(data.rewarded)}</Figure>
      <Figure label="Получено бонусов">{formatRubles(data.earnedRub)}</Figure>
    </dl>
  )
}

function Body({ data }: { data: Referral }) {
  if (!data.enabled || !data.link) {
    return (
      <>
        <p data-testid="referral-off" className="mt-4 flex items-start gap-2 rounded-lg border border-slate-200 bg-slate-50 px-3 py-2.5 text-sm text-slate-700">
          <InfoIcon size={16} className="mt-0.5 shrink-0 text-slate-500" />
          <span>Реферальная программа сейчас не действует.</span>
        </p>
        {data.earnedRub > 0 && <Figures data={data} />}
      </>
    )
  }
  const bonus = formatRubles(data.bonusRub)
  return (
    <>
      <p className="mt-1 text-sm text-slate-500">
        Поделитесь ссылкой: когда приглашённый зарегистрируется по ней и впервые пополнит баланс картой или по счёту на {formatRubles(data.minPaymentRub)} или больше, вы оба
        получите по <span className="font-medium whitespace-nowrap text-slate-700">{bonus}</span>.
      </p>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-center">
        <label htmlFor="referral-link" className="sr-only">
          Ваша ссылка-приглашение
        </label>
        <input
          id="referral-link"
          data-testid="referral-link"
          readOnly
          value={data.link}
          onFocus={(e) => e.currentTarget.select()}
          className={cn(inputClasses, 'font-mono text-[13px] sm:flex-1 sm:text-sm')}
        />
        <CopyButton
          text={data.link}
          label="Скопировать ссылку"
          className="h-10 justify-center border border-slate-200 bg-white px-4 text-sm text-slate-800 shadow-sm hover:border-slate-300 hover:bg-slate-50"
        />
      </div>
      <Figures data={data} />
      <ul className="mt-4 list-disc space-y-1 pl-5 text-xs text-slate-500">
        <li>Бонус начисляется один раз за каждого приглашённого — на личные балансы, не больше {formatInteger(data.monthlyLimit)} бонусов в календарный месяц.</li>
        <li>Тестовые пополнения не считаются. Реферальные бонусы, как и деньги по промокодам, не возвращаются.</li>
      </ul>
    </>
  )
}

export function ReferralSection() {
  const { data, error, isValidating, mutate } = useSWR<Referral>(REFERRAL_KEY)
  let body: ReactNode
  if (data) body = <Body data={data} />
  else if (error) body = <LoadError message={errorMessage(error, 'Не удалось загрузить реферальную программу.')} retrying={isValidating} onRetry={() => void mutate()} />
  else body = <ListSkeleton />
  return (
    <Card className="p-4 sm:p-6" data-testid="referral-section">
      <h2 className="text-base font-semibold text-slate-900">Пригласите друзей</h2>
      {body}
    </Card>
  )
}
