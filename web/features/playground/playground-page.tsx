// /app/playground: chat with any catalogue model (streamed replies, attachments, saved history)
// and picture generation for models that draw. Spec §2, §4, §8, §9; issue 17 (the layout that
// fills the viewport, the picker, system prompt, regenerate / edit); issue 27 (voice: dictation
// into the composer, «Озвучить» under replies, the speech mode); issue 29 (sending guarded by the
// estimate, the chat kept across a change of model, «Сравнить» — several models side by side).
// The page holds what its views share — the text typed, attachments, settings, voice — and the
// views hold chat sessions (use-chat-session.ts): one here (chat-view.tsx), up to three in a
// comparison (compare-view.tsx).
import { useCallback, useEffect, useRef, useState } from 'react'
import { useSWRConfig } from 'swr'
import { useSearch } from 'wouter'
import { Drawer } from '../../components/drawer'
import { cn } from '../../lib/cn'
import { BALANCE_KEY, useBalance } from '../../lib/queries'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useMediaQuery } from '../../lib/use-media-query'
import { toast } from '../../stores/toasts'
import { acceptFor, acceptHint } from './attachments/attachments'
import { useAttachments } from './attachments/use-attachments'
import { ChatView } from './chat/chat-view'
import { CompareView, initialCompared, MAX_COMPARED } from './compare/compare-view'
import { CHATS_KEY, useChatHistory } from './history/chats-api'
import { HistoryBar } from './history/history-bar'
import { attachKinds, bareModel, DEFAULT_MODEL, isChatModel, isTranscriptionModel, usePlaygroundModels } from './models/models'
import { ModelInfoPanel, SettingsPanel } from './models/side-panels'
import { type EstimateBody, useEstimate } from './requests/estimate'
import { chatBody, imagesBody, userMessage } from './requests/request-body'
import { useChatSession } from './session/use-chat-session'
import { rememberedModel } from './session/use-session-model'
import type { Settings, SpeechBody } from './types'
import { useFillViewport } from './use-fill-viewport'
import { DictationBar, MicButton, useDictation } from './voice/dictation'
import { speechCostHint, speechText, useVoiceSettings } from './voice/voice'
import { VoicePanel } from './voice/voice-panel'

const DEFAULT_SETTINGS: Settings = { system: '', temperature: 0.7, maxTokens: 500, size: '1024x1024', quality: 'standard', quantity: 1 }

/** `?model=` (the catalogue links here with it) and `?compare=a,b,c` (the catalogue's comparison) as they are now. */
function useParams(): { model: string | null; compare: string[] } {
  const params = new URLSearchParams(useSearch())
  const compare = (params.get('compare') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, MAX_COMPARED)
  return { model: params.get('model'), compare }
}

type View = 'chat' | 'compare'

function ViewSwitch({ view, disabled, onChange }: { view: View; disabled: boolean; onChange: (view: View) => void }) {
  return (
    <div role="group" aria-label="Вид Playground" className="inline-flex shrink-0 gap-1 rounded-lg bg-slate-100 p-1 max-sm:p-0.5" data-testid="view-switch">
      {(
        [
          ['chat', 'Чат'],
          ['compare', 'Сравнить'],
        ] as const
      ).map(([value, label]) => (
        <button
          key={value}
          type="button"
          aria-pressed={view === value}
          disabled={disabled}
          onClick={() => onChange(value)}
          className={cn(
            'h-8 rounded-md px-3 text-sm font-medium transition-colors disabled:cursor-not-allowed',
            view === value ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900',
          )}
        >
          {label}
        </button>
      ))}
    </div>
  )
}

