// nock, bundled into the CommonJS build (tsup.config.ts): what nock-loader-cjs.ts falls back on where require() cannot
// load nock's ES modules. Never imported by the ESM build.
export { default } from 'nock'
