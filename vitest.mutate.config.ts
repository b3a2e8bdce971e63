import { defineConfig } from 'vitest/config'
import base from './vitest.config.ts'

// The tests Stryker runs for `npm run mutate` (stryker.config.mjs): the fast in-process tests that pin the
// core (service, faults, protocol) down. The conformance cases run through the in-process way only (the
// server way runs the same cases over sockets: the same core code, twice the time). Left out: tests that
// spawn the CLI, dist/ or real client programs, fuzzing, real-time clock modes, and a few slow regressions
// (seconds to minutes each) whose behaviour other tests here also reach; docs/testing.md lists them.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // One worker reused across files: a spawn per test file per mutant would cost more than the tests.
    isolate: false,
    // A mutant that makes a test wait forever fails that test here, well before Stryker's own deadline (about 10 s:
    // 1.5 x the tests' time + timeoutMS + the dry run's overhead), which would kill and restart the runner (seconds
    // each). The slowest test here takes about 1 s.
    testTimeout: 4_000,
    hookTimeout: 4_000,
    include: [
      'test/unit/**/*.test.ts',
      'test/conformance/intercept.test.ts',
      'test/behaviour/**/*.test.ts',
      'test/ways-in/**/*.test.ts',
      'test/chaos/{plan,determinism,scenarios}.test.ts',
      'test/clients/dockerode-compat.test.ts',
      'test/docs/examples/**/*.test.ts',
    ],
    exclude: [
      'test/behaviour/lifecycle/close-leaves-no-handle.test.ts',
      'test/behaviour/push/stream/auto-and-real-clock-pacing.test.ts',
      'test/behaviour/robustness/bounded-history.test.ts',
      'test/behaviour/push/cancel/cancel-beats-advance.test.ts',
      'test/behaviour/robustness/connection-resets.test.ts',
      'test/behaviour/docker-api/routes-doc.test.ts',
      'test/behaviour/robustness/no-input-stops-the-process.test.ts',
      // Reads the server's socket cap (transport code, not mutated); fails when a file before it left nock hooked.
      'test/behaviour/robustness/body-limit.test.ts',
      // A wall-time bound (no event-loop pause): meaningless while mutants run under load.
      'test/behaviour/robustness/name-filter-redos.test.ts',
      // Fills real sockets' kernel buffers (about 1.2 s, more instrumented): it ran for every surviving mutant of the
      // delivery tracker (48 of its 166 s of tests) and was never the only test to kill one. The backlog close it pins
      // is pinned here by events-socket, events-stream and burst-in-one-turn.
      'test/behaviour/events/backlog/slow-consumers.test.ts',
      // A wall-time bound on a delivery report (300 ms for 10 clients x 1,000 reconnects): the instrumented tracker takes
      // ~1.4 s, so the dry run fails. Its counts are pinned by the delivery tests here (test/unit/service/delivery*.test.ts).
      'test/behaviour/delivery-report/report-cost.test.ts',
      // Counts chunks of an auto-clock push: the auto clock's bursts are bounded in wall time, so the instrumented
      // (slower) code yields more chunks and the dry run fails (96 vs < 89). push-format and the conformance push
      // cases pin the same lines.
      'test/behaviour/push/stream/auto-clock-chunks.test.ts',
      // Spawn the CLI, drive Chromium, start a real Docker daemon or send megabytes over real sockets (seconds each,
      // transport and CLI code that is not mutated): end-to-end suites outside the mutation set, as they were before
      // they were filed under test/behaviour/ and test/ways-in/.
      'test/behaviour/cli/{background-files-arguments-and-log,cli,compile-cache,log-lines-escaped,secrets,speed-flag-decimal}.test.ts',
      'test/behaviour/dashboard/{admin-live,admin-token,changes-shown-at-once,cli-demo,dashboard,demo-stories,live-delivery-counts,live-feed-and-page-state,page-during-a-demo,page-weight}.test.ts',
      'test/behaviour/fleet/{fleet,ttl,parallel-workers}.test.ts',
      'test/behaviour/record/**',
      'test/behaviour/robustness/oversized-body-answer-read.test.ts',
      'test/ways-in/intercept/{hooks,timers-and-identity,vitest-entry}.test.ts',
      'test/ways-in/intercept/fetch/**',
      'test/ways-in/intercept/http/{dockerode,parity,parity-streamed-body}.test.ts',
      'test/ways-in/intercept/websocket/{partysocket,fake-timers,parity,parity-closes-order-and-names,parity-events-and-options,parity-handshake-and-faults}.test.ts',
      // The auto clock follows wall time: under the load of a mutation run its pause check drifts past its 0.5 ms
      // tolerance and fails the dry run; it covers src/time only, which is not mutated.
      'test/unit/time/clock-pause.test.ts',
    ],
  },
})
