// A page of a front-end team's dashboard, bundled by msw-worker.test.ts: a fake runs in the page, MSW's service worker
// answers the page's own fetch, MSW's WebSocket answers its sockets. Nothing reaches the network.
import { createDockside, docksideHandlers, loadScenario } from 'dockside/browser'
import { setupWorker } from 'msw/browser'

const fake = createDockside({ seed: 5 })
const worker = setupWorker(...docksideHandlers(fake, { region: 'us-west-1' }))
await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, quiet: true, onUnhandledFrame: 'error' })

const API = 'https://us-west-1.hyper.test'

/** The dashboard's events feed: every frame, every socket event, and how it closed. */
function watch(path: string) {
  const ws = new WebSocket(`wss://us-west-1.hyper.test${path}`)
  const seen = { events: [] as string[], frames: [] as { Action: string; id: string }[] }
  const opened = new Promise<void>((resolve) => ws.addEventListener('open', () => resolve()))
  const closed = new Promise<{ code: number; reason: string; wasClean: boolean }>((resolve) =>
    ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason, wasClean: e.wasClean })),
  )
  ws.addEventListener('open', () => seen.events.push('open'))
  ws.addEventListener('error', () => seen.events.push('error'))
  ws.addEventListener('message', (m) => {
    seen.events.push('message')
    seen.frames.push(JSON.parse(String(m.data)))
  })
  ws.addEventListener('close', (e) => seen.events.push(`close ${e.code}`))
  return { ws, seen, opened, closed }
}

/** The dashboard's push button: POST the push, and hand each chunk of progress to `onChunk` as it arrives. */
async function push(name: string, tag: string, onChunk: (text: string) => Promise<void>) {
  const res = await fetch(`${API}/v1.47/images/${name}/push?tag=${tag}`, { method: 'POST' })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  for (let r = await reader.read(); !r.done; r = await reader.read()) await onChunk(decoder.decode(r.value, { stream: true }))
  return { status: res.status, contentType: res.headers.get('content-type') }
}

Object.assign(globalThis, { dockside: { fake, watch, push, API, worker, createDockside, docksideHandlers, loadScenario } })
