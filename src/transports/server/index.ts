export { serve, type ServeOptions, type RunningServer } from './serve'
export { selfSignedCertificate, loadCertificate, type TlsMaterial } from './tls'
