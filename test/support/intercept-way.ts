import type { WayIn } from './way-in'
import { probeWithGlobalWs } from './global-ws-probe'

/** The in-process hooks: real `fetch` and the global `WebSocket` on the real service's addresses, no port. */
export const interceptWay: WayIn = {
  name: 'in-process',
  async start(fake) {
    const hooks = await fake.intercept({ region: 'us-west-1' })
    return {
      baseUrl: 'https://us-west-1.hyper.test',
      wsBaseUrl: 'wss://us-west-1.hyper.test:443',
      fetch: (path, init) => fetch(`https://us-west-1.hyper.test${path}`, init),
      connect: (path) => probeWithGlobalWs(`wss://us-west-1.hyper.test:443${path}`),
      close: async () => hooks.restore(),
    }
  },
}
