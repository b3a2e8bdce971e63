import { readFileSync, readdirSync } from 'node:fs'
import { expect, test } from 'vitest'

// A code block right after `<!-- example: PATH -->` in docs/ must equal the file at PATH, which is a test that runs.
const docs = [...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), 'README.md']
const blocks = docs.flatMap((doc) => {
  const text = readFileSync(doc, 'utf8')
  return [...text.matchAll(/<!-- example: (\S+) -->\s*```\w*\n([\s\S]*?)```/g)].map((m) => ({ doc, path: m[1], code: m[2] }))
})

test('docs hold examples that tests run', () => {
  expect(blocks.length).toBeGreaterThan(0)
})

for (const { doc, path, code } of blocks) {
  test(`${doc} shows ${path} as it is`, () => {
    expect(code.trim()).toBe(readFileSync(path, 'utf8').trim())
  })
}
