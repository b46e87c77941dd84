import { PublicPlaceholderPage } from '../../components/public-placeholder-page'

export function RefundPolicyPage() {
  return <PublicPlaceholderPage title="Политика возврата средств" lead="Условия и порядок возврата неиспользованного остатка баланса." />
}
