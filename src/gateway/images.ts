// POST /v1/images: OpenAI's images.generate shape, implemented through the router's image-output
// chat (modalities ["image","text"]). One hold for the whole request; all or nothing.
import { dec, mul } from '../lib/decimal'
import { OpenAIError } from '../lib/errors'
import { canOutputImages } from '../catalog/service'
import type { ChatService, GatewayDeps } from './chat'
import type { Caller } from './callers'
import type { ImageStore } from './files'

export type ImagesBody = {
  model: string
  prompt: string
  n?: number
  size?: string
  quality?: string
  response_format?: 'url' | 'b64_json'
}

/** Completion tokens an image output may cost (the router counts ~1290 image tokens per picture). */
const IMAGE_OUTPUT_TOKENS = 1_500
const ASPECTS: Record<string, string> = {
  '1024x1024': '1:1', '512x512': '1:1', '256x256': '1:1', '1792x1024': '16:9', '1024x1792': '9:16',
  '1536x1024': '3:2', '1024x1536': '2:3', '1344x768': '16:9', '768x1344': '9:16',
}

export function imagesService(deps: GatewayDeps, chat: ChatService, store: ImageStore) {
  return {
    async generate(caller: Caller, body: ImagesBody, clientSignal: AbortSignal) {
      const model = deps.catalog.get(body.model)
      if (model && !canOutputImages(model))
        throw new OpenAIError(400, `Модель ${body.model} не генерирует изображения`, 'invalid_request_error', 'model_not_image_capable', { param: 'model' })
      const n = body.n ?? 1
      const aspect = ASPECTS[body.size ?? '1024x1024'] ?? '1:1'
      const messages = [{ role: 'user', content: body.prompt }]
      // Hold n pictures' worth up front: per picture the prompt, the output tokens and the image price.
      const perImageUsd = model ? mul(dec(IMAGE_OUTPUT_TOKENS), dec(model.completionUsd)) : dec(0)
      const p = await chat.prepare(caller, { model: body.model, messages }, { endpoint: 'images', requested: 0, extraUsd: mul(perImageUsd, dec(n)) })
      const results: Array<{ url?: string; b64_json?: string; revised_prompt?: string }> = []
      let costUsd: number | undefined = 0 // undefined once any answer lacks a cost: then bill by tokens
      let tokens = { prompt: 0, completion: 0 }
      let upstreamId: string | null = null
      try {
        for (let i = 0; i < n; i++) {
          const res = await deps.upstream.chat(
            { model: model!.id, messages, modalities: ['image', 'text'], image_config: { aspect_ratio: aspect }, stream: false, user: caller.userId.slice(0, 8) },
            AbortSignal.any([clientSignal, AbortSignal.timeout(deps.config.upstreamTimeoutMs)]),
          )
          const json = (await res.json().catch(() => null)) as {
            id?: string
            error?: { message?: string }
            choices?: Array<{ error?: { message?: string }; message?: { content?: string; images?: Array<{ image_url?: { url?: string } }> } }>
            usage?: { cost?: number; prompt_tokens?: number; completion_tokens?: number }
          } | null
          const err = !res.ok ? json?.error : (json?.error ?? json?.choices?.[0]?.error)
          if (!json || err) throw new OpenAIError(res.ok ? 502 : res.status === 402 ? 503 : 502, 'Не удалось сгенерировать изображение: провайдер вернул ошибку.', 'server_error', 'upstream_error', { shouldRetry: false })
          upstreamId = json.id ?? upstreamId
          costUsd = costUsd !== undefined && typeof json.usage?.cost === 'number' ? costUsd + json.usage.cost : undefined
          tokens = { prompt: tokens.prompt + (json.usage?.prompt_tokens ?? 0), completion: tokens.completion + (json.usage?.completion_tokens ?? 0) }
          const urls = (json.choices?.[0]?.message?.images ?? []).map((im) => im.image_url?.url).filter((u): u is string => !!u)
          if (urls.length === 0) throw new OpenAIError(502, 'Модель не вернула изображение.', 'server_error', 'no_image', { shouldRetry: false })
          for (const url of urls) {
            const saved = await store.saveDataUrl(url)
            if (!saved) continue
            const revised = json.choices?.[0]?.message?.content || undefined
            results.push(body.response_format === 'b64_json' ? { b64_json: saved.b64, revised_prompt: revised } : { url: store.signedUrl(saved.name), revised_prompt: revised })
          }
        }
        if (results.length === 0) throw new OpenAIError(502, 'Модель не вернула изображение.', 'server_error', 'no_image', { shouldRetry: false })
      } catch (e) {
        await chat.release(p, (e as Error).message, upstreamId, clientSignal.aborted ? 'cancelled' : 'error')
        if (e instanceof OpenAIError) throw e
        throw new OpenAIError(502, 'Не удалось сгенерировать изображение. Попробуйте позже.', 'server_error', 'upstream_error', { shouldRetry: false })
      }
      const usage = { cost: costUsd, prompt_tokens: tokens.prompt, completion_tokens: tokens.completion, total_tokens: tokens.prompt + tokens.completion }
      const charged = await chat.settle(p, usage, upstreamId)
      return { created: Math.floor(Date.now() / 1000), data: results, usage: chat.publicUsage(usage, charged) }
    },
  }
}
