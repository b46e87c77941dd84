// Voice in a session: the speech mode's answer (the text typed, voiced after the conversation) and
// «Озвучить» under a reply. The audio stays on this page (it is not kept in the history); its
// object URLs are given back when the page closes.
import { useEffect, useRef } from 'react'
import { localKey } from '../local-key'
import { userMessage } from '../requests/request-body'
import { isAbortError } from '../requests/stream'
import type { SpeechAudio, SpeechBody, UiMessage } from '../types'
import { SPEECH_ERROR, speak } from '../voice/voice'
import { type Screen, showRequestError } from './replies'
import type { InFlight } from './use-in-flight'

export function useVoiceReplies({
  messages,
  setMessages,
  screen,
  flight,
  onCharged,
}: {
  messages: UiMessage[]
  setMessages: (messages: UiMessage[]) => void
  screen: Screen
  flight: Pick<InFlight, 'begin' | 'end'>
  onCharged: () => void
}) {
  /** Object URLs of the audio made here, given back when the page closes. */
  const audioUrls = useRef<string[]>([])
  useEffect(
    () => () => {
      for (const url of audioUrls.current) URL.revokeObjectURL(url)
    },
    [],
  )
  const keep = (audio: SpeechAudio) => {
    audioUrls.current.push(audio.url)
    return audio
  }
  /** The balance moves once the router has reported the cost, a moment after the last byte. */
  const chargedSoon = () => setTimeout(onCharged, 1500)

  /**
   * The speech mode: the text typed is voiced after `before` (the whole page, or the part kept by
   * «Повторить» and «Изменить»); the exchange stays on the page (audio is not kept in the history).
   * Whether it was voiced.
   */
  async function voiceText(text: string, body: SpeechBody, before: UiMessage[] = messages): Promise<boolean> {
    const previous = messages
    const user = userMessage(localKey(), text, [])
    const key = localKey()
    setMessages([...before, user, { key, role: 'assistant', content: '', images: [], files: [], metadata: {}, status: 'speaking' }])
    const ac = flight.begin()
    try {
      const audio = keep(await speak(body, ac.signal))
      screen.patch(key, { audio, status: undefined, metadata: { model: body.model, voice: body.voice, format: body.response_format } })
      return true
    } catch (error) {
      setMessages(previous)
      if (!isAbortError(error)) showRequestError(error, SPEECH_ERROR)
      return false
    } finally {
      flight.end(ac)
      chargedSoon()
    }
  }

  /** «Озвучить» under a reply: its text through the chosen speech model, played where it is. */
  async function speakMessage(key: string, body: (text: string) => SpeechBody) {
    const message = messages.find((m) => m.key === key)
    if (!message?.content.trim()) return
    screen.patch(key, { voicing: true })
    try {
      const audio = keep(await speak(body(message.content)))
      screen.patch(key, { voicing: false, audio })
    } catch (error) {
      screen.patch(key, { voicing: false })
      showRequestError(error, SPEECH_ERROR)
    } finally {
      chargedSoon()
    }
  }

  return { voiceText, speakMessage }
}
