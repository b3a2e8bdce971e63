// Go's regexp (RE2 syntax) for Docker's `name` filter, matched in linear time: a Thompson NFA simulated over the
// text, so no pattern can backtrack (JavaScript's RegExp can: `^(a+)+$` against 28 characters blocked the loop 1 s).

/** The most NFA states one pattern may compile to; beyond it the caller refuses the pattern (cost is text × states). */
export const GO_REGEXP_MAX_STATES = 1000
/** Go's limits: a repeat count above 1000 and nesting deeper than 1000 do not compile. */
const MAX_REPEAT = 1000
const MAX_DEPTH = 1000

/** The pattern is not valid Go regexp syntax (Docker skips it: it matches nothing). */
export class GoRegexpSyntaxError extends Error {}
/** The pattern is valid but compiles to more than {@link GO_REGEXP_MAX_STATES} states. */
export class GoRegexpTooLargeError extends Error {}

type Pred = (c: number) => boolean
type Assert = 'bot' | 'eot' | 'bol' | 'eol' | 'wb' | 'nwb'
type Node =
  | { t: 'char'; test: Pred }
  | { t: 'assert'; kind: Assert }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number }
interface Flags {
  i: boolean
  m: boolean
  s: boolean
}

const isWord = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
const isDigit = (c: number) => c >= 48 && c <= 57
const isSpace = (c: number) => c === 9 || c === 10 || c === 12 || c === 13 || c === 32
const not = (p: Pred): Pred => (c) => !p(c)
const POSIX: Record<string, Pred> = {
  alnum: (c) => isWord(c) && c !== 95,
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  ascii: (c) => c <= 0x7f,
  blank: (c) => c === 9 || c === 32,
  cntrl: (c) => c <= 0x1f || c === 0x7f,
  digit: isDigit,
  graph: (c) => c >= 0x21 && c <= 0x7e,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 0x20 && c <= 0x7e,
  punct: (c) => (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e),
  space: (c) => isSpace(c) || c === 11,
  upper: (c) => c >= 65 && c <= 90,
  word: isWord,
  xdigit: (c) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
}
const PERL: Record<string, Pred> = { d: isDigit, D: not(isDigit), s: isSpace, S: not(isSpace), w: isWord, W: not(isWord) }

/** Go's simple case folding, close enough for names: a code point matches if it, its lower or its upper case does. */
function fold(p: Pred): Pred {
  return (c) => {
    if (p(c)) return true
    const s = String.fromCodePoint(c)
    const lo = s.toLowerCase().codePointAt(0)!
    const up = s.toUpperCase().codePointAt(0)!
    return (lo !== c && p(lo)) || (up !== c && p(up))
  }
}

/** `\pL`, `\p{Greek}`: Unicode classes, tested one code point at a time (no backtracking possible). */
function unicodeClass(name: string): Pred {
  if (name === 'Any') return () => true
  for (const source of [`^\\p{${name}}$`, `^\\p{Script=${name}}$`]) {
    try {
      const re = new RegExp(source, 'u')
      return (c) => re.test(String.fromCodePoint(c))
    } catch {
      // try the next spelling
    }
  }
  throw new GoRegexpSyntaxError(`invalid character class range: \\p{${name}}`)
}

class Parser {
  private pos = 0
  private depth = 0
  private readonly src: number[]
  constructor(src: number[]) {
    this.src = src
  }

  parse(): Node {
    const node = this.alt({ i: false, m: false, s: false })
    if (this.pos < this.src.length) throw new GoRegexpSyntaxError('unexpected )')
    return node
  }

  private peek(k = 0) {
    return this.src[this.pos + k]
  }
  private is(ch: string, k = 0) {
    return this.src[this.pos + k] === ch.codePointAt(0)
  }

  private alt(flags: Flags): Node {
    if (++this.depth > MAX_DEPTH) throw new GoRegexpSyntaxError('expression nests too deeply')
    const items = [this.concat(flags)]
    while (this.is('|')) {
      this.pos++
      items.push(this.concat(flags))
    }
    this.depth--
    return items.length === 1 ? items[0] : { t: 'alt', items }
  }

  private concat(flags: Flags): Node {
    const items: Node[] = []
    let repeated = false
    while (this.pos < this.src.length && !this.is('|') && !this.is(')')) {
      const rep = this.repeat()
      if (rep) {
        if (items.length === 0 || repeated) throw new GoRegexpSyntaxError(items.length === 0 ? 'missing argument to repetition operator' : 'invalid nested repetition operator')
        items.push({ t: 'rep', node: items.pop()!, ...rep })
        repeated = true
        continue
      }
      repeated = false
      const atom = this.atom(flags)
      if (atom) items.push(atom)
    }
    return items.length === 1 ? items[0] : { t: 'cat', items }
  }

