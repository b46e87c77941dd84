import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { bearer } from '../auth/guard'
import type { AuthService } from '../auth/service'
import { AppError } from '../lib/errors'
import { envelope, errors, ok } from '../lib/http'
import { FileParams, FileQuery, Upload, UploadBody } from './model'
import { MAX_UPLOAD_BYTES, UPLOAD_MESSAGES, type UploadsService } from './service'
import { isPdf, PDF_MAGIC } from './sniff'

/** Multipart framing around the file: a body longer than this cannot hold an allowed file. */
const MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 64 * 1024

const REFUSED = Symbol('refused before reading')

const OPEN_ERRORS = {
  401: new AppError(401, 'Требуется авторизация'),
  403: new AppError(403, UPLOAD_MESSAGES.badLink),
  404: new AppError(404, UPLOAD_MESSAGES.notFound),
}

/** `inline; filename*=UTF-8''…` with an ASCII fallback, so Cyrillic names survive downloads. */
const disposition = (filename: string, kind: 'inline' | 'attachment' = 'inline') =>
  `${kind}; filename="${filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`

export function uploadsRoutes(uploads: UploadsService, auth: AuthService, guard: AuthGuard) {
  return new Elysia({ name: 'uploads', detail: { tags: ['Файлы'] } })
    .use(guard)
    .post('/api/upload', async ({ user, body, status }) => status(201, ok(await uploads.save(user.id, body.file))), {
      auth: true,
      // Refused before the body is read: nobody waits for (or makes us buffer) a 100 MB upload only to
      // hear "too large" or "sign in". Errors thrown while parsing would read as bad JSON, so the
      // parser leaves a mark and `transform` (before validation) answers.
      parse: ({ request }) => {
        if (!bearer(request.headers.get('authorization') ?? undefined)) return { [REFUSED]: 401 }
        if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return { [REFUSED]: 413 }
      },
      transform: ({ body }) => {
        const refused = (body as { [REFUSED]?: 401 | 413 } | undefined)?.[REFUSED]
        if (refused === 401) throw new AppError(401, 'Требуется авторизация')
        if (refused === 413) throw new AppError(413, UPLOAD_MESSAGES.tooLarge)
      },
      body: UploadBody,
      response: { 201: envelope(Upload), ...errors(400, 401, 413, 500) },
      detail: {
        summary: 'Загрузка вложения для Playground (multipart, поле file): изображения, PDF, TXT, JSON, CSV до 20 МБ',
        description: 'Тип определяется по содержимому файла, а не по имени. В ответе — подписанная ссылка, по которой файл доступен модели.',
        security: [{ bearerAuth: [] }],
      },
    })
    .get(
      '/api/uploads/:name',
      async ({ params, query, headers, accessJwt }) => {
        let viewerId: string | null = null
        if (query.sig === undefined && query.exp === undefined) {
          const token = bearer(headers.authorization)
          const payload = token ? await accessJwt.verify(token) : false
          viewerId = payload && typeof payload.sub === 'string' ? ((await auth.userForToken(payload.sub))?.id ?? null) : null
        }
        const found = await uploads.open(params.name, { exp: query.exp, sig: query.sig, viewerId })
        if (found.error !== null) throw OPEN_ERRORS[found.error]
        if (!(await found.file.exists())) throw OPEN_ERRORS[404]
        const { row } = found
        const isText = row.mimetype.startsWith('text/') || row.mimetype === 'application/json'
        // Only a file that starts like a PDF is served as one (rows sniffed before that rule included):
        // anything else labelled so goes out as bytes to download.
        const fakePdf = row.mimetype === 'application/pdf' && !isPdf(new Uint8Array(await found.file.slice(0, PDF_MAGIC.length).arrayBuffer()))
        return new Response(found.file, {
          headers: {
            'content-type': fakePdf ? 'application/octet-stream' : isText ? `${row.mimetype}; charset=utf-8` : row.mimetype,
            'content-disposition': disposition(row.filename, fakePdf ? 'attachment' : 'inline'),
            'cache-control': 'private, max-age=3600',
            // Customer files are data, never a page of ours: no scripts, even when opened directly (PDFs included).
            'content-security-policy': "default-src 'none'; img-src 'self'; sandbox",
          },
        })
      },
      {
        params: FileParams,
        query: FileQuery,
        response: { 200: t.Any({ description: 'Содержимое файла' }), ...errors(401, 403, 404) },
        detail: {
          summary: 'Вложение: владельцу (Bearer) или по подписанной ссылке (exp, sig) — например, провайдеру модели',
          security: [{ bearerAuth: [] }, {}],
        },
      },
    )
}
