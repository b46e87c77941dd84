import { t } from 'elysia'
import { INVOICE } from '../content/terms'
import { UNMATCHED_REASONS_RU } from './match'
import { INN_CONFIRMATIONS, INVOICE_STATUSES } from './schema'

export const TeamParams = t.Object({ id: t.String() })
export const InvoiceParams = t.Object({ id: t.String(), invoiceId: t.String() })
export const ActParams = t.Object({ id: t.String(), period: t.String({ description: 'Месяц акта, ГГГГ-ММ' }) })

export const CompanyBody = t.Object({
  inn: t.String({ error: 'ИНН — строка из 10 цифр (организация) или 12 цифр (ИП)', description: '10 цифр у организации, 12 — у ИП; контрольные цифры проверяются' }),
  kpp: t.Optional(t.Union([t.String(), t.Null()], { error: 'КПП — строка из 9 символов', description: 'Только у организаций (ИНН из 10 цифр)' })),
  name: t.String({ error: 'Укажите полное наименование компании', description: 'Полное наименование, как в ЕГРЮЛ/ЕГРИП' }),
  address: t.String({ error: 'Укажите юридический адрес' }),
  email: t.String({ error: 'Укажите e-mail для документов', description: 'Сюда отправляются счета (PDF во вложении)' }),
})

export const Company = t.Object(
  {
    inn: t.String(),
    kpp: t.Union([t.String(), t.Null()]),
    name: t.String(),
    address: t.String(),
    email: t.String(),
    updatedAt: t.String({ format: 'date-time' }),
    innConfirmation: t.UnionEnum([...INN_CONFIRMATIONS], {
      description:
        'not_needed — команда первой указала этот ИНН; pending — ИНН уже указан другой командой, счета ждут подтверждения администратора сервиса; confirmed — подтверждён; rejected — отклонён (счета выставлять нельзя)',
    }),
  },
  { title: 'Company' },
)

export const CompanyState = t.Object({ company: t.Union([Company, t.Null()]) }, { title: 'CompanyState' })

export const InvoiceAvailability = t.Object(
  {
    enabled: t.Boolean({ description: 'Реквизиты продавца заданы: оплата по счёту доступна' }),
    minRub: t.Number(),
    maxRub: t.Number(),
    taxRegime: t.Union([t.UnionEnum(['npd', 'usn', 'osn']), t.Null()], { description: 'Налоговый режим продавца: от него зависят НДС и закрывающие документы' }),
  },
  { title: 'InvoiceAvailability' },
)

export const CreateInvoiceBody = t.Object({
  amountRub: t.Any({ description: `Сумма в рублях, от ${INVOICE.minRub} до ${INVOICE.maxRub}, до копейки`, examples: [1200] }),
})

const InvoiceStatus = t.UnionEnum([...INVOICE_STATUSES], { description: 'issued — выставлен, paid — оплачен, cancelled — отменён' })
const date = t.String({ format: 'date-time' })
const nullableDate = t.Union([date, t.Null()])

export const Invoice = t.Object(
  {
    id: t.String(),
    number: t.String({ description: 'ГГГГ-НННННН: сквозная нумерация по году без пропусков' }),
    amountRub: t.Number(),
    status: InvoiceStatus,
    pdfUrl: t.String({ description: 'PDF счёта: владельцу, администраторам и бухгалтерам команды (Bearer)' }),
    issuedAt: date,
    paidAt: nullableDate,
    /** What was credited (an admin may assign a payment of another amount). */
    paidRub: t.Union([t.Number(), t.Null()]),
    cancelledAt: nullableDate,
    buyer: t.Object({ name: t.String(), inn: t.String() }),
    purpose: t.String({ description: 'Назначение платежа: указать в платёжном поручении без изменений' }),
  },
  { title: 'Invoice' },
)

export const AdminInvoice = t.Composite([Invoice, t.Object({ teamId: t.String(), teamName: t.String() })], { title: 'AdminInvoice' })

export const TeamDocument = t.Object(
  {
    kind: t.UnionEnum(['invoice', 'act']),
    id: t.String(),
    number: t.String(),
    period: t.Optional(t.String({ description: 'Акт: месяц ГГГГ-ММ (по московскому времени)' })),
    date: date,
    amountRub: t.Number({ description: 'Счёт: его сумма; акт: расходы команды за месяц, до копейки' }),
    pdfUrl: t.String(),
    status: t.Optional(InvoiceStatus),
    preliminary: t.Optional(t.Boolean({ description: 'Акт текущего месяца: сумма ещё изменится' })),
  },
  { title: 'TeamDocument' },
)