  /** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` with an optional lazy `?` (which does not change whether a text matches). */
  private repeat(): { min: number; max: number } | undefined {
    let r: { min: number; max: number } | undefined
    if (this.is('*')) r = { min: 0, max: -1 }
    else if (this.is('+')) r = { min: 1, max: -1 }
    else if (this.is('?')) r = { min: 0, max: 1 }
    if (r) this.pos++
    else if (this.is('{')) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...this.src.slice(this.pos, this.pos + 12)))
      if (!m) return undefined // a `{` that starts no repeat is a literal, as in Go
      const min = Number(m[1])
      const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3])
      if (min > MAX_REPEAT || max > MAX_REPEAT || (max !== -1 && max < min)) throw new GoRegexpSyntaxError(`invalid repeat count: ${m[0]}`)
      this.pos += m[0].length
      r = { min, max }
    } else return undefined
    if (this.is('?')) this.pos++
    return r
  }

  private atom(flags: Flags): Node | undefined {
    const c = this.src[this.pos++]
    const ch = String.fromCodePoint(c)
    if (ch === '(') return this.group(flags)
    if (ch === '[') return { t: 'char', test: this.klass(flags) }
    if (ch === '.') return { t: 'char', test: flags.s ? () => true : (x) => x !== 10 }
    if (ch === '^') return { t: 'assert', kind: flags.m ? 'bol' : 'bot' }
    if (ch === '$') return { t: 'assert', kind: flags.m ? 'eol' : 'eot' }
    if (ch === '\\') return this.escape(flags)
    return this.literal(c, flags)
  }

  private literal(c: number, flags: Flags): Node {
    return { t: 'char', test: flags.i ? fold((x) => x === c) : (x) => x === c }
  }

  private group(outer: Flags): Node | undefined {
    const flags = { ...outer }
    if (this.is('?')) {
      const rest = String.fromCodePoint(...this.src.slice(this.pos + 1, this.pos + 4))
      if (/^(=|!|<=|<!)/.test(rest)) throw new GoRegexpSyntaxError('invalid or unsupported Perl syntax: lookaround')
      if (rest.startsWith('P=')) throw new GoRegexpSyntaxError('invalid or unsupported Perl syntax: backreference')
      if (rest.startsWith('P<') || rest.startsWith('<')) {
        const close = this.src.indexOf(62 /* > */, this.pos)
        const name = close < 0 ? '' : String.fromCodePoint(...this.src.slice(this.pos + (rest.startsWith('P') ? 3 : 2), close))
        if (!/^\w+$/.test(name)) throw new GoRegexpSyntaxError('invalid named capture')
        this.pos = close + 1
      } else {
        // Flags: `(?i)`, `(?-s:...)`; `(?i)` applies to the rest of the enclosing group.
        this.pos++
        let on = true
        let pending = false
        for (;;) {
          const f = this.peek() === undefined ? '' : String.fromCodePoint(this.peek()!)
          this.pos++
          if (f === 'i' || f === 'm' || f === 's') flags[f] = on
          else if (f === 'U') {
            // ungreedy: does not change whether a text matches
          } else if (f === '-' && on) {
            on = false
            pending = true
            continue
          } else if ((f === ')' || f === ':') && !pending) {
            if (f === ')') {
              Object.assign(outer, flags)
              return undefined
            }
            break
          } else throw new GoRegexpSyntaxError('invalid or unsupported Perl syntax')
          pending = false
        }
      }
    }
    const node = this.alt(flags)
    if (!this.is(')')) throw new GoRegexpSyntaxError('missing closing )')
    this.pos++
    return node
  }

  private escape(flags: Flags): Node {
    const c = this.peek()
    if (c === undefined) throw new GoRegexpSyntaxError('trailing backslash at end of expression')
    const ch = String.fromCodePoint(c)
    const assert = ({ A: 'bot', z: 'eot', b: 'wb', B: 'nwb' } as const)[ch as 'A']
    if (assert) {
      this.pos++
      return { t: 'assert', kind: assert }
    }
    if (ch === 'Q') {
      this.pos++
      let end = this.pos
      while (end < this.src.length && !(this.src[end] === 92 && this.src[end + 1] === 69)) end++
      const items = this.src.slice(this.pos, end).map((x) => this.literal(x, flags))
      this.pos = Math.min(end + 2, this.src.length)
      return { t: 'cat', items }
    }
    const test = this.classEscape(flags)
    return { t: 'char', test: flags.i ? fold(test) : test }
  }

  /** An escape that stands for one code point or a class; `pos` is just after the backslash. */
  private classEscape(flags: Flags): Pred {
    const c = this.src[this.pos++]
    const ch = String.fromCodePoint(c)
    if (PERL[ch]) return PERL[ch]
    if (ch === 'p' || ch === 'P') {
      let name: string
      if (this.is('{')) {
        const close = this.src.indexOf(125 /* } */, this.pos)
        if (close < 0) throw new GoRegexpSyntaxError('invalid character class range')
        name = String.fromCodePoint(...this.src.slice(this.pos + 1, close))
        this.pos = close + 1
      } else {
        if (this.peek() === undefined) throw new GoRegexpSyntaxError('invalid character class range')
        name = String.fromCodePoint(this.src[this.pos++])
      }
      const negate = (ch === 'P') !== name.startsWith('^')
      const p = unicodeClass(name.replace(/^\^/, ''))
      return negate ? not(p) : p
    }
    const cp = this.codePointEscape(c, flags)
    return (x) => x === cp
  }

  private codePointEscape(c: number, _flags: Flags): number {
    const ch = String.fromCodePoint(c)
    const simple = ({ a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 } as Record<string, number>)[ch]
    if (simple !== undefined) return simple
    if (ch >= '1' && ch <= '9' && !(ch <= '7' && this.peek() !== undefined && this.peek()! >= 48 && this.peek()! <= 55)) {
      throw new GoRegexpSyntaxError(`invalid escape sequence: \\${ch} (backreferences are not supported)`)
    }
    if (ch >= '0' && ch <= '7') {
      let v = c - 48
      for (let k = 0; k < 2 && this.peek() !== undefined && this.peek()! >= 48 && this.peek()! <= 55; k++) v = v * 8 + (this.src[this.pos++] - 48)
      return v
    }
    if (ch === 'x') {
      const text = String.fromCodePoint(...this.src.slice(this.pos, this.pos + 10))
      const m = /^\{([0-9a-fA-F]{1,6})\}/.exec(text) ?? /^([0-9a-fA-F]{2})/.exec(text)
      const v = m ? parseInt(m[1], 16) : NaN
      if (!m || v > 0x10ffff) throw new GoRegexpSyntaxError('invalid escape sequence: \\x')
      this.pos += m[0].length
      return v
    }
    // Any ASCII punctuation may be escaped; letters, digits and non-ASCII may not.
    if (c < 0x80 && !isWord(c)) return c
    throw new GoRegexpSyntaxError(`invalid escape sequence: \\${ch}`)
  }

  /** `[...]`, `[^...]`: ranges, escapes, Perl and POSIX classes; `pos` is just after the `[`. */
  private klass(flags: Flags): Pred {
    const preds: Pred[] = []
    const negate = this.is('^')
    if (negate) this.pos++
    let first = true
    for (;;) {
      const c = this.peek()
      if (c === undefined) throw new GoRegexpSyntaxError('missing closing ]')
      if (c === 93 /* ] */ && !first) {
        this.pos++
        break
      }
      first = false
      if (c === 91 /* [ */ && this.is(':', 1)) {
        let close = this.pos + 2
        while (close < this.src.length && !(this.src[close] === 58 && this.src[close + 1] === 93)) close++
        const name = String.fromCodePoint(...this.src.slice(this.pos + 2, close))
        const p = close < this.src.length ? POSIX[name.replace(/^\^/, '')] : undefined
        if (p) {
          preds.push(name.startsWith('^') ? not(p) : p)
          this.pos = close + 2
          continue
        }
      }
      let lo: number
      if (c === 92 /* \ */) {
        this.pos++
        const e = this.peek()
        if (e === undefined) throw new GoRegexpSyntaxError('trailing backslash at end of expression')
        const ech = String.fromCodePoint(e)
        if (PERL[ech] || ech === 'p' || ech === 'P') {
          preds.push(this.classEscape(flags))
          continue
        }
        this.pos++
        lo = this.codePointEscape(e, flags)
      } else {
        lo = c
        this.pos++
      }
      let hi = lo
      if (this.is('-') && this.peek(1) !== undefined && !this.is(']', 1)) {
        this.pos++
        const h = this.src[this.pos++]
        if (h === 92) {
          const e = this.src[this.pos++]
          if (e === undefined) throw new GoRegexpSyntaxError('trailing backslash at end of expression')
          hi = this.codePointEscape(e, flags)
        } else hi = h
        if (hi < lo) throw new GoRegexpSyntaxError('invalid character class range')
      }
      const [a, b] = [lo, hi]
      preds.push((x) => x >= a && x <= b)
    }
    let p: Pred = (x) => preds.some((q) => q(x))
    if (flags.i) p = fold(p)
    return negate ? not(p) : p
  }
}

