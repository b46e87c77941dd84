// The agent's tool loop the Responses tests and bench run against the fake upstream: one function
// tool, and a prompt the fake answers with a call to it until the input holds `calls` outputs
// (src/upstream/demo/responses.ts, `[[tool-loop:N]]`), then with text quoting the last output.

export const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Погода в городе',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
}

export const LOOP_PROMPT = (calls: number) => `Узнай погоду по очереди: get_weather [[tool-loop:${calls}]]`

/** The tool's answer in turn `turn` (what the loop sends back as the function_call_output). */
export const toolOutput = (turn: number) => `{"t":"+${turn} °C"}`

/** The fake's generation id behind a response id (its resp_ id is the generation id without "gen-"). */
export const generationIdOf = (responseId: string) => `gen-${responseId.slice('resp_'.length)}`
