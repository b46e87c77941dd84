// One error vocabulary for /api. The error plugin in http.ts turns these into `{success:false, error}`.
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new AppError(400, message)
export const unauthorized = (message = 'Требуется авторизация') => new AppError(401, message)
export const forbidden = (message = 'Недостаточно прав') => new AppError(403, message)
export const notFound = (message = 'Не найдено') => new AppError(404, message)
export const conflict = (message: string) => new AppError(409, message)
export const tooManyRequests = (retryAfterSec: number) =>
  new AppError(429, `Слишком много попыток. Повторите через ${formatWait(retryAfterSec)}`, {
    'retry-after': String(retryAfterSec),
  })

function formatWait(sec: number): string {
  if (sec < 60) return `${sec} сек.`
  return `${Math.ceil(sec / 60)} мин.`
}

/** True for SQLite's (and, by code name, PostgreSQL's) unique-constraint violation. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string; cause?: unknown }
  if (err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || err?.code === '23505') return true
  if (typeof err?.message === 'string' && err.message.includes('UNIQUE constraint failed')) return true
  return err?.cause ? isUniqueViolation(err.cause) : false
}
