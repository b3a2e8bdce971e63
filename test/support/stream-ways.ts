import type { Dockside } from '../../src/index'

/** One way in for the events-stream regressions: where its HTTP and websocket addresses are, and how it goes away. */
export interface StreamWay {
  name: string
  start(fake: Dockside): Promise<{ base: string; wsBase: string; close(): Promise<void> }>
}

/** The real server on 127.0.0.1 and the in-process hooks (the MSW way has its own file: it patches the same globals). */
export const streamWays: StreamWay[] = [
  {
    name: 'server',
    async start(fake) {
      const s = await fake.listen({ port: 0 })
      return { base: s.url, wsBase: s.wsUrl, close: () => s.close() }
    },
  },
  {
    name: 'in-process',
    async start(fake) {
      const hooks = await fake.intercept({ region: 'us-west-1' })
      return { base: 'https://us-west-1.hyper.test', wsBase: 'wss://us-west-1.hyper.test:443', close: async () => hooks.restore() }
    },
  },
]

/** How a streamed response ended, as its client saw it. */
export interface StreamOutcome {
  how: 'end' | 'error'
  text: string
  error?: unknown
}

/** Reads a fetch response's body to its end in the background: how it ended (a clean end or an error) and its text. */
export function readToEnd(res: Response): Promise<StreamOutcome> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  return (async (): Promise<StreamOutcome> => {
    try {
      for (;;) {
        const r = await reader.read()
        if (r.done) return { how: 'end', text }
        text += decoder.decode(r.value, { stream: true })
      }
    } catch (error) {
      return { how: 'error', text, error }
    }
  })()
}
