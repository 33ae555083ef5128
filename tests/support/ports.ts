// Ports for tests of brokers that cannot be reached.
import * as net from 'node:net'

/** A port nothing listens on: one that was just listened on and closed (connecting gets ECONNREFUSED). */
export async function closedPort (): Promise<number> {
  const server = net.createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise<void>(resolve => server.close(() => resolve()))
  return port
}
