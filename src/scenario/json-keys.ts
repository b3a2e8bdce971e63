/** A key given twice in one object of JSON text: the key as written (with its quotes), and where its second one starts. */
export interface RepeatedKey {
  key: string
  line: number
  column: number
}

/**
 * The first key given a second time in one object of `text`, which must be valid JSON (JSON.parse read it): keys are
 * compared as JSON.parse reads them ("a" and "\u0061" are one key). Line and column count from 1, the column in UTF-16
 * code units, as the yaml library counts them.
 */
export function firstRepeatedKey(text: string): RepeatedKey | undefined {
  // One entry per open object or array: the keys seen (objects), and whether the next string is a key.
  const stack: { keys?: Set<string>; expectKey: boolean }[] = []
  let line = 1
  let lineStart = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '\n') {
      line++
      lineStart = i + 1
    } else if (c === '{') stack.push({ keys: new Set(), expectKey: true })
    else if (c === '[') stack.push({ expectKey: false })
    else if (c === '}' || c === ']') stack.pop()
    else if (c === ',') {
      const top = stack.at(-1)
      if (top?.keys) top.expectKey = true
    } else if (c === '"') {
      // A string: strings hold no raw line break in valid JSON, so the line count stays right.
      let end = i + 1
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1
      const top = stack.at(-1)
      if (top?.keys && top.expectKey) {
        const raw = text.slice(i, end + 1)
        const key = JSON.parse(raw) as string
        if (top.keys.has(key)) return { key: raw, line, column: i - lineStart + 1 }
        top.keys.add(key)
        top.expectKey = false
      }
      i = end
    }
  }
  return undefined
}
