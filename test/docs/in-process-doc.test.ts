import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'

it('docs/in-process.md shows the reconnecting-client example exactly as the test that runs', () => {
  const doc = readFileSync(new URL('../../docs/in-process.md', import.meta.url), 'utf8')
  const file = readFileSync(new URL('./reconnecting-client.test.ts', import.meta.url), 'utf8')
  const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1])
  // The only difference: the doc imports the published entry, the test imports the source.
  expect(blocks).toContain(file.replace("'../../src/vitest/index'", "'dockside/vitest'"))
})
