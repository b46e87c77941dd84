// Issue 27: voice in the Playground and the catalogue, against the built app and the demo router.
// Chromium's fake microphone plays a WAV this spec writes; the journey records, sees the transcript
// land in the composer, sends it, and has the reply voiced («Озвучить» plays: a playable source with a
// duration); then the speech mode, and the catalogue's new types and prices. At 1280×800 and
// 360×740, axe-checked, screens in test-results/screens.

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'
import { toneWav } from '../src/lib/wav'
import { fileAccount, price, serverEstimate, shoot, watchConsole } from './helpers'

// The fake microphone's sound: a WAV the spec writes before the browser starts (the flag names it;
// outside test-results, which the runner empties after loading the specs).
const MIC_WAV = join(mkdtempSync(join(tmpdir(), 'voice-e2e-')), 'fake-mic.wav')
writeFileSync(MIC_WAV, toneWav(3, 48_000, 330))

test.use({
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-audio-capture=${MIC_WAV}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  },
})

const PASSWORD = 'voice-spec-pass-1'
const signIn = fileAccount('voice', PASSWORD)
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const SIZES = [
  { name: '1280', width: 1280, height: 800 },
  { name: '360', width: 360, height: 740 },
] as const

const composer = (page: Page) => page.getByRole('textbox', { name: 'Сообщение' })
const lastReply = (page: Page) => page.getByTestId('assistant-message').last()

