// GET /v1/models (OpenAI list shape, not the {success,data} envelope) for the catalogue screens.
// The helpers that read the list are shared with the server: src/content/models/catalog.ts.
import useSWR from 'swr'
import type { ModelList } from '../../../src/content/models/catalog'

export const MODELS_KEY = '/v1/models'

export function useModels() {
  return useSWR<ModelList>(MODELS_KEY)
}
