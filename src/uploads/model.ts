import { t } from 'elysia'
import { UPLOAD_MESSAGES } from './service'

export const Upload = t.Object(
  {
    id: t.String(),
    url: t.String({ description: 'Подписанная ссылка на файл (действует 7 дней; без заголовка Authorization)' }),
    filename: t.String(),
    mimetype: t.String({ description: 'Тип, определённый по содержимому файла' }),
    size: t.Integer({ description: 'Размер в байтах' }),
  },
  { title: 'Upload' },
)

export const UploadBody = t.Object({ file: t.File({ error: UPLOAD_MESSAGES.noFile }) }, { error: UPLOAD_MESSAGES.noFile })

export const FileParams = t.Object({ name: t.String() })
export const FileQuery = t.Object({ exp: t.Optional(t.String()), sig: t.Optional(t.String()) })