// ─── the admin's side ────────────────────────────────────────────────────────

export const StatementBody = t.Object({ file: t.File({ error: 'Приложите файл выписки в формате 1С (поле file)' }) }, { error: 'Приложите файл выписки в формате 1С (поле file)' })

const UnmatchedReason = t.UnionEnum(Object.keys(UNMATCHED_REASONS_RU) as [string, ...string[]])

export const CreditedPayment = t.Object(
  {
    invoice: t.String({ description: 'Номер оплаченного счёта' }),
    amountRub: t.Number({ description: 'Зачислено на баланс команды' }),
    invoiceId: t.String(),
    teamId: t.String(),
    teamName: t.String(),
    paymentId: t.Union([t.String(), t.Null()]),
  },
  { title: 'CreditedPayment' },
)

export const BankPayment = t.Object(
  {
    id: t.String(),
    number: t.Optional(t.String({ description: 'Номер счёта, найденный в назначении платежа' })),
    amountRub: t.Number(),
    reason: t.Union([UnmatchedReason, t.Null()], { description: 'Почему не сопоставлен: unknown_number, amount_differs, inn_differs, …' }),
    reasonText: t.Union([t.String(), t.Null()]),
    status: t.UnionEnum(['credited', 'unmatched', 'dismissed']),
    paymentNumber: t.String({ description: 'Номер платёжного поручения' }),
    date: t.String({ description: 'Дата поступления (или платёжного поручения), ГГГГ-ММ-ДД' }),
    payerName: t.String(),
    payerInn: t.String(),
    purpose: t.String(),
    importedAt: date,
  },
  { title: 'BankPayment' },
)

export const StatementResult = t.Object(
  {
    credited: t.Array(CreditedPayment),
    unmatched: t.Array(BankPayment, { description: 'Не сопоставлены: ждут решения администратора (в том числе загруженные ранее)' }),
    payments: t.Integer({ description: 'Поступлений на счёт продавца в файле' }),
    alreadyImported: t.Integer({ description: 'Из них загружены раньше: повторно не зачисляются' }),
  },
  { title: 'StatementResult' },
)

export const BankPaymentParams = t.Object({ id: t.String() })
export const BankPaymentsQuery = t.Object({
  status: t.Optional(t.UnionEnum(['unmatched', 'credited', 'dismissed'], { error: 'status: unmatched, credited или dismissed' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, error: 'limit — число от 1 до 500' })),
})
export const AssignBody = t.Object({
  invoice: t.String({ maxLength: 40, error: 'Укажите номер счёта, например 2026-000123', description: 'Номер счёта, например 2026-000123' }),
})

export const InnRegistration = t.Composite(
  [
    Company,
    t.Object({
      teamId: t.String(),
      teamName: t.String(),
      first: t.Boolean({ description: 'Команда первой указала этот ИНН' }),
      innReviewedAt: nullableDate,
    }),
  ],
  { title: 'InnRegistration' },
)

export const InnConflict = t.Object(
  { inn: t.String(), registrations: t.Array(InnRegistration, { description: 'Команды с этим ИНН: первая указавшая — первой' }) },
  { title: 'InnConflict' },
)

export const InnConflictsQuery = t.Object({
  status: t.Optional(t.UnionEnum(['pending', 'all'], { error: 'status: pending или all', description: 'pending (по умолчанию) — только ждущие решения' })),
})
export const InnReviewParams = t.Object({ teamId: t.String() })
export const InnReviewBody = t.Object({
  inn: t.String({
    maxLength: 20,
    error: 'Укажите ИНН, по которому принимается решение',
    description: 'ИНН, который видел администратор: если команда его сменила, решение не принимается',
  }),
})

export const AdminInvoiceParams = t.Object({ id: t.String() })
export const AdminInvoicesQuery = t.Object({
  status: t.Optional(t.UnionEnum([...INVOICE_STATUSES], { error: 'status: issued, paid или cancelled' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, error: 'limit — число от 1 до 500' })),
})
