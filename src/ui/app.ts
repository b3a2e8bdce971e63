// The dashboard (served at /_dockside/ui): preact + htm, bundled into dist/ui/app.js at build time. State arrives
// pushed over GET /_dockside/live (feed.ts); the panels are views.ts; every action is a documented admin API call.
import { render } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
// Bundled by esbuild into ui/app.css beside ui/app.js.
import './app.css'
import { useFeed, useNow } from './feed'
import { html, type Act } from './shared'
import { Banner, Captions, Clients, ClockBar, Containers, continueStory, Events, Faults, Pushes, RateLimit } from './views'

function App() {
  const { state, received, events, filter, filterError, link, applyFilter } = useFeed()
  const [log, setLog] = useState<string[]>([])
  const live = link.kind === 'live'
  const now = useNow(state?.clock, received, live)
  const stateRef = useRef(state)
  stateRef.current = state

  const act: Act = (label, fn) => {
    fn().then(
      (value) => {
        const v = value as { paused?: unknown; hint?: unknown; now?: unknown; continued?: unknown } | undefined
        const line =
          // An advance a pause stopped answers `paused: true` with a `hint` (a clock's answer has `paused` alone).
          v?.paused === true && typeof v.hint === 'string'
            ? `⏸ ${label}: ${v.hint}${typeof v.now === 'string' ? ` (clock at ${v.now.slice(11, 19)} UTC)` : ''}`
            : v?.continued === false
              ? `✗ ${label}: nothing was paused`
              : `✓ ${label}`
        setLog((l) => [line, ...l].slice(0, 5))
      },
      (error: Error) => setLog((l) => [`✗ ${label}: ${error.message}`, ...l].slice(0, 5)),
    )
  }
  const actRef = useRef(act)
  actRef.current = act

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const tag = (e.target as HTMLElement).tagName
      if (tag === 'INPUT' || tag === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return
      const clock = stateRef.current?.clock
      if (e.key === 'c' && clock?.paused && clock.pausedBy === 'step') continueStory(actRef.current)
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [])

  // A short blip (the feed reopening after a reset) freezes the numbers but shows no banner.
  const showBanner = !live && performance.now() - link.since > 500
  useEffect(() => void document.body.classList.toggle('stale', state !== undefined && !live), [live, state === undefined])

  const status = live ? 'live' : link.kind === 'connecting' ? 'connecting…' : 'disconnected'
  if (!state) return html`<main><h1>dockside</h1><p role="status" data-testid="status">${status}${link.reason ? `: ${link.reason}` : ''}</p></main>`
  return html`<header>
      <h1>dockside <span class="muted small">seed ${state.seed} · <span data-testid="status" class=${live ? '' : 'bad'}>${status}</span></span></h1>
      <${ClockBar} state=${state} now=${now} act=${act} />
    </header>
    ${showBanner && html`<${Banner} link=${link} state=${state} />`}
    <${Captions} state=${state} act=${act} />
    <p class="actions-log" role="log" aria-live="polite" aria-label="Results of your actions">${log.map((l) => html`<span>${l}</span>`)}</p>
    <main class="grid">
      <${Containers} state=${state} now=${now} act=${act} />
      <${Events} events=${events} now=${now} filter=${filter} setFilter=${applyFilter} error=${filterError} />
      <${Pushes} state=${state} />
      <${Faults} state=${state} act=${act} />
      <${Clients} state=${state} />
      <${RateLimit} state=${state} />
    </main>`
}

render(html`<${App} />`, document.getElementById('app')!)
