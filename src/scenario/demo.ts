import type { Scenario } from './scenario'
import { frozenValid } from './schema'

/**
 * The built-in demo: containers starting and stopping on a loop, images ready to push. Frozen and known valid (a test
 * checks it against the schema), so `npm start` skips loading ajv.
 */
export const demoScenario: Scenario = frozenValid<Scenario>({
  seed: 42,
  registries: [
    { host: 'localhost:5000' },
    { host: 'registry.example.com', username: 'demo', password: 'demo-password' },
  ],
  images: [
    { name: 'localhost:5000/team/app', tags: ['1.0', 'latest'], layers: [2_500_000, 9_000_000, 18_500_000] },
    { name: 'registry.example.com/team/api:2.3', layers: 4 },
    { name: 'nginx:1.27', layers: 3 },
    { name: 'busybox:latest', layers: 1 },
  ],
  containers: [
    { name: 'web', image: 'nginx:1.27', labels: { app: 'web', tier: 'frontend' }, instanceType: 's4', running: true },
    { name: 'api', image: 'registry.example.com/team/api:2.3', labels: { app: 'api', tier: 'backend' }, instanceType: 'm1', running: true },
    { name: 'worker', image: 'busybox:latest', labels: { app: 'worker', 'com.example.note': 'a=b' }, instanceType: 's3' },
  ],
  timeline: [
    { at: '2s', every: '6s', start: 'worker' },
    { at: '5s', every: '6s', stop: 'worker', exitCode: 0 },
    { at: '10s', every: '15s', stop: 'web', exitCode: 137 },
    { at: '11s', every: '15s', start: 'web' },
  ],
})
