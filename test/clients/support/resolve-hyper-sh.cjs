// Preloaded (`node --require`) into a client that names the real service: us-west-1.hyper.sh resolves to 127.0.0.1 in
// that process only, so the client reaches the fake on loopback with its own URL, Host header and signature unchanged.
const dns = require('node:dns')
const lookup = dns.lookup
dns.lookup = function (hostname, options, callback) {
  if (hostname === 'us-west-1.hyper.sh') return lookup.call(this, '127.0.0.1', options, callback)
  return lookup.apply(this, arguments)
}
