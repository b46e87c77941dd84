// models [search] [--provider P]: the public catalogue with ruble prices (spec's display rule).
import type { Command } from 'commander'
import type { Model } from '../lib/api'
import { context, print, printJson } from '../lib/context'
import { integer, PER_INPUT_IMAGE, PER_MILLION, PER_MILLION_TOKENS, PER_OUTPUT_IMAGE, price, table } from '../lib/format'

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
      // Tokens per 1M; pictures by direction: sent to the model (pricing.image) or drawn by it (image_output).
      const input = list.some((m) => Number(m.pricing.image) !== 0)
      const output = list.some((m) => Number(m.pricing.image_output ?? 0) !== 0)
      const picture = (value: string | undefined) => (!value || Number(value) === 0 ? '—' : priceCell(value))
      const headers = ['Модель', 'Ввод', 'Вывод', ...(input ? ['Входное изобр.'] : []), ...(output ? ['Сгенерир. изобр.'] : []), 'Контекст']
      print(
        table(
          headers,
          list.map((m) => [
            m.id,
            priceCell(m.pricing.prompt, PER_MILLION),
            priceCell(m.pricing.completion, PER_MILLION),
            ...(input ? [picture(m.pricing.image)] : []),
            ...(output ? [picture(m.pricing.image_output)] : []),
            m.context_length ? integer(m.context_length) : '—',
          ]),
          headers.map((_, i) => i).slice(1), // every column but the model's is a number
        ),
      )
      const pictures = [input && `«Входное изобр.» — ${PER_INPUT_IMAGE}`, output && `«Сгенерир. изобр.» — ${PER_OUTPUT_IMAGE}`].filter(Boolean)
      print(`\nМоделей: ${list.length}. Ввод и вывод — в рублях ${PER_MILLION_TOKENS}${pictures.length ? `; ${pictures.join(', ')}` : ''}; «по запросу» — цена зависит от запроса.`)
    })
}
