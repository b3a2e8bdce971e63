/**
 * The text of the error Go's `encoding/json` gives for input that is not JSON (json.Unmarshal's SyntaxError), so that
 * a Docker route refusing bad JSON says what the daemon says: `invalid character 'b' looking for beginning of object
 * key string`, `unexpected end of JSON input`. A small port of the states of Go's scanner (encoding/json/scanner.go)
 * that those messages name; undefined when `text` is JSON.
 */
export function goJsonError(text: string): string | undefined {
  let i = 0
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++
  }
  // Go's quoteChar: strconv.Quote of the character between single quotes.
  const quote = (c: string) => {
    if (c === "'") return "'\\''"
    if (c === '"') return `'"'`
    const named: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\\': '\\\\' }
    if (named[c]) return `'${named[c]}'`
    const code = c.charCodeAt(0)
    return code < 0x20 || code === 0x7f ? `'\\x${code.toString(16).padStart(2, '0')}'` : `'${c}'`
  }
  class Fail extends Error {}
  const fail = (context: string): never => {
    throw new Fail(i >= text.length ? 'unexpected end of JSON input' : `invalid character ${quote(text[i])} ${context}`)
  }
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++
      if (text[i] !== word[k]) fail(`in literal ${word} (expecting '${word[k]}')`)
    }
    i++
  }
  const string = () => {
    i++
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        i++
        if (i < text.length && !'"\\/bfnrtu'.includes(text[i])) fail('in string escape code')
      } else if (text[i] < ' ') fail('in string literal')
      i++
    }
    if (i >= text.length) fail('')
    i++
  }
  const number = () => {
    if (text[i] === '-') i++
    if (!/[0-9]/.test(text[i] ?? '')) fail('in numeric literal')
    if (text[i] === '0') i++
    else while (/[0-9]/.test(text[i] ?? '')) i++
    if (text[i] === '.') {
      i++
      if (!/[0-9]/.test(text[i] ?? '')) fail('after decimal point in numeric literal')
      while (/[0-9]/.test(text[i] ?? '')) i++
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++
      if (text[i] === '+' || text[i] === '-') i++
      if (!/[0-9]/.test(text[i] ?? '')) fail('in exponent of numeric literal')
      while (/[0-9]/.test(text[i] ?? '')) i++
    }
  }
  const value = (): void => {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      ws()
      if (text[i] === '}') return void i++
      for (;;) {
        ws()
        if (text[i] !== '"') fail('looking for beginning of object key string')
        string()
        ws()
        if (text[i] !== ':') fail('after object key')
        i++
        value()
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === '}') return void i++
        fail('after object key:value pair')
      }
    }
    if (c === '[') {
      i++
      ws()
      if (text[i] === ']') return void i++
      for (;;) {
        value()
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === ']') return void i++
        fail('after array element')
      }
    }
    if (c === '"') return string()
    if (c === 't') return literal('true')
    if (c === 'f') return literal('false')
    if (c === 'n') return literal('null')
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number()
    fail('looking for beginning of value')
  }
  try {
    value()
    ws()
    if (i < text.length) fail('after top-level value')
    return undefined
  } catch (error) {
    if (error instanceof Fail) return error.message
    throw error
  }
}

/** A JSON value's kind as Go's encoding/json names it in an UnmarshalTypeError (`json: cannot unmarshal array into ...`). */
export const goJsonKind = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v)
