// The sign-in prompt: e-mail, then the password typed without echo (masked).
import { Box, render, Text } from 'ink'
import TextInput from 'ink-text-input'
import { useState } from 'react'
import { CliError, EXIT } from '../lib/errors'

export type Credentials = { email: string; password: string }

export function LoginForm({ initialEmail = '', onSubmit }: { initialEmail?: string; onSubmit: (c: Credentials) => void }) {
  const [step, setStep] = useState<'email' | 'password' | 'done'>(initialEmail ? 'password' : 'email')
  const [email, setEmail] = useState(initialEmail)
  const [password, setPassword] = useState('')
  // A pasted address arrives in one piece with its Enter ('ivan@example.ru\r'), which the input
  // would keep as text: the line break submits it, as the Enter key does.
  function typeEmail(value: string) {
    const [line = '', ...rest] = value.split(/\r\n|\r|\n/)
    setEmail(line)
    if (rest.length > 0 && line.trim()) setStep('password')
  }
  return (
    <Box flexDirection="column">
      <Box>
        <Text>E-mail: </Text>
        {step === 'email' ? <TextInput value={email} onChange={typeEmail} onSubmit={() => email.trim() && setStep('password')} /> : <Text>{email}</Text>}
      </Box>
      {step !== 'email' && (
        <Box>
          <Text>Пароль: </Text>
          <TextInput
            value={password}
            onChange={setPassword}
            mask="*"
            focus={step === 'password'}
            showCursor={step === 'password'}
            onSubmit={() => {
              if (!password) return
              setStep('done')
              onSubmit({ email: email.trim(), password })
            }}
          />
        </Box>
      )}
    </Box>
  )
}

/** Asks in the terminal; Ctrl+C cancels with exit code 130 like any interrupted command. */
export async function promptCredentials(initialEmail?: string): Promise<Credentials> {
  let result: Credentials | undefined
  const app = render(
    <LoginForm
      initialEmail={initialEmail}
      onSubmit={(c) => {
        result = c
        app.unmount()
      }}
    />,
  )
  await app.waitUntilExit()
  if (!result) throw new CliError('Вход отменён', undefined, EXIT.interrupted)
  return result
}