async function axeClean(page: Page, label: string) {
  await page.mouse.move(0, 0)
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze()
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(blocking.map((v) => `${label}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([])
}

/** The audio element has a source the browser could open, and it lasts. */
async function expectPlayable(scope: ReturnType<Page['getByTestId']>) {
  const audio = scope.locator('audio')
  await expect(audio).toHaveAttribute('src', /^blob:/)
  const state = await audio.evaluate(async (el: HTMLAudioElement) => {
    if (el.readyState < 1) await new Promise((resolve) => el.addEventListener('loadedmetadata', resolve, { once: true }))
    await el.play()
    await new Promise((resolve) => setTimeout(resolve, 300))
    return { duration: el.duration, error: el.error?.code ?? null, playing: !el.paused || el.ended, time: el.currentTime }
  })
  expect(state.error).toBeNull()
  expect(state.duration).toBeGreaterThan(0)
  expect(state.playing).toBe(true)
  expect(state.time).toBeGreaterThan(0)
}

test.describe.configure({ mode: 'serial' })

for (const size of SIZES) {
  test.describe(`voice ${size.width}×${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height } })

    test('dictate into the composer, send, and have the reply voiced', async ({ page }) => {
      test.slow() // a recording, a reply and a voicing: more than the default on a busy machine
      const console = watchConsole(page)
      await signIn(page)
      await page.goto('/app/playground')
      await expect(page.getByRole('heading', { level: 1, name: 'Playground' })).toBeVisible()

      // Record: the bar shows the time while the microphone runs.
      const mic = page.getByRole('button', { name: 'Надиктовать сообщение' })
      await expect(mic).toBeEnabled()
      await mic.click()
      const bar = page.getByTestId('dictation-bar')
      await expect(bar).toHaveAttribute('data-state', 'recording')
      await expect(page.getByTestId('recording-time')).toHaveText('0:02', { timeout: 10_000 })
      if (size.width >= 640) await expect(bar).toContainText(/распознавание до \d+,\d+\s₽/)
      await shoot(page, `voice-recording-${size.name}`)
      await bar.getByRole('button', { name: 'Готово' }).click()

      // The transcript lands in the composer, to edit before sending.
      await expect(composer(page)).toHaveValue(/Демо-расшифровка: запись длительностью \d+(,\d)? с\./, { timeout: 15_000 })
      await expect(bar).toHaveCount(0)
      await shoot(page, `voice-transcript-${size.name}`)
      const usage = await page.evaluate(async () => {
        const r = await fetch('/api/billing/usage?limit=5', { headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` } })
        return (await r.json()).data.logs as Array<{ model: string; audioSeconds: number | null; cost: number }>
      })
      expect(usage[0]).toMatchObject({ model: 'openai/whisper-1' })
      expect(usage[0]!.audioSeconds).toBeGreaterThan(0)

      // Send it: the demo answers, and «Озвучить» voices the answer in the page.
      await composer(page).press('Enter')
      await expect(lastReply(page)).toHaveAttribute('data-status', 'done', { timeout: 20_000 })
      const speakButton = lastReply(page).getByTestId('speak-button')
      await expect(speakButton).toHaveAttribute('title', /Озвучить ответ \(до \d+,\d+\s₽\)/)
      await speakButton.click()
      const player = lastReply(page).getByTestId('speech-player')
      await expect(player).toBeVisible({ timeout: 15_000 })
      await expectPlayable(player)
      await expect(player.getByRole('link', { name: 'Скачать' })).toHaveAttribute('download', /^speech\.(wav|mp3)$/)
      await shoot(page, `voice-reply-voiced-${size.name}`)
      await axeClean(page, `playground ${size.name}`)
      console.assertClean()
    })

    test('the speech mode: a speech model voices what is typed, with the estimate before sending', async ({ page }) => {
      const console = watchConsole(page)
      await signIn(page)
      await page.goto('/app/playground?model=openai%2Fgpt-4o-mini-tts')
      await expect(page.getByRole('heading', { level: 1, name: 'Playground' })).toBeVisible()
      const text = 'Здравствуйте! Это проверка озвучки в песочнице.'
      await composer(page).fill(text)
      const estimate = await serverEstimate<{ maxCost: number }>(page, { speech: { model: 'openai/gpt-4o-mini-tts', input: text, voice: 'alloy', response_format: 'mp3' } })
      // The server's own figure for this very text, once the composer has asked (~300 ms after typing).
      await expect(page.getByTestId('cost-estimate')).toContainText(new RegExp(`Оценка: до ${price(estimate.maxCost).replace(/\s/g, '\\s')}`))
      if (size.width < 1024) {
        await page.getByRole('button', { name: 'Модель и настройки' }).click()
        await expect(page.getByTestId('speech-mode-note')).toBeVisible()
        await page.getByRole('dialog').getByLabel('Голос', { exact: true }).selectOption('nova')
        await shoot(page, `voice-speech-settings-${size.name}`)
        await axeClean(page, `speech settings ${size.name}`)
        await page.keyboard.press('Escape')
      } else {
        await expect(page.getByTestId('speech-mode-note')).toBeVisible()
        await page.getByTestId('voice-panel').getByLabel('Голос', { exact: true }).selectOption('nova')
      }
      await composer(page).press('Enter')
      const player = lastReply(page).getByTestId('speech-player')
      await expect(player).toBeVisible({ timeout: 15_000 })
      await expectPlayable(player)
      await expect(lastReply(page)).toContainText('Голос nova')
      await shoot(page, `voice-speech-mode-${size.name}`)
      await axeClean(page, `speech mode ${size.name}`)
      console.assertClean()
    })

    test('the catalogues show the voice types with their own prices; model pages show both SDK calls', async ({ page }) => {
      const console = watchConsole(page)
      await signIn(page)
      await page.goto('/app/models')
      const types = page.getByRole('group', { name: 'Тип модели' })
      await expect(types.getByRole('button', { name: /Озвучка/ })).toBeVisible()
      await types.getByRole('button', { name: /Распознавание речи/ }).click()
      const cards = page.getByTestId('model-card')
      await expect(cards.first()).toHaveAttribute('data-model-type', 'transcription')
      await expect(page.locator('[data-model-id="openai/whisper-1"]')).toContainText(/за минуту/)
      await shoot(page, `voice-catalogue-${size.name}`)
      await axeClean(page, `catalogue ${size.name}`)

      await page.goto('/models?filter=speech')
      await expect(page.getByRole('button', { name: /Озвучка/ })).toHaveAttribute('aria-pressed', 'true')
      await expect(page.locator('[data-model-id="openai/gpt-4o-mini-tts"]')).toContainText(/за 1M символов/)
      await page.goto('/models/openai/whisper-1')
      await expect(page.getByTestId('model-prices')).toContainText(/за минуту/)
      await expect(page.getByTestId('model-page')).toContainText('audio.transcriptions.create')
      await page.goto('/models/openai/gpt-4o-mini-tts')
      await expect(page.getByTestId('model-page')).toContainText('audio.speech.create')
      await expect(page.getByTestId('model-page')).toContainText('Озвучка текста')
      await shoot(page, `voice-model-page-${size.name}`)
      await axeClean(page, `model page ${size.name}`)

      // The usage page measures voice in seconds and characters, not tokens.
      await page.goto('/app/usage')
      const rows = page.getByTestId('usage-log-row')
      await expect(rows.filter({ hasText: 'openai/whisper-1' }).first()).toContainText(/с аудио/)
      await expect(rows.filter({ hasText: 'openai/gpt-4o-mini-tts' }).first()).toContainText(/символ/)
      await shoot(page, `voice-usage-${size.name}`)
      console.assertClean()
    })
  })
}
