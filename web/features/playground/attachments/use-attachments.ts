// The composer's attachments: each file checked against what the model reads, uploaded at once (a
// picture previewed meanwhile) and removed on request; another model drops what it cannot read.
import { useCallback, useState } from 'react'
import { ApiError } from '../../../lib/api'
import { toast } from '../../../stores/toasts'
import { UPLOAD_ERROR, uploadFile } from '../history/chats-api'
import { localKey } from '../local-key'
import type { AttachKinds, Attachment } from '../types'
import { checkFile, fits, MAX_ATTACHMENTS, rememberLocalFile } from './attachments'

export function useAttachments(kinds: AttachKinds) {
  const [attachments, setAttachments] = useState<Attachment[]>([])

  function attach(files: File[]) {
    const room = MAX_ATTACHMENTS - attachments.length
    if (files.length > room) toast.error(`Можно прикрепить не более ${MAX_ATTACHMENTS} файлов к сообщению`)
    for (const file of files.slice(0, Math.max(0, room))) {
      const problem = checkFile(file, kinds)
      if (problem) {
        toast.error(problem)
        continue
      }
      const key = localKey()
      const preview = file.type.startsWith('image/') ? URL.createObjectURL(file) : undefined
      setAttachments((list) => [...list, { key, name: file.name, size: file.size, status: 'uploading', preview }])
      uploadFile(file, file.name)
        .then((upload) => {
          rememberLocalFile(upload, file)
          setAttachments((list) => list.map((a) => (a.key === key ? { ...a, status: 'ready', upload } : a)))
        })
        .catch((error: unknown) => {
          const message = error instanceof ApiError && error.message ? error.message : UPLOAD_ERROR
          toast.error(message)
          setAttachments((list) => list.map((a) => (a.key === key ? { ...a, status: 'failed', error: message } : a)))
        })
    }
  }

  function remove(key: string) {
    setAttachments((list) => {
      const gone = list.find((a) => a.key === key)
      if (gone?.preview) URL.revokeObjectURL(gone.preview)
      return list.filter((a) => a.key !== key)
    })
  }

  /** Another model: what it cannot read goes (one still uploading is kept: the server decides). */
  const keepFitting = useCallback((next: AttachKinds) => setAttachments((list) => list.filter((a) => !a.upload || fits(a.upload.mimetype, next))), [])

  return { attachments, setAttachments, attach, remove, keepFitting }
}
