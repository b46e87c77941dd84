// A yes/no question in the terminal before something that cannot be undone. Without a terminal
// there is nobody to ask: the command needs --yes instead of guessing.
import { createInterface } from 'node:readline/promises'
import { CliError, EXIT } from './errors'

const YES = new Set(['y', 'yes', 'д', 'да'])

export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw new CliError('Нужно подтверждение, а терминала нет', 'добавьте --yes, чтобы не спрашивать', EXIT.usage)
  // The question goes to stderr: stdout stays the command's output.
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return YES.has((await rl.question(`${question} [y/N] `)).trim().toLowerCase())
  } finally {
    rl.close()
  }
}
