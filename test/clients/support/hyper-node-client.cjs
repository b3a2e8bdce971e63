// The Node client of the service's own repository (hyperhq/websocket-client, node/wsclient.js) connects this way:
// WebSocket-Node's client (`websocket`), the upgrade signed by `hyper-aws4` over the URL as written, with its `:443`,
// and the signed headers handed to `connect` with no subprotocol and no origin. This file makes the same calls with the
// same packages (written for these tests, not copied), and prints what it sees one line at a time. HYPER_FILTERS is
// ours: the official client sends no filters, its Go sibling does, and the signer signs them with the rest.
const WebSocketClient = require('websocket').client
const aws4 = require('hyper-aws4')

if (!process.env.HYPER_ACCESS || !process.env.HYPER_SECRET) {
  console.log('Error: set HYPER_ACCESS and HYPER_SECRET')
  process.exit(2)
}
// As the official client does: the real service's certificate was never checked.
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'

const filters = process.env.HYPER_FILTERS
const url = `wss://us-west-1.hyper.sh:443/events/ws${filters ? `?filters=${encodeURIComponent(filters)}` : ''}`
const headers = aws4.sign({ url, method: 'GET', credential: { accessKey: process.env.HYPER_ACCESS, secretKey: process.env.HYPER_SECRET } })

const client = new WebSocketClient()
client.on('connectFailed', (error) => console.log(`connect failed: ${error}`))
client.on('connect', (connection) => {
  console.log('connected')
  connection.on('message', (message) => {
    if (message.type === 'utf8') console.log(`message ${message.utf8Data}`)
  })
  connection.on('close', (code, reason) => console.log(`closed ${code} ${reason}`))
})
console.log(`signed host ${headers.Host}`)
client.connect(url, '', null, headers)
