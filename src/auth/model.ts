import { t } from 'elysia'

// Every field required message of the spec (section 5): wrong types and missing fields alike.
const FILL_ALL = 'Заполните все поля'
const str = (description: string) => t.String({ error: FILL_ALL, description })

export const Credentials = t.Object({ email: str('E-mail'), password: str('Пароль') }, { error: FILL_ALL })

/** Registration: the credentials and, optionally, the code of the referral link the newcomer came by (issue 37). */
export const RegisterBody = t.Object(
  {
    email: str('E-mail'),
    password: str('Пароль'),
    referralCode: t.Optional(t.Any({ description: 'Код приглашения из ссылки /r/{code}; без него — из cookie, которую ставит эта ссылка. Неизвестный код не мешает регистрации' })),
  },
  { error: FILL_ALL },
)

export const RefreshBody = t.Object({ refreshToken: t.String({ error: 'Передайте refreshToken', description: 'Refresh-токен' }) }, { error: 'Передайте refreshToken' })

/** Either credential names the session to end: the refresh token here, the access token in the header. */
export const LogoutBody = t.Object(
  { refreshToken: t.Optional(t.String({ error: 'Передайте refreshToken', description: 'Refresh-токен сессии' })) },
  { error: 'Передайте refreshToken' },
)

const VERIFY_INVALID = 'Ссылка для подтверждения e-mail недействительна или устарела'
export const VerifyBody = t.Object({ token: t.String({ error: VERIFY_INVALID, description: 'Токен из письма' }) }, { error: VERIFY_INVALID })

export const Verified = t.Object({
  message: t.String(),
  bonusCredited: t.Boolean({ description: 'Приветственный бонус начислен этим подтверждением' }),
})

export const ForgotBody = t.Object({ email: t.String({ error: 'Введите email' }) }, { error: 'Введите email' })

export const ResetBody = t.Object({ token: str('Токен из письма'), password: str('Новый пароль') }, { error: FILL_ALL })

export const PublicUser = t.Object(
  {
    id: t.String(),
    email: t.String(),
    role: t.UnionEnum(['user', 'admin']),
    balance: t.Number({ description: 'Баланс в рублях' }),
    createdAt: t.String({ format: 'date-time' }),
    emailVerified: t.Boolean({ description: 'Адрес подтверждён по ссылке из письма' }),
  },
  { title: 'User' },
)

export const TokenPair = t.Object({ accessToken: t.String(), refreshToken: t.String() }, { title: 'TokenPair' })

export const AuthResult = t.Object({ user: PublicUser, accessToken: t.String(), refreshToken: t.String() }, { title: 'AuthResult' })

export const Message = t.Object({ message: t.String() })

export const ChangePasswordBody = t.Object({ currentPassword: str('Текущий пароль'), newPassword: str('Новый пароль (не короче 8 символов)') }, { error: FILL_ALL })

export const DeleteAccountBody = t.Object(
  { email: t.String({ error: 'Введите e-mail аккаунта, чтобы подтвердить удаление', description: 'E-mail аккаунта — подтверждение удаления' }) },
  { error: 'Введите e-mail аккаунта, чтобы подтвердить удаление' },
)

export const Session = t.Object(
  {
    id: t.String(),
    createdAt: t.String({ format: 'date-time', description: 'Вход выполнен' }),
    lastUsedAt: t.String({ format: 'date-time', description: 'Последнее обновление токенов сессии' }),
    expiresAt: t.String({ format: 'date-time' }),
    current: t.Boolean({ description: 'Сессия, из которой сделан запрос («это устройство»)' }),
    device: t.Union([t.String(), t.Null()], { description: 'Браузер и система по User-Agent входа («Chrome, Windows»); null — неизвестно (сессии до этой версии)' }),
    ip: t.Union([t.String(), t.Null()], { description: 'IP-адрес, с которого выполнен вход' }),
  },
  { title: 'Session' },
)