const CHAR = 0
const SPLIT = 1
const ASSERT = 2
const MATCH = 3
type State = { op: typeof CHAR; test: Pred; next: number } | { op: typeof SPLIT; a: number; b: number } | { op: typeof ASSERT; kind: Assert; next: number } | { op: typeof MATCH }

function compile(root: Node): { states: State[]; start: number } {
  const states: State[] = [{ op: MATCH }]
  const add = (s: State) => {
    if (states.length >= GO_REGEXP_MAX_STATES) throw new GoRegexpTooLargeError(`compiles to more than ${GO_REGEXP_MAX_STATES} states`)
    states.push(s)
    return states.length - 1
  }
  // Built back to front: each node is compiled with the state that follows it.
  const build = (n: Node, next: number): number => {
    switch (n.t) {
      case 'char':
        return add({ op: CHAR, test: n.test, next })
      case 'assert':
        return add({ op: ASSERT, kind: n.kind, next })
      case 'cat':
        for (let k = n.items.length - 1; k >= 0; k--) next = build(n.items[k], next)
        return next
      case 'alt': {
        let s = build(n.items.at(-1)!, next)
        for (let k = n.items.length - 2; k >= 0; k--) s = add({ op: SPLIT, a: build(n.items[k], next), b: s })
        return s
      }
      case 'rep': {
        let s = next
        if (n.max === -1) {
          const loop = add({ op: SPLIT, a: -1, b: next })
          ;(states[loop] as { a: number }).a = build(n.node, loop)
          s = loop
        } else {
          for (let k = n.min; k < n.max; k++) s = add({ op: SPLIT, a: build(n.node, s), b: next })
        }
        for (let k = 0; k < n.min; k++) s = build(n.node, s)
        return s
      }
    }
  }
  const start = build(root, 0)
  return { states, start }
}

