// The sockets a service manager would hand `buddy serve` (test/serve/serving.test.ts), made in this
// child and passed to its parent over Node's IPC (SCM_RIGHTS), so that the parent holds descriptors
// no handle of its own polls: a socket listening at argv[2]; a connection accepted on it (a socket
// with that path that is no listener); the end that connected (a socket with no path). The parent
// kills this process once it holds them (a close here would remove the socket's file).
import * as net from "node:net"

const at = process.argv[2]
let client
const server = net.createServer((accepted) => {
  process.send("listening", server._handle)
  process.send("accepted", accepted._handle)
  process.send("connected", client._handle)
})
server.listen(at, () => {
  client = net.connect(at)
})
