import { integer, table, text } from '../db/dialect'

/**
 * The upstream catalogue as last synced. Prices stay in the upstream's USD decimal strings;
 * ruble prices are derived on read from the current rate, so a rate change needs no re-sync.
 */
export const models = table('models', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  contextLength: integer('context_length').notNull().default(0),
  /** USD per token / per image / per request, as the upstream wrote them; "-1" = variable. */
  promptUsd: text('prompt_usd').notNull(),
  completionUsd: text('completion_usd').notNull(),
  imageUsd: text('image_usd').notNull().default('0'),
  requestUsd: text('request_usd').notNull().default('0'),
  /** Per generated picture (pricing.image_output); '0' when the model prices output images otherwise. */
  imageOutputUsd: text('image_output_usd').notNull().default('0'),
  /** Per web-search result or search (pricing.web_search); '0' = the router's own per-result price. */
  webSearchUsd: text('web_search_usd').notNull().default('0'),
  /** Per reasoning token (pricing.internal_reasoning), when it differs from the completion price. */
  reasoningUsd: text('reasoning_usd').notNull().default('0'),
  /** Per audio input token (pricing.audio). */
  audioUsd: text('audio_usd').notNull().default('0'),
  /** Per prompt token written to the provider's cache (pricing.input_cache_write). */
  cacheWriteUsd: text('cache_write_usd').notNull().default('0'),
  inputModalities: text('input_modalities', { mode: 'json' }).$type<string[]>().notNull(),
  outputModalities: text('output_modalities', { mode: 'json' }).$type<string[]>().notNull(),
  /** Speech models: the voices the router lists for them (supported_voices); null when it lists none. */
  supportedVoices: text('supported_voices', { mode: 'json' }).$type<string[]>(),
  maxCompletionTokens: integer('max_completion_tokens'),
  /** Upstream's creation time (seconds), for "newest" ordering. */
  created: integer('created').notNull().default(0),
  /** False once the upstream stops listing the model; kept so old usage rows still resolve. */
  isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
  syncedAt: integer('synced_at', { mode: 'timestamp_ms' }).notNull(),
})

/** Last good exchange rate per currency (RUB per 1 unit), kept when the Central Bank is unreachable. */
export const exchangeRates = table('exchange_rates', {
  currency: text('currency').primaryKey(),
  rate: text('rate').notNull(),
  /** The date the Central Bank says the rate is in force for (dd.mm.yyyy). */
  effectiveDate: text('effective_date').notNull(),
  fetchedAt: integer('fetched_at', { mode: 'timestamp_ms' }).notNull(),
})

export type ModelRow = typeof models.$inferSelect
