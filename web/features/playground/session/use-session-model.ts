// The session's model and what it can do: chat or draw (a model that draws opens in drawing mode),
// voice text (speech models), which attachments it reads. The Playground remembers the last one
// chosen in this browser; a comparison's columns do not.
import { useCallback, useRef, useState } from 'react'
import { attachKinds, bareModel, drawsByDefault, isImageCapable, isSpeechModel, type PlaygroundModel } from '../models/models'

/** The model the Playground opens with next time (the last one chosen in this browser). */
export const LAST_MODEL_KEY = 'playground-model'

export function rememberModel(id: string) {
  try {
    localStorage.setItem(LAST_MODEL_KEY, id)
  } catch {}
}

export function rememberedModel(): string | null {
  try {
    return localStorage.getItem(LAST_MODEL_KEY)
  } catch {
    return null
  }
}

export function useSessionModel({ initialModel, models, persist }: { initialModel: string; models: PlaygroundModel[]; persist: boolean }) {
  const [modelId, setModelId] = useState(initialModel)
  const [mode, setMode] = useState<'chat' | 'image'>('chat')
  const modelsRef = useRef(models)
  modelsRef.current = models

  const model: PlaygroundModel = models.find((m) => m.id === modelId) ?? bareModel(modelId)
  const imageCapable = isImageCapable(model)

  /** `id` as the model, in the mode it opens with (a loaded chat's model: not remembered as chosen). */
  const showModel = useCallback((id: string, next?: PlaygroundModel) => {
    const found = next ?? modelsRef.current.find((m) => m.id === id)
    setModelId(id)
    setMode(found && drawsByDefault(found) ? 'image' : 'chat')
  }, [])

  /**
   * Another model for what follows: the conversation stays (issue 29) — the next answers come from
   * the new model, each labelled with its own, and the saved chat follows the latest reply's model.
   */
  const selectModel = useCallback(
    (id: string, next?: PlaygroundModel) => {
      showModel(id, next)
      if (persist) rememberModel(id)
    },
    [persist, showModel],
  )

  return {
    modelId,
    model,
    mode,
    setMode,
    effectiveMode: imageCapable ? mode : ('chat' as const),
    imageCapable,
    speechMode: isSpeechModel(model),
    kinds: attachKinds(model),
    selectModel,
    showModel,
    setModelId,
  }
}
