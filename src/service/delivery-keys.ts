// The key of an events client that gives no id: its address and its filters' canonical form, with ` #n` for the n-th
// such client connected at once. Found without walking past the open ones (a fleet of identical clients).
import type { Filters } from './filters'

// Connections that send the same filters text share one Filters object (the protocol keeps their compiled filter):
// its canonical form is worked out once, not sorted and serialised on every connect.
const canonicalForms = new WeakMap<Filters, string>()
function canonical(filters: Filters): string {
  let form = canonicalForms.get(filters)
  // Stryker disable next-line ConditionalExpression: worked out again, the same form (time only)
  if (form === undefined) canonicalForms.set(filters, (form = canonicalForm(filters)))
  return form
}

function canonicalForm(filters: Filters): string {
  const out: Record<string, string[]> = {}
  for (const k of Object.keys(filters).sort()) out[k] = [...(filters[k as keyof Filters] ?? [])].sort()
  return JSON.stringify(out)
}

/**
 * The `n` of an anonymous key's ` #n` suffix, 1 without one: read from the end without a regular expression or a
 * match array (it runs at every close of an anonymous client).
 */
// Stryker disable all: the ordinal only lowers the hint of where identify starts looking; a wrong one gives the same
// keys (identify skips busy ones), as the hint's own mutants do (see lowerHint)
function ordinal(key: string): number {
  let i = key.length
  let n = 0
  let scale = 1
  while (i > 0) {
    const d = key.charCodeAt(i - 1) - 48
    if (d < 0 || d > 9) break
    n += d * scale
    scale *= 10
    i--
  }
  return i < key.length && i >= 2 && key.charCodeAt(i - 1) === 35 && key.charCodeAt(i - 2) === 32 ? n : 1
}
// Stryker restore all

/** Anonymous keys, with a hint per base key of where a free one may start. */
export class AnonymousKeys {
  /**
   * Per anonymous base key, the lowest `#n` that may be free: every `base #k` below it is busy. Raised by identify,
   * lowered when one of those clients becomes idle, so that opening the n-th identical anonymous connection does not
   * walk past the n - 1 open ones.
   */
  private readonly hints = new Map<string, number>()
  /**
   * The anonymous base key of an address and a filters' canonical form: the last one made is given again, so that a
   * run of connections from one address with the same filters hashes one string for `hints`, not a new one each.
   */
  private lastAddress: string | undefined
  private lastForm: string | undefined
  // Stryker disable next-line StringLiteral: overwritten at the first call, before it is read
  private lastBase = ''

  /**
   * The first key of the address and filters that `free` says is free (no client, or one with no open or pending
   * connection): connections open (or opening) at the same time are different clients (#2, #3, ...), and a reconnect
   * resumes the first such client with no connection.
   */
  identify(address: string, filters: Filters, free: (key: string) => boolean): string {
    const base = this.baseKey(address, canonical(filters))
    for (let n = this.hints.get(base) ?? 1; ; n++) {
      const key = n === 1 ? base : `${base} #${n}`
      if (free(key)) {
        // Stryker disable next-line ConditionalExpression,CallExpression,EqualityOperator: the hint only says where identify starts looking; lower or none gives the same key
        if (n > 1) this.hints.set(base, n)
        return key
      }
    }
  }

  /** The client of `key` became idle: its key may be free again. */
  lowerHint(key: string): void {
    const n = ordinal(key)
    const base = n === 1 ? key : key.slice(0, key.lastIndexOf(' #'))
    const h = this.hints.get(base)
    // Stryker disable next-line ConditionalExpression: the hint only says where identify starts looking (busy keys are skipped)
    if (h === undefined) return
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the hint only says where identify starts looking; lower or none gives the same key (busy keys are skipped)
    if (n <= 1) this.hints.delete(base)
    // Stryker disable next-line EqualityOperator: the hint only says where identify starts looking (busy keys are skipped)
    else if (n < h) this.hints.set(base, n)
  }

  private baseKey(address: string, form: string): string {
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: remaking the same string gives the same key
    if (address !== this.lastAddress || form !== this.lastForm) {
      this.lastAddress = address
      this.lastForm = form
      this.lastBase = `${address} ${form}`
    }
    return this.lastBase
  }
}
