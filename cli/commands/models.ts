// models [search] [--provider P]: the public catalogue with ruble prices (spec's display rule).
// Token prices per 1M tokens; voice models in their own units (a minute of audio, 1M characters),
// as the web catalogue shows them (src/content/models/catalog.ts priceLines), in a table of their own.
import type { Command } from 'commander'
import { isEmbeddingModel, isFreeModel, isSpeechModel, isTranscriptionModel, MODEL_TYPES, modelType, priceLines, priceLineText } from '../../src/content/models/catalog'
import type { Model } from '../lib/api'
import { context, print, printJson } from '../lib/context'
import { integer, PER_INPUT_IMAGE, PER_MILLION, PER_MILLION_TOKENS, PER_OUTPUT_IMAGE, plainSpaces, price, table } from '../lib/format'

export const providerOf = (id: string) => (id.includes('/') ? id.slice(0, id.indexOf('/')) : id)

/** Every word of the query must occur in the id, name or description (same as the web catalogue). */
export function matches(model: Model, query: string): boolean {
  const hay = `${model.id}\n${model.name}\n${model.description ?? ''}`.toLowerCase()
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w))
}

/** "0" is free and a negative price ("-1") varies per request; the rest per the price rule. */
export function priceCell(value: string, scale = 1): string {
  const n = Number(value)
  if (!Number.isFinite(n) || n === 0) return 'бесплатно'
  if (n < 0) return 'по запросу'
  return price(n * scale)
}

const isVoice = (m: Model) => isSpeechModel(m) || isTranscriptionModel(m)

/**
 * The token price cells of a model. A model that costs money but not per token (FLUX is priced by
 * the picture it draws) shows '—', never «бесплатно»; an embedding model produces no output tokens.
 */
export function tokenCells(m: Model): [input: string, output: string] {
  const free = (v: string) => Number(v) === 0
  if (free(m.pricing.prompt) && free(m.pricing.completion) && !isFreeModel(m.pricing)) return ['—', '—']
  return [priceCell(m.pricing.prompt, PER_MILLION), isEmbeddingModel(m) ? '—' : priceCell(m.pricing.completion, PER_MILLION)]
}

/** A voice model's prices with their units, as the web catalogue says them: 'Аудио: 0,7020 ₽ за минуту'. */
export const voicePrice = (m: Model) => plainSpaces(priceLines(m).map(priceLineText).join('; '))

function tokenTable(list: Model[]): string {
  // Tokens per 1M; pictures by direction: sent to the model (pricing.image) or drawn by it (image_output).
  const input = list.some((m) => Number(m.pricing.image) !== 0)
  const output = list.some((m) => Number(m.pricing.image_output ?? 0) !== 0)
  const request = list.some((m) => Number(m.pricing.request) > 0)
  const extra = (value: string | undefined) => (!value || Number(value) === 0 ? '—' : priceCell(value))
  const headers = ['Модель', 'Ввод', 'Вывод', ...(input ? ['Входное изобр.'] : []), ...(output ? ['Сгенерир. изобр.'] : []), ...(request ? ['За запрос'] : []), 'Контекст']
  const rows = list.map((m) => [
    m.id,
    ...tokenCells(m),
    ...(input ? [extra(m.pricing.image)] : []),
    ...(output ? [extra(m.pricing.image_output)] : []),
    ...(request ? [extra(m.pricing.request)] : []),
    m.context_length ? integer(m.context_length) : '—',
  ])
  const units = [
    `Ввод и вывод — в рублях ${PER_MILLION_TOKENS}`,
    input && `«Входное изобр.» — ${PER_INPUT_IMAGE}`,
    output && `«Сгенерир. изобр.» — ${PER_OUTPUT_IMAGE}`,
    request && '«За запрос» — за каждый запрос',
  ].filter(Boolean)
  // every column but the model's is a number
  return `${table(headers, rows, headers.map((_, i) => i).slice(1))}\n\n${units.join('; ')}; «по запросу» — цена зависит от запроса.`
}

function voiceTable(list: Model[]): string {
  const label = (m: Model) => MODEL_TYPES.find((t) => t.type === modelType(m))?.label ?? ''
  return `Голосовые модели (POST /v1/audio/*), цены в своих единицах:\n${table(
    ['Модель', 'Тип', 'Цена'],
    list.map((m) => [m.id, label(m), voicePrice(m)]),
  )}`
}

export function modelsCommand(program: Command) {
  program
    .command('models')
    .description('каталог моделей с ценами в рублях (наценка включена)')
    .argument('[поиск...]', 'слова для поиска по названию и описанию')
    .option('--provider <P>', 'только модели провайдера, например openai или anthropic')
    .option('--json', 'вывести JSON')
    .action(async (words: string[], opts: { provider?: string; json?: boolean }, cmd: Command) => {
      const { data } = await context(cmd).api.v1<{ data: Model[] }>('/models')
      const provider = opts.provider?.toLowerCase()
      const list = data.filter((m) => matches(m, words.join(' ')) && (!provider || providerOf(m.id).toLowerCase() === provider))
      if (opts.json) return printJson(list)
      if (list.length === 0) return print('Ничего не найдено. Все модели: gw models')
      const voice = list.filter(isVoice)
      const others = list.filter((m) => !isVoice(m))
      print([others.length > 0 && tokenTable(others), voice.length > 0 && voiceTable(voice), `Моделей: ${list.length}.`].filter(Boolean).join('\n\n'))
    })
}
