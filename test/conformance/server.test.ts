import { runConformance } from './suite'
import { probeWithWs } from '../support/ws-probe'
import type { WayIn } from '../support/way-in'

/** The real server on 127.0.0.1:0, driven by real `fetch` and `ws` clients. */
export const serverWay: WayIn = {
  name: 'server',
  async start(fake) {
    const s = await fake.listen({ port: 0 })
    return {
      baseUrl: s.url,
      wsBaseUrl: s.wsUrl,
      fetch: (path, init) => fetch(s.url + path, init),
      connect: (path) => probeWithWs(s.wsUrl + path),
      close: () => s.close(),
    }
  },
}

runConformance(serverWay)
