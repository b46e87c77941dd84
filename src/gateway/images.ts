// POST /v1/images: OpenAI's images.generate shape, implemented through the router's image-output
// chat (modalities ["image","text"]), each call on the pipeline's send path. One hold for the whole
// request; all or nothing.

import type { ModelRow } from '../catalog/schema'
import { add, type Dec, dec, toDecimalString } from '../lib/decimal'
import { OpenAIError } from '../lib/errors'
import type { Caller } from './callers'
import { chatWire } from './chat'
import { estimatePrompt } from './estimate'
import type { ImageStore } from './files'
import type { Pipeline } from './pipeline'
import { type ChatShape, candidatesFor } from './shape'
import type { GatewayDeps } from './types'
import { chargedUsage } from './wire'

export type ImagesBody = {
  model: string
  prompt: string
  n?: number
  size?: string
  quality?: string
  response_format?: 'url' | 'b64_json'
}

const ASPECTS: Record<string, string> = {
  '1024x1024': '1:1',
  '512x512': '1:1',
  '256x256': '1:1',
  '1792x1024': '16:9',
  '1024x1792': '9:16',
  '1536x1024': '3:2',
  '1024x1536': '2:3',
  '1344x768': '16:9',
  '768x1344': '9:16',
}

/**
 * One picture per call, `n` calls: the prompt, the picture and any text the model writes, n times
 * over. The model is resolved by the same reader as every protocol's; nothing else of the caller's
 * body is forwarded (generate() builds the router's body), so there is nothing else to hold.
 */
export function imagesShape(body: ImagesBody, get: (id: string) => ModelRow | undefined): ChatShape {
  const candidates = candidatesFor([body.model], get, 'images')
  return {
    modelId: body.model,
    patch: {},
    shape: {
      candidates,
      prompt: estimatePrompt([{ content: body.prompt }]),
      choices: 1,
      wantsImages: true,
      webResults: 0,
      requestedTokens: undefined,
      calls: body.n ?? 1,
      canCapPrice: true,
    },
  }
}

export function imagesService(deps: GatewayDeps, pipe: Pipeline, store: ImageStore) {
  return {
    async generate(caller: Caller, body: ImagesBody, clientSignal: AbortSignal) {
      const n = body.n ?? 1
      const aspect = ASPECTS[body.size ?? '1024x1024'] ?? '1:1'
      const messages = [{ role: 'user', content: body.prompt }]
      const cs = imagesShape(body, deps.catalog.get)
      const p = await pipe.prepare(caller, cs, { endpoint: 'images', stream: false })
      // One router body for every call: with our end-user id (hashed, as on every route) and caps.
      const call = pipe.body(p, { model: body.model, messages, modalities: ['image', 'text'], image_config: { aspect_ratio: aspect } }, 'chat')
      const results: Array<{ url?: string; b64_json?: string; revised_prompt?: string }> = []
      // Summed exactly (0.03 + 0.03 + 0.03 in floats is 0.09000000000000001, a micro-ruble too many);
      // undefined once any answer lacks a cost: then bill by tokens.
      let costUsd: Dec | undefined = dec(0)
      let tokens = { prompt: 0, completion: 0 }
      let pictures = 0
      let upstreamId: string | null = null
      try {
        for (let i = 0; i < n; i++) {
          // The router's failures before an answer are mapped (and retried) as on every route.
          const sent = await pipe.post(p, chatWire.path, call, clientSignal)
          const json = (await sent.res
            .json()
            .catch(() => null)
            .finally(sent.done)) as {
            id?: string
            error?: { message?: string }
            choices?: Array<{ error?: { message?: string }; message?: { content?: string; images?: Array<{ image_url?: { url?: string } }> } }>
            usage?: { cost?: number; prompt_tokens?: number; completion_tokens?: number }
          } | null
          if (!json || json.error || json.choices?.[0]?.error)
            throw new OpenAIError(502, 'Не удалось сгенерировать изображение: провайдер вернул ошибку.', 'server_error', 'upstream_error', { shouldRetry: false })
          upstreamId = json.id ?? upstreamId
          const cost = json.usage?.cost
          costUsd = costUsd !== undefined && typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? add(costUsd, dec(cost)) : undefined
          tokens = { prompt: tokens.prompt + (json.usage?.prompt_tokens ?? 0), completion: tokens.completion + (json.usage?.completion_tokens ?? 0) }
          const urls = (json.choices?.[0]?.message?.images ?? []).map((im) => im.image_url?.url).filter((u): u is string => !!u)
          if (urls.length === 0) throw new OpenAIError(502, 'Модель не вернула изображение.', 'server_error', 'no_image', { shouldRetry: false })
          pictures += urls.length
          for (const url of urls) {
            const saved = await store.saveDataUrl(url, caller.userId)
            if (!saved) continue
            const revised = json.choices?.[0]?.message?.content || undefined
            results.push(body.response_format === 'b64_json' ? { b64_json: saved.b64, revised_prompt: revised } : { url: store.signedUrl(saved.name), revised_prompt: revised })
          }
        }
        if (results.length === 0) throw new OpenAIError(502, 'Модель не вернула изображение.', 'server_error', 'no_image', { shouldRetry: false })
      } catch (e) {
        await pipe.release(p, (e as Error).message, upstreamId, clientSignal.aborted ? 'cancelled' : 'error')
        if (e instanceof OpenAIError) throw e
        throw new OpenAIError(502, 'Не удалось сгенерировать изображение. Попробуйте позже.', 'server_error', 'upstream_error', { shouldRetry: false })
      }
      const usage = {
        cost: costUsd && Number(toDecimalString(costUsd, 15)),
        prompt_tokens: tokens.prompt,
        completion_tokens: tokens.completion,
        total_tokens: tokens.prompt + tokens.completion,
        pictures,
      }
      const charged = await pipe.settle(p, usage, upstreamId)
      const billed = chargedUsage(usage, charged)
      // OpenAI's ImagesResponse usage: input (the prompt's text) and output tokens, plus our charge.
      return {
        created: Math.floor(Date.now() / 1000),
        data: results,
        usage: {
          input_tokens: tokens.prompt,
          output_tokens: tokens.completion,
          total_tokens: tokens.prompt + tokens.completion,
          input_tokens_details: { text_tokens: tokens.prompt, image_tokens: 0 },
          cost: billed.cost,
          cost_rub: billed.cost_rub,
        },
      }
    },
  }
}
