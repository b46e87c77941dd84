import { t } from 'elysia'

// The session routes take any JSON in each field, so a wrong value gets the service's Russian message.
const request = {
  callbackUrl: t.Any({ description: 'callback_url из адреса страницы: https:// (http:// — только localhost, 127.0.0.1, [::1])', examples: ['https://app.example.ru/callback'] }),
  codeChallenge: t.Any({ description: 'code_challenge: base64url(SHA-256(code_verifier)), 43–128 символов' }),
  codeChallengeMethod: t.Optional(t.Any({ description: 'Только S256', examples: ['S256'] })),
}
const REQUEST_ERROR = 'Передайте callbackUrl, codeChallenge и codeChallengeMethod'

export const CheckBody = t.Object(request, { error: REQUEST_ERROR })

export const AuthorizeBody = t.Object(
  { ...request, budgetRub: t.Optional(t.Any({ description: 'Лимит ключа приложения в месяц, рубли; null — без лимита', examples: [500, null] })) },
  { error: REQUEST_ERROR },
)

export const CheckResult = t.Object({
  origin: t.String({ description: 'Адрес приложения (origin из callback_url), который показывают пользователю' }),
  declineUrl: t.String({ description: 'Куда вернуть браузер при отказе: callback_url?error=access_denied' }),
})

export const AuthorizeResult = t.Object({ redirectUrl: t.String({ description: 'callback_url с одноразовым code — туда переходит браузер' }) })

// Any JSON in each field: a wrong value gets the OpenAI-shaped refusal of the service.
export const ExchangeBody = t.Object(
  {
    code: t.Optional(t.Any({ description: 'code из callback_url' })),
    code_verifier: t.Optional(t.Any({ description: 'Секрет приложения, из которого получен code_challenge (43–128 символов)' })),
    code_challenge_method: t.Optional(t.Any({ description: 'Только S256 (необязательно)', examples: ['S256'] })),
  },
  { error: 'Тело запроса должно быть JSON-объектом с полями code и code_verifier' },
)

export const ExchangeResult = t.Object(
  {
    key: t.String({ description: 'API-ключ sk-gw-… пользователя для этого приложения; показывается один раз' }),
    user_id: t.String({ description: 'id пользователя, одобрившего доступ' }),
  },
  { title: 'AuthKey' },
)
