import '../../runtime/node-version' // first: fails at once on a Node older than 22
export { serve, type ServeOptions, type RunningServer } from './serve'
export type { AccessOptions, Served } from '../../protocol/guard'
export { selfSignedCertificate, loadCertificate, type TlsMaterial } from './tls'
