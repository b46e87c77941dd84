// One chat session of the Playground: its model, the conversation on screen, the reply on its way
// (streamed, or a picture being drawn, or text being voiced), the saved chat behind it and the
// errors. The page holds one of these; a comparison holds several side by side, sharing the prompt
// (issue 29). What is typed, the settings and the estimate belong to the page.
// Each concern has its owner: the model (use-session-model.ts), the saved chat (use-saved-chat.ts),
// the request in flight (use-in-flight.ts), how a reply comes (replies.ts), voice
// (use-voice-replies.ts). This hook holds the conversation and the exchanges that change it.
import { useCallback, useState } from 'react'
import type { ChatSummary } from '../history/chats-api'
import { localKey } from '../local-key'
import type { PlaygroundModel } from '../models/models'
import { userMessage } from '../requests/request-body'
import { isAbortError } from '../requests/stream'
import type { Settings, UiMessage, UploadedFile } from '../types'
import { GENERIC_ERROR, generateImages, IMAGE_ERROR, type ReplyContext, type Screen, showRequestError, streamReply } from './replies'
import { useInFlight } from './use-in-flight'
import { fromStored, type Prelude, useSavedChat } from './use-saved-chat'
import { rememberModel, useSessionModel } from './use-session-model'
import { useVoiceReplies } from './use-voice-replies'

export interface SessionOptions {
  /** the model the session opens with */
  initialModel: string
  /** the catalogue, to know what a model id can do */
  models: PlaygroundModel[]
  /** temperature, max tokens, system prompt, picture settings: the page's */
  settings: Settings
  /** kept in the chat history (the Playground's chat) or only on screen (a comparison's column) */
  persist: boolean
  /** the answer moved the balance: the page refreshes it */
  onCharged: () => void
  /** the chat history changed: the page refreshes its list */
  onHistory?: () => void
}

export type ChatSession = ReturnType<typeof useChatSession>

export function useChatSession({ initialModel, models, settings, persist, onCharged, onHistory }: SessionOptions) {
  const { showModel, ...current } = useSessionModel({ initialModel, models, persist })
  const saved = useSavedChat({ persist, onHistory })
  const flight = useInFlight()
  const [messages, setMessages] = useState<UiMessage[]>([])
  const patchMessage = useCallback((key: string, patch: Partial<UiMessage>) => setMessages((list) => list.map((m) => (m.key === key ? { ...m, ...patch } : m))), [])
  const screen: Screen = {
    append: (message) => setMessages((list) => [...list, message]),
    patch: patchMessage,
    drop: (...keys) => setMessages((list) => list.filter((m) => !keys.includes(m.key))),
  }
  const voice = useVoiceReplies({ messages, setMessages, screen, flight, onCharged })
  const { pending, stop } = flight
  const { effectiveMode, speechMode } = current

  // ─── chats ──────────────────────────────────────────────────────────────────
  const { forget } = saved
  const resetChat = useCallback(() => {
    stop()
    forget()
    setMessages([])
  }, [stop, forget])

  async function openChat(summary: ChatSummary) {
    if (pending || summary.id === saved.chat?.id) return
    await saved.open(summary, (loaded) => {
      // Loading a chat sets its model (spec §4).
      showModel(loaded.model)
      setMessages(loaded.messages.map(fromStored))
    })
  }

  const removeChat = (summary: ChatSummary) => saved.remove(summary, resetChat)

  // ─── sending ────────────────────────────────────────────────────────────────
  /**
   * One exchange: `user` after `before` is what the screen shows while the reply comes. Nothing
   * answered (an error before the reply started): the screen goes back to `previous`. Answers
   * whether the exchange stayed.
   */
  async function exchange(user: UiMessage, before: UiMessage[], previous: UiMessage[], drawing: boolean, prelude: Prelude): Promise<boolean> {
    const forModel = current.model
    if (persist) rememberModel(forModel.id)
    saved.nameAfter(user, before, forModel)
    setMessages([...before, user])
    const ac = flight.begin()
    const outcome = { answered: false }
    const context: ReplyContext = { settings, screen, saved, onCharged }
    const turn = { model: forModel, user, before, signal: ac.signal, outcome, prelude }
    try {
      if (drawing) await generateImages(context, turn)
      else await streamReply(context, turn)
    } catch (error) {
      if (!isAbortError(error)) showRequestError(error, drawing ? IMAGE_ERROR : GENERIC_ERROR)
    } finally {
      if (!outcome.answered) setMessages(previous)
      flight.end(ac)
    }
    return outcome.answered
  }

  /** A new question (text and, in chat mode, uploaded attachments); whether it stayed on screen. */
  function sendMessage(text: string, uploads: UploadedFile[]): Promise<boolean> {
    const drawing = effectiveMode === 'image'
    const user = userMessage(localKey(), text, drawing ? [] : uploads)
    return exchange(user, messages, messages, drawing, {})
  }

  /** The last reply once more: the conversation up to its question is sent again. */
  function regenerate(key: string, voiceAfter?: (text: string, before: UiMessage[]) => void) {
    if (pending) return
    const at = messages.findIndex((m) => m.key === key)
    const userAt = messages.slice(0, at).findLastIndex((m) => m.role === 'user')
    if (at < 0 || userAt < 0) return
    const user = messages[userAt]!
    if (speechMode && voiceAfter) return voiceAfter(user.content, messages.slice(0, userAt))
    void exchange(user, messages.slice(0, userAt), messages, effectiveMode === 'image' && !!user.content.trim(), {
      truncateFrom: messages[userAt + 1]?.key ?? key,
      userSaved: true,
    })
  }

  /** An earlier question with new text: it and everything after it give way to the new exchange. */
  function editAndResend(key: string, text: string, voiceAfter?: (text: string, before: UiMessage[]) => void) {
    if (pending) return
    const at = messages.findIndex((m) => m.key === key)
    if (at < 0) return
    const old = messages[at]!
    if (speechMode && voiceAfter) return void (text.trim() && voiceAfter(text.trim(), messages.slice(0, at)))
    const drawing = effectiveMode === 'image' && !!text.trim()
    const user = userMessage(localKey(), text, drawing ? [] : old.files)
    void exchange(user, messages.slice(0, at), messages, drawing, { truncateFrom: key })
  }

  return {
    ...current,
    chat: saved.chat,
    messages,
    chatLoading: saved.chatLoading,
    pending,
    resetChat,
    openChat,
    removeChat,
    sendMessage,
    regenerate,
    editAndResend,
    voiceText: voice.voiceText,
    speakMessage: voice.speakMessage,
    stop,
  }
}