/** A compiled Go regexp: `test(text)` is `regexp.MatchString` (unanchored), in time linear in the text. */
export interface GoRegexp {
  test(text: string): boolean
}

/**
 * Compiles `pattern` with Go's regexp syntax (RE2). Throws {@link GoRegexpSyntaxError} where Go's `regexp.Compile`
 * fails (backreferences, lookaround, bad escapes...) and {@link GoRegexpTooLargeError} past the state budget.
 */
export function compileGoRegexp(pattern: string): GoRegexp {
  const src = Array.from(pattern, (ch) => ch.codePointAt(0)!)
  const { states, start } = compile(new Parser(src).parse())
  const mark = new Int32Array(states.length).fill(-1)
  const stack: number[] = []
  let gen = 0
  // Adds `s` and every state reachable from it by empty steps at position `i` of `cps`; true on reaching the match.
  const addAll = (list: number[], s: number, cps: number[], i: number): boolean => {
    stack.push(s)
    while (stack.length) {
      const k = stack.pop()!
      if (mark[k] === gen) continue
      mark[k] = gen
      const st = states[k]
      if (st.op === MATCH) {
        stack.length = 0
        return true
      }
      if (st.op === SPLIT) stack.push(st.b, st.a)
      else if (st.op === ASSERT) {
        if (holds(st.kind, cps, i)) stack.push(st.next)
      } else list.push(k)
    }
    return false
  }
  return {
    test(text) {
      const cps = Array.from(text, (ch) => ch.codePointAt(0)!)
      gen++
      let current: number[] = []
      if (addAll(current, start, cps, 0)) return true
      for (let i = 0; i < cps.length; i++) {
        gen++
        const next: number[] = []
        for (const k of current) {
          const st = states[k] as { test: Pred; next: number }
          if (st.test(cps[i]) && addAll(next, st.next, cps, i + 1)) return true
        }
        // Unanchored: a match may start at every position.
        if (addAll(next, start, cps, i + 1)) return true
        current = next
      }
      return false
    },
  }
}

function holds(kind: Assert, cps: number[], i: number): boolean {
  const prev = i > 0 ? cps[i - 1] : -1
  const next = i < cps.length ? cps[i] : -1
  switch (kind) {
    case 'bot':
      return i === 0
    case 'eot':
      return i === cps.length
    case 'bol':
      return i === 0 || prev === 10
    case 'eol':
      return i === cps.length || next === 10
    case 'wb':
    case 'nwb': {
      const b = (prev >= 0 && isWord(prev)) !== (next >= 0 && isWord(next))
      return kind === 'wb' ? b : !b
    }
  }
}
