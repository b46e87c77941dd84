// YooKassa sends notifications only from these addresses (reference/protocols.md §3.5).
export const YOOKASSA_RANGES = ['185.71.76.0/27', '185.71.77.0/27', '77.75.153.0/25', '77.75.156.11/32', '77.75.156.35/32', '77.75.154.128/25', '2a02:5180::/32']

/** An address as a bigint plus its width (32 or 128 bits); null when it is not an IP address. */
function parse(ip: string): { value: bigint; bits: 32 | 128 } | null {
  const v4 = ip.replace(/^::ffff:/i, '')
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(v4)) {
    const parts = v4.split('.').map(Number)
    if (parts.some((n) => n > 255)) return null
    return { value: parts.reduce((acc, n) => (acc << 8n) | BigInt(n), 0n), bits: 32 }
  }
  if (!/^[0-9a-f:]+$/i.test(ip) || ip.split('::').length > 2) return null
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined]
  const h = head ? head.split(':') : []
  const t = tail ? tail.split(':') : []
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t]
  if (groups.length !== 8 || groups.some((g) => g.length === 0 || g.length > 4)) return null
  return { value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n), bits: 128 }
}

export function inRange(ip: string, cidr: string): boolean {
  const [base, len] = cidr.split('/')
  const a = parse(ip)
  const b = parse(base!)
  if (!a || !b || a.bits !== b.bits) return false
  const shift = BigInt(a.bits - Number(len ?? a.bits))
  return a.value >> shift === b.value >> shift
}

export const isYooKassaAddress = (ip: string) => YOOKASSA_RANGES.some((r) => inRange(ip, r))