export function PlaygroundPage() {
  useDocumentTitle('Playground')
  const { mutate } = useSWRConfig()
  const { models, failed, loading: modelsLoading } = usePlaygroundModels()
  const history = useChatHistory()
  const wide = useMediaQuery('(min-width: 1024px)')
  const balance = useBalance().data?.balance
  const params = useParams()

  const [view, setView] = useState<View>(params.compare.length > 1 ? 'compare' : 'chat')
  const [settings, setSettings] = useState<Settings>(DEFAULT_SETTINGS)
  const [infoOpen, setInfoOpen] = useState<boolean | null>(null)
  const [drawerOpen, setDrawerOpen] = useState(false)
  const [input, setInput] = useState('')
  const [compared, setCompared] = useState<string[] | null>(null)
  const fill = useFillViewport<HTMLDivElement>()

  const refreshBalance = useCallback(() => void mutate(BALANCE_KEY), [mutate])
  const refreshHistory = useCallback(() => void mutate(CHATS_KEY), [mutate])
  // The last model chosen in this browser, unless a link names one (issue 29).
  const [initialModel] = useState(() => params.model || rememberedModel() || DEFAULT_MODEL)
  const session = useChatSession({ initialModel, models, settings, persist: true, onCharged: refreshBalance, onHistory: refreshHistory })
  const { model, modelId, speechMode, effectiveMode, imageCapable, kinds, pending } = session
  const { attachments, setAttachments, attach, remove: removeAttachment, keepFitting } = useAttachments(kinds)
  const voice = useVoiceSettings(models, speechMode ? model : undefined)
  const modelName = useCallback((id: string) => models.find((m) => m.id === id)?.name || id, [models])

  // the drawer is the phone's panel (and the comparison's): a wider chat shows the column instead
  useEffect(() => {
    if (wide && view === 'chat') setDrawerOpen(false)
  }, [wide, view])

  // ─── the model ──────────────────────────────────────────────────────────────
  const chatModels = models.filter(isChatModel)
  const options = chatModels.some((m) => m.id === modelId) || modelsLoading ? chatModels : [...chatModels, model]

  /** Another model for what follows; attachments it cannot read are dropped. */
  const { selectModel: sessionSelect } = session
  const selectModel = useCallback(
    (id: string) => {
      sessionSelect(id)
      keepFitting(attachKinds(models.find((m) => m.id === id) ?? bareModel(id)))
    },
    [sessionSelect, keepFitting, models],
  )

  // ?model= preselects (also when a catalogue link is followed while the page is open); an id the
  // catalogue does not have falls back to the default, with a word why.
  const catalogueReady = !modelsLoading && !failed && models.length > 0
  const appliedParam = useRef<string | null>(null)
  useEffect(() => {
    if (!params.model || params.model === appliedParam.current) return
    if (modelsLoading) return
    appliedParam.current = params.model
    const found = models.find((m) => m.id === params.model)
    if (found && isTranscriptionModel(found)) {
      // It listens, it does not chat: chosen for the microphone, the conversation keeps its model.
      voice.update({ transcriptionModel: found.id })
      toast.info(`${found.name || found.id} распознаёт речь: нажмите микрофон в поле ввода и говорите`)
      if (session.modelId === found.id) session.setModelId(rememberedModel() || DEFAULT_MODEL)
      return
    }
    if (catalogueReady && !found) {
      toast.info(`Модель ${params.model} не найдена в каталоге — выбрана ${DEFAULT_MODEL}`)
      selectModel(models.some((m) => m.id === DEFAULT_MODEL) ? DEFAULT_MODEL : models[0]!.id)
      return
    }
    selectModel(params.model)
  }, [params.model, models, modelsLoading, catalogueReady, selectModel, voice.update, session.modelId, session.setModelId])

  // A remembered (or default) model the catalogue lacks: the default, else the catalogue's first.
  useEffect(() => {
    if (!catalogueReady || params.model || session.chat) return
    if (!models.some((m) => m.id === modelId && isChatModel(m))) session.setModelId(models.some((m) => m.id === DEFAULT_MODEL) ? DEFAULT_MODEL : models[0]!.id)
  }, [catalogueReady, params.model, models, modelId, session.chat, session.setModelId])

  // ─── voice ──────────────────────────────────────────────────────────────────
  const dictation = useDictation({
    model: voice.transcription,
    onText: (text) => setInput((current) => (current.trim() ? `${current.trimEnd()} ${text}` : text)),
    onCharged: refreshBalance,
  })
  const speechBody = (text: string): SpeechBody => ({
    model: voice.speech?.id ?? model.id,
    input: speechText(text),
    voice: voice.settings.voice,
    response_format: voice.settings.format,
  })
  /** The speech mode: the text typed is voiced after `before` (the whole page, or what «Повторить» and «Изменить» keep). */
  const voiceAfter = (text: string, before: typeof session.messages) => void session.voiceText(text, speechBody(text), before)

  // ─── sending ────────────────────────────────────────────────────────────────
  async function send() {
    if (pending) return
    const text = input.trim()
    if (speechMode) {
      if (!text) return
      setInput('')
      if (!(await session.voiceText(text, speechBody(text)))) setInput((current) => current || text)
      return
    }
    const ready = attachments.filter((a) => a.status === 'ready' && a.upload)
    if (!text && ready.length === 0) return
    if (attachments.some((a) => a.status === 'uploading')) return
    const drawing = effectiveMode === 'image'
    if (drawing && !text) {
      toast.error('Опишите изображение, которое нужно сгенерировать')
      return
    }
    const keptInput = input
    const keptAttachments = attachments
    setInput('')
    setAttachments(drawing ? attachments : [])
    if (
      !(await session.sendMessage(
        input,
        ready.map((a) => a.upload!),
      ))
    ) {
      // Nothing was answered: the question goes back to the field, to edit or try again.
      setInput((current) => current || keptInput)
      if (!drawing) setAttachments((current) => (current.length ? current : keptAttachments))
    }
  }

  const reduceTokens = useCallback((tokens: number) => {
    setSettings((s) => ({ ...s, maxTokens: tokens }))
    toast.info(`Ответ ограничен ${tokens.toLocaleString('ru-RU')} токенами — столько оплатит баланс`)
  }, [])

  // ─── estimates ──────────────────────────────────────────────────────────────
  // The body sending would send now (request-body.ts), priced by the server ~300 ms after the
  // last change. An image prompt not typed yet is estimated as the shortest one.
  const imageMode = effectiveMode === 'image'
  const uploads = imageMode ? [] : attachments.flatMap((a) => (a.status === 'ready' && a.upload ? [a.upload] : []))
  const estimateKey = JSON.stringify(
    speechMode
      ? ['speech', model.id, input.trim(), voice.settings.voice, voice.settings.format, balance]
      : imageMode
        ? ['image', model.id, input.trim(), settings.size, settings.quality, settings.quantity, balance]
        : [
            'chat',
            model.id,
            input.trim(),
            settings.system.trim(),
            settings.temperature,
            settings.maxTokens,
            uploads.map((u) => u.id),
            session.messages.map((m) => [m.key, m.status, m.content.length]),
            balance,
          ],
  )
  const estimate = useEstimate(pending || modelsLoading || view !== 'chat' ? null : estimateKey, async (): Promise<EstimateBody> => {
    const draft = userMessage('draft', input, uploads)
    // An empty field is estimated as one character: the least a voicing can cost.
    if (speechMode) return { speech: speechBody(input.trim() || '.') }
    if (imageMode) return { images: imagesBody(model.id, draft.content || ' ', settings) }
    return { chat: await chatBody(model.id, [...session.messages, draft], settings) }
  })
  const estimateHint = speechMode
    ? 'Цена модели за символ × длина текста: больше этого озвучка стоить не может; списывается стоимость у провайдера'
    : imageMode
      ? 'Больше этого генерация стоить не может; списывается фактическая стоимость'
      : `Промпт и до ${settings.maxTokens} токенов ответа: больше этого запрос стоить не может, списывается фактическая стоимость`

  // ─── view ───────────────────────────────────────────────────────────────────
  function switchView(next: View) {
    if (next === 'compare' && !compared) setCompared(initialCompared(params.compare, modelId, models))
    setView(next)
  }
  // ?compare= from the catalogue opens the comparison with those models
  const comparedParam = params.compare.join(',')
  const appliedCompare = useRef('')
  useEffect(() => {
    if (params.compare.length < 2 || comparedParam === appliedCompare.current || modelsLoading) return
    appliedCompare.current = comparedParam
    setCompared(initialCompared(comparedParam.split(','), modelId, models))
    setView('compare')
  }, [comparedParam, params.compare.length, modelsLoading, modelId, models])

  const showInfo = infoOpen ?? wide
  const mic = voice.listeners.length > 0 ? <MicButton dictation={dictation} disabled={pending} /> : undefined
  const panels = (
    <>
      {view === 'chat' && <ModelInfoPanel model={model} open={showInfo} onToggle={() => setInfoOpen(!showInfo)} />}
      <SettingsPanel
        models={options}
        modelId={modelId}
        failed={failed}
        loading={modelsLoading}
        imageCapable={imageCapable}
        mode={effectiveMode}
        settings={settings}
        disabled={pending}
        imageEstimate={estimate}
        imageEstimateHint={estimateHint}
        speechMode={speechMode && view === 'chat'}
        comparing={view === 'compare'}
        onModel={selectModel}
        onMode={session.setMode}
        onSettings={(patch) => setSettings((s) => ({ ...s, ...patch }))}
      />
      {view === 'chat' && (
        <VoicePanel
          settings={voice.settings}
          listeners={voice.listeners}
          speakers={voice.speakers}
          speechModel={voice.speech}
          speechMode={speechMode}
          disabled={pending}
          onChange={voice.update}
        />
      )}
    </>
  )
  const comparing = view === 'compare' && compared !== null

  return (
    <div
      ref={fill.ref}
      style={fill.height ? { height: fill.height } : undefined}
      // On a phone the conversation gets the height (issue 33: at least half the screen): less of
      // the layout's padding above, none below, smaller gaps; the chat runs edge to edge.
      className="flex min-h-0 flex-col gap-3 max-sm:-mt-4 max-sm:-mb-6 max-sm:gap-2 sm:gap-4"
      data-testid="playground"
    >
      <div className="flex min-w-0 items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-xl font-semibold tracking-tight text-slate-900 sm:text-2xl">Playground</h1>
          <p className="mt-0.5 hidden truncate text-sm text-slate-600 md:block">
            Попробуйте любую модель каталога: ответ приходит по мере генерации, цена видна до отправки и после ответа.
          </p>
        </div>
        <ViewSwitch view={view} disabled={pending} onChange={switchView} />
      </div>
      {!comparing && (
        <HistoryBar
          chats={history.data}
          loading={history.isLoading}
          activeId={session.chat?.id ?? null}
          disabled={pending}
          onNew={session.resetChat}
          onOpen={(c) => void session.openChat(c)}
          onDelete={session.removeChat}
        />
      )}
      <div className={cn('grid min-h-0 flex-1 grid-rows-[minmax(0,1fr)] gap-4 lg:gap-6', !comparing && 'lg:grid-cols-[minmax(0,1fr)_320px]')}>
        {comparing ? (
          <CompareView
            models={models}
            modelsLoading={modelsLoading}
            initial={compared}
            settings={settings}
            balance={balance}
            input={input}
            onInput={setInput}
            onCharged={refreshBalance}
            onReduceTokens={reduceTokens}
            wide={wide}
            mic={mic}
            banner={<DictationBar dictation={dictation} />}
            onOpenSettings={() => setDrawerOpen(true)}
          />
        ) : (
          <ChatView
            session={session}
            wide={wide}
            drawerOpen={drawerOpen}
            onOpenDrawer={() => setDrawerOpen(true)}
            input={input}
            onInput={setInput}
            attachments={attachments}
            onAttach={attach}
            onRemoveAttachment={removeAttachment}
            onSend={() => void send()}
            accept={acceptFor(kinds)}
            acceptHint={acceptHint(kinds)}
            estimate={estimate}
            estimateHint={estimateHint}
            onReduceTokens={reduceTokens}
            actions={{
              onRegenerate: (key) => session.regenerate(key, voiceAfter),
              onEdit: (key, text) => session.editAndResend(key, text, voiceAfter),
              enabled: !pending,
              onSpeak: voice.speech ? (key) => void session.speakMessage(key, speechBody) : undefined,
              speakHint: (text) => speechCostHint(voice.speech, speechText(text)),
            }}
            modelName={modelName}
            voiceName={voice.settings.voice}
            mic={mic}
            banner={<DictationBar dictation={dictation} />}
          />
        )}
        {wide && !comparing && (
          <aside className="min-h-0 space-y-4 overflow-y-auto pb-1" aria-label="Модель и настройки">
            {panels}
          </aside>
        )}
      </div>
      {/* a phone, and a comparison (its columns take the width), keep the panels in a drawer */}
      {(!wide || comparing) && (
        <Drawer open={drawerOpen} onClose={() => setDrawerOpen(false)} title={comparing ? 'Настройки сравнения' : 'Модель и настройки'}>
          {panels}
        </Drawer>
      )}
    </div>
  )
}
