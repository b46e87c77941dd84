// Icons of the landing's cards (Lucide style, like web/components/icons), looked up by name.
import type { ComponentType, ReactNode } from 'react'
import { Icon as BaseIcon, ChartIcon, ChatIcon, ClockIcon, CoinsIcon, EyeIcon, type IconProps, KeyIcon, TerminalIcon, UsersIcon, WalletIcon } from '../../components/icons'

/** The shared icon frame at this feature's default size. */
const Icon = ({ size = 20, ...props }: IconProps & { children: ReactNode }) => <BaseIcon size={size} {...props} />

const BracesIcon = (p: IconProps) => (
  <Icon {...p}>
    <path d="M8 3H7a2 2 0 0 0-2 2v5a2 2 0 0 1-2 2 2 2 0 0 1 2 2v5a2 2 0 0 0 2 2h1" />
    <path d="M16 21h1a2 2 0 0 0 2-2v-5a2 2 0 0 1 2-2 2 2 0 0 1-2-2V5a2 2 0 0 0-2-2h-1" />
  </Icon>
)
const PaperclipIcon = (p: IconProps) => (
  <Icon {...p}>
    <path d="m21.44 11.05-9.19 9.19a6 6 0 0 1-8.49-8.49l8.57-8.57A4 4 0 1 1 18 8.84l-8.59 8.57a2 2 0 0 1-2.83-2.83l8.49-8.48" />
  </Icon>
)
const SlidersIcon = (p: IconProps) => (
  <Icon {...p}>
    <path d="M4 21v-7M4 10V3M12 21v-9M12 8V3M20 21v-5M20 12V3M1 14h6M9 8h6M17 16h6" />
  </Icon>
)
const FlaskIcon = (p: IconProps) => (
  <Icon {...p}>
    <path d="M10 2v7.31L4.2 19.5A1.5 1.5 0 0 0 5.5 22h13a1.5 1.5 0 0 0 1.3-2.5L14 9.31V2" />
    <path d="M8.5 2h7M7 16h10" />
  </Icon>
)
const CapIcon = (p: IconProps) => (
  <Icon {...p}>
    <path d="M22 10 12 5 2 10l10 5 10-5Z" />
    <path d="M6 12v5c3 3 9 3 12 0v-5" />
  </Icon>
)
const PenIcon = (p: IconProps) => (
  <Icon {...p}>
    <path d="M12 20h9" />
    <path d="M16.5 3.5a2.12 2.12 0 0 1 3 3L7 19l-4 1 1-4Z" />
  </Icon>
)
const ImageIcon = (p: IconProps) => (
  <Icon {...p}>
    <rect x="3" y="3" width="18" height="18" rx="2" />
    <circle cx="9" cy="9" r="2" />
    <path d="m21 15-3.09-3.09a2 2 0 0 0-2.82 0L6 21" />
  </Icon>
)
const GlobeIcon = (p: IconProps) => (
  <Icon {...p}>
    <circle cx="12" cy="12" r="10" />
    <path d="M2 12h20" />
    <path d="M12 2a15.3 15.3 0 0 1 4 10 15.3 15.3 0 0 1-4 10 15.3 15.3 0 0 1-4-10 15.3 15.3 0 0 1 4-10z" />
  </Icon>
)

const ICONS: Record<string, ComponentType<IconProps>> = {
  api: BracesIcon,
  price: CoinsIcon,
  file: PaperclipIcon,
  sliders: SlidersIcon,
  history: ClockIcon,
  chart: ChartIcon,
  key: KeyIcon,
  wallet: WalletIcon,
  code: TerminalIcon,
  flask: FlaskIcon,
  cap: CapIcon,
  team: UsersIcon,
  chat: ChatIcon,
  pen: PenIcon,
  eye: EyeIcon,
  image: ImageIcon,
  globe: GlobeIcon,
}

export function CardIcon({ name, size = 20 }: { name: string; size?: number }) {
  const Component = ICONS[name] ?? BracesIcon
  return <Component size={size} />
}
