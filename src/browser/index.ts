// The `dockside/browser` entry: the fake (model, clock, protocol) and its MSW handlers, built for browsers
// (tsup.config.ts, platform 'browser'). A page runs a fake and answers its own fetch and WebSocket through
// `setupWorker(...docksideHandlers(fake))`. Listening on a port and the in-process hooks are Node-only. See docs/msw.md.
export * from '../index'
export { docksideHandlers, type DocksideHandlersOptions, type MswHandshake } from '../transports/msw/index'
