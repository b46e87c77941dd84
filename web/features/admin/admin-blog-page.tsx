import { type ReactNode, useEffect, useId, useState } from 'react'
import { formatDate, formatDateTime, formatDayTime, formatInteger } from '../../../src/content/format'
import { dailySlots } from '../../../src/content/schedule'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ConfirmDialog } from '../../components/dialog'
import { AlertCircleIcon, ClockIcon, FileTextIcon, PowerIcon, SparklesIcon, TrashIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { Select } from '../../components/select'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useMediaQuery } from '../../lib/use-media-query'
import { toast } from '../../stores/toasts'
import { type AdminPost, type AutopostSettings, blogApi, INTERVALS, intervalLabel, useAdminPosts, useAutopostSettings, useAutopostStats } from './admin-api'
import { ImageRefreshIcon, RowAction } from './admin-ui'

const TABLE_QUERY = '(min-width: 1100px)'

/** 'каждый час' / 'каждые 6 часов' / 'раз в сутки' inside a sentence. */
const everyHours = (hours: number) => intervalLabel(hours).toLowerCase()

/** 'a, b и c' */
const joinRu = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} и ${items.at(-1)}`)

/**
 * The publication times as the job keeps them (the same slot lattice as src/blog/schedule.ts), so
 * the text agrees with «Ближайшая»: 10:00 every 6 h is 'ежедневно в 04:00, 10:00, 16:00 и 22:00',
 * 10:00 every hour 'каждый час: 00:00, 01:00 … 23:00' — not 'в 10:00, затем каждый час'.
 */
export function scheduleText(startTime: string, intervalHours: number): string {
  const slots = dailySlots(startTime, intervalHours)
  if (slots.length <= 4) return `ежедневно в ${joinRu(slots)}`
  return `${everyHours(intervalHours)}: ${slots[0]}, ${slots[1]} … ${slots.at(-1)}`
}

function StatTile({ label, icon, value, testId, className }: { label: string; icon: ReactNode; value: ReactNode; testId: string; className?: string }) {
  return (
    <Card className={cn('p-4 sm:p-5', className)}>
      <p className="flex items-center gap-2 text-sm font-medium text-slate-500">
        <span className="text-slate-400 max-[400px]:hidden">{icon}</span>
        {label}
      </p>
      <p className="mt-2 text-2xl leading-8 font-semibold tracking-tight text-slate-900 tabular-nums" data-testid={testId}>
        {value}
      </p>
    </Card>
  )
}

function StatusBanner({ settings, nextRunTime, onToggle, pending }: { settings: AutopostSettings; nextRunTime: string | null; onToggle: () => void; pending: boolean }) {
  const on = settings.isEnabled
  return (
    <div
      data-testid="autopost-banner"
      className={cn(
        'flex flex-col gap-4 rounded-xl border p-4 sm:flex-row sm:items-center sm:justify-between sm:p-5',
        on ? 'border-emerald-200 bg-emerald-50/70' : 'border-slate-200 bg-white',
      )}
    >
      <div className="flex min-w-0 items-start gap-3">
        <span className={cn('mt-1.5 h-2.5 w-2.5 shrink-0 rounded-full', on ? 'bg-emerald-500 ring-4 ring-emerald-100' : 'bg-slate-300')} aria-hidden="true" />
        <div className="min-w-0">
          <p className="text-[15px] font-semibold text-slate-900">{on ? 'Автопостинг активен' : 'Автопостинг остановлен'}</p>
          <p className="mt-0.5 text-sm text-slate-600" data-testid="autopost-next">
            {on
              ? `Статьи выходят ${scheduleText(settings.startTime, settings.intervalHours)} (московское время).`
              : 'Новые статьи не публикуются. Запустите автопостинг, чтобы блог пополнялся статьями о новых моделях.'}
          </p>
          {on && nextRunTime && (
            <p className="mt-0.5 text-sm text-slate-600" data-testid="autopost-next-run">
              Ближайшая — {formatDayTime(nextRunTime)}.
            </p>
          )}
        </div>
      </div>
      <Button variant={on ? 'secondary' : 'primary'} onClick={onToggle} loading={pending} className="shrink-0">
        {!pending && <PowerIcon size={16} />}
        {on ? 'Остановить' : 'Запустить'}
      </Button>
    </div>
  )
}

function ScheduleCard({ settings, onSaved }: { settings: AutopostSettings; onSaved: (s: AutopostSettings) => void }) {
  const timeId = useId()
  const frequencyId = useId()
  const [startTime, setStartTime] = useState(settings.startTime)
  const [intervalHours, setIntervalHours] = useState(settings.intervalHours)
  const [saving, setSaving] = useState(false)
  // A save elsewhere (or a refetch) moves the form to the stored schedule.
  useEffect(() => {
    setStartTime(settings.startTime)
    setIntervalHours(settings.intervalHours)
  }, [settings.startTime, settings.intervalHours])

  const changed = startTime !== settings.startTime || intervalHours !== settings.intervalHours
  const valid = /^([01]\d|2[0-3]):[0-5]\d$/.test(startTime)

  async function save() {
    setSaving(true)
    try {
      onSaved(await blogApi.updateSettings({ startTime, intervalHours }))
      toast.success('Настройки обновлены')
    } catch (err) {
      toast.error(errorMessage(err, 'Ошибка обновления'))
    } finally {
      setSaving(false)
    }
  }

  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Расписание</h2>
      <p className="mt-1 text-sm text-slate-500">Публикации идут с выбранной частотой, отсчитывая от времени начала; сетка одинакова каждый день. Время московское.</p>
      <div className="mt-5 flex flex-col gap-4 sm:flex-row sm:items-end">
        <div className="space-y-1.5">
          <label htmlFor={timeId} className="text-sm font-medium text-slate-700">
            Время начала
          </label>
          {/* Text, not type="time": that one shows AM/PM in English-locale browsers; the schedule is 24-hour Moscow time. */}
          <input
            id={timeId}
            value={startTime}
            onChange={(e) => setStartTime(e.target.value.replace(/[^\d:]/g, '').slice(0, 5))}
            placeholder="ЧЧ:ММ"
            inputMode="numeric"
            maxLength={5}
            aria-invalid={valid ? undefined : true}
            aria-describedby={valid ? undefined : `${timeId}-error`}
            className={cn(inputClasses, 'w-full font-medium tabular-nums sm:w-28')}
          />
        </div>
        <div className="space-y-1.5">
          <label htmlFor={frequencyId} className="text-sm font-medium text-slate-700">
            Частота
          </label>
          <Select id={frequencyId} value={intervalHours} onChange={(e) => setIntervalHours(Number(e.target.value))} wrapperClassName="w-full sm:w-52">
            {INTERVALS.map((h) => (
              <option key={h} value={h}>
                {intervalLabel(h)}
              </option>
            ))}
          </Select>
        </div>
        <Button onClick={() => void save()} loading={saving} disabled={!changed || !valid || saving}>
          Сохранить
        </Button>
      </div>
      {!valid && (
        <p id={`${timeId}-error`} role="alert" className="mt-2 text-sm text-red-600">
          Время начала — в формате ЧЧ:ММ, например 10:00
        </p>
      )}
      <p className="mt-4 flex items-center gap-2 text-sm text-slate-600" data-testid="autopost-schedule">
        <ClockIcon size={15} className="shrink-0 text-slate-400" />
        Текущее расписание: {scheduleText(settings.startTime, settings.intervalHours)}
      </p>
    </Card>
  )
}

type PendingAction = { kind: 'regenerate' | 'delete'; post: AdminPost; busy: boolean }

function Cover({ post, className }: { post: AdminPost; className?: string }) {
  return post.coverImage ? (
    <img src={post.coverImage} alt="" loading="lazy" className={cn('rounded-md bg-slate-100 object-cover', className)} />
  ) : (
    <span className={cn('flex items-center justify-center rounded-md bg-slate-100 text-slate-400', className)} title="Без обложки">
      <FileTextIcon size={16} />
    </span>
  )
}

function PostActions({ post, onAction }: { post: AdminPost; onAction: (a: PendingAction) => void }) {
  return (
    <div className="flex justify-end gap-1">
      <RowAction label={`Регенерировать изображение: ${post.title}`} title="Регенерировать изображение" onClick={() => onAction({ kind: 'regenerate', post, busy: false })}>
        <ImageRefreshIcon size={16} />
      </RowAction>
      <RowAction label={`Удалить статью: ${post.title}`} title="Удалить статью" danger onClick={() => onAction({ kind: 'delete', post, busy: false })}>
        <TrashIcon size={16} />
      </RowAction>
    </div>
  )
}

function PostsTable({ posts, onAction }: { posts: AdminPost[]; onAction: (a: PendingAction) => void }) {
  return (
    <table className="w-full table-fixed text-left text-sm">
      <thead className="border-b border-slate-200 bg-slate-50/70 text-xs font-medium tracking-wide text-slate-500 uppercase">
        <tr>
          <th className="w-[34%] px-6 py-3 font-medium">Заголовок</th>
          <th className="px-3 py-3 font-medium">Slug</th>
          <th className="px-3 py-3 font-medium">Модель</th>
          <th className="w-24 px-3 py-3 text-right font-medium">Просмотры</th>
          <th className="w-28 px-3 py-3 font-medium">Дата</th>
          <th className="w-24 px-4 py-3">
            <span className="sr-only">Действия</span>
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {posts.map((p) => (
          <tr key={p.id} data-testid="admin-post-row" className="hover:bg-slate-50/60">
            <td className="px-6 py-3">
              <div className="flex items-center gap-3">
                <Cover post={p} className="h-10 w-16 shrink-0" />
                <a href={`/blog/${p.slug}`} target="_blank" rel="noreferrer" className="line-clamp-2 font-medium text-slate-900 hover:text-indigo-600">
                  {p.title}
                </a>
              </div>
            </td>
            <td className="px-3 py-3 font-mono text-xs text-slate-500" title={p.slug}>
              <span className="line-clamp-2 break-all">{p.slug}</span>
            </td>
            <td className="px-3 py-3 text-slate-700" title={p.modelId}>
              <span className="line-clamp-2 break-words">{p.modelName}</span>
            </td>
            <td className="px-3 py-3 text-right text-slate-700 tabular-nums">{formatInteger(p.views)}</td>
            <td className="px-3 py-3 whitespace-nowrap text-slate-600">{p.publishedAt ? formatDate(p.publishedAt) : 'черновик'}</td>
            <td className="px-4 py-2">
              <PostActions post={p} onAction={onAction} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function PostCards({ posts, onAction }: { posts: AdminPost[]; onAction: (a: PendingAction) => void }) {
  return (
    <ul className="divide-y divide-slate-100">
      {posts.map((p) => (
        <li key={p.id} data-testid="admin-post-row" className="px-4 py-3.5 sm:px-6">
          <div className="flex gap-3">
            <Cover post={p} className="h-14 w-20 shrink-0" />
            <div className="min-w-0 flex-1">
              <a href={`/blog/${p.slug}`} target="_blank" rel="noreferrer" className="line-clamp-2 text-sm font-medium text-slate-900 hover:text-indigo-600">
                {p.title}
              </a>
              <p className="mt-0.5 truncate font-mono text-xs text-slate-500">{p.slug}</p>
            </div>
          </div>
          <div className="mt-2 flex items-center justify-between gap-2">
            <p className="min-w-0 text-xs text-slate-500">
              {p.modelName} · {formatInteger(p.views)} просм. · {p.publishedAt ? formatDate(p.publishedAt) : 'черновик'}
            </p>
            <PostActions post={p} onAction={onAction} />
          </div>
        </li>
      ))}
    </ul>
  )
}

export function AdminBlogPage() {
  useDocumentTitle('Блог — администрирование')
  const wide = useMediaQuery(TABLE_QUERY)
  const settings = useAutopostSettings()
  const stats = useAutopostStats()
  const posts = useAdminPosts()
  const [toggling, setToggling] = useState(false)
  const [publishing, setPublishing] = useState(false)
  const [action, setAction] = useState<PendingAction | null>(null)

  const refresh = () => Promise.all([stats.mutate(), posts.mutate()])

  async function toggle() {
    if (!settings.data) return
    setToggling(true)
    try {
      // The spec: the button sends the inverted isEnabled.
      await settings.mutate(await blogApi.updateSettings({ isEnabled: !settings.data.isEnabled }), { revalidate: false })
      toast.success('Настройки обновлены')
      void stats.mutate()
    } catch (err) {
      toast.error(errorMessage(err, 'Ошибка обновления'))
    } finally {
      setToggling(false)
    }
  }

  async function publishNow() {
    setPublishing(true)
    try {
      const post = await blogApi.runNow()
      toast.success(`Статья опубликована: «${post.title}»`)
      await refresh()
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось опубликовать статью'))
      void stats.mutate()
    } finally {
      setPublishing(false)
    }
  }

  async function confirmAction() {
    if (!action) return
    setAction({ ...action, busy: true })
    if (action.kind === 'regenerate') {
      try {
        await blogApi.regenerateImage(action.post.id)
        toast.success('Изображение успешно сгенерировано')
      } catch (err) {
        toast.error(errorMessage(err, 'Ошибка генерации изображения'))
      }
    } else {
      try {
        await blogApi.remove(action.post.id)
        toast.success('Статья удалена')
      } catch {
        // The spec gives no failure message here; the list below shows what is really there.
      }
    }
    setAction(null)
    await refresh()
  }

  const last = stats.data?.lastRun
  let list: ReactNode
  if (posts.data && posts.data.length > 0) list = wide ? <PostsTable posts={posts.data} onAction={setAction} /> : <PostCards posts={posts.data} onAction={setAction} />
  else if (posts.data) list = <EmptyNote>Статей пока нет — запустите автопостинг или опубликуйте первую статью сейчас.</EmptyNote>
  else if (posts.error) list = <LoadError message="Не удалось загрузить статьи." retrying={posts.isValidating} onRetry={() => void posts.mutate()} />
  else
    list = (
      <div className="px-6">
        <ListSkeleton />
      </div>
    )

  return (
    <>
      <PageHeading
        title="Блог"
        description="Автоматическая публикация статей о новых моделях каталога."
        actions={
          <Button variant="secondary" onClick={() => void publishNow()} loading={publishing}>
            {!publishing && <SparklesIcon size={16} />}
            {publishing ? 'Пишем статью…' : 'Опубликовать сейчас'}
          </Button>
        }
      />
      <div className="space-y-6">
        <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 sm:gap-4">
          <StatTile label="Всего статей" icon={<FileTextIcon size={15} />} value={stats.data ? formatInteger(stats.data.totalPosts) : '—'} testId="autopost-total" />
          <StatTile label="Опубликовано" icon={<FileTextIcon size={15} />} value={stats.data ? formatInteger(stats.data.publishedPosts) : '—'} testId="autopost-published" />
          <StatTile
            label="Последний запуск"
            className="col-span-2 sm:col-span-1"
            icon={<ClockIcon size={15} />}
            value={stats.data ? <span className="text-xl sm:text-2xl">{stats.data.lastRunTime ? formatDateTime(stats.data.lastRunTime) : 'Никогда'}</span> : '—'}
            testId="autopost-last-run"
          />
        </div>

        {settings.data ? (
          <>
            <StatusBanner settings={settings.data} nextRunTime={stats.data?.nextRunTime ?? null} onToggle={() => void toggle()} pending={toggling} />
            {settings.data.isEnabled && (
              <p role="note" className="flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 px-3.5 py-3 text-sm text-amber-900">
                <AlertCircleIcon size={16} className="mt-0.5 shrink-0 text-amber-600" />
                Пока автопостинг включён, статьи публикуются сразу, без проверки, а текст и обложка каждой оплачиваются с ключа провайдера.
              </p>
            )}
            {last?.status === 'failed' && last.error && (
              <p className="text-sm text-red-700" data-testid="autopost-last-error">
                Последний запуск завершился ошибкой: {last.error}
              </p>
            )}
            <ScheduleCard settings={settings.data} onSaved={(s) => void settings.mutate(s, { revalidate: false }).then(() => stats.mutate())} />
          </>
        ) : settings.error ? (
          <Card>
            <LoadError message="Не удалось загрузить настройки автопостинга." retrying={settings.isValidating} onRetry={() => void settings.mutate()} />
          </Card>
        ) : (
          <Card className="h-40 animate-pulse bg-slate-50" />
        )}

        <Card className="overflow-hidden">
          <div className="flex items-baseline justify-between gap-3 border-b border-slate-200 px-4 py-4 sm:px-6">
            <h2 className="text-base font-semibold text-slate-900">Статьи</h2>
            {posts.data && posts.data.length > 0 && <span className="text-sm text-slate-500 tabular-nums">{formatInteger(posts.data.length)}</span>}
          </div>
          {list}
        </Card>
      </div>
      <ConfirmDialog
        open={action !== null}
        title={action?.kind === 'delete' ? 'Удаление статьи' : 'Новая обложка'}
        message={
          action && (
            <>
              <span className="block">{action.kind === 'delete' ? 'Удалить статью?' : 'Регенерировать изображение для этой статьи?'}</span>
              <span className="mt-1 block text-sm text-slate-500">«{action.post.title}»</span>
            </>
          )
        }
        confirmLabel={action?.kind === 'delete' ? 'Удалить' : 'Сгенерировать'}
        tone={action?.kind === 'delete' ? 'danger' : 'primary'}
        loading={action?.busy}
        onConfirm={() => void confirmAction()}
        onCancel={() => setAction(null)}
      />
    </>
  )
}
