import { Input } from '../../components/input'

/** The e-mail field of the account forms (login, register, forgot password). */
export function EmailField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <Input
      label="Email"
      name="email"
      type="email"
      autoComplete="email"
      inputMode="email"
      placeholder="you@example.com"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      autoFocus
    />
  )
}
