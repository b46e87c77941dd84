import { Link } from 'wouter'
import { ArrowLeftIcon } from '../../components/icons'

/** Footer of the password-recovery screens. */
export function BackToLogin() {
  return (
    <p>
      <Link href="/login" className="inline-flex items-center gap-1.5 text-slate-500 hover:text-slate-800">
        <ArrowLeftIcon size={14} />
        Вернуться ко входу
      </Link>
    </p>
  )
}
