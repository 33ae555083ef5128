/**
 * Starts a real Kafka broker (or three) for humans and the demo:
 *
 *   node dist/tests/broker/cli.js start [--nodes 3] [--port-base 19092 | --port-base free]
 *                                       [--version 2.0.1] [--mode kraft|zookeeper] [--config key=value …]
 *   node dist/tests/broker/cli.js fetch [--version 2.0.1]     (only bring the jars)
 *
 * `start` prints the bootstrap servers and runs until SIGINT/SIGTERM, then stops every node
 * and removes its data.
 */
import { ensureKafkaJars, KAFKA_VERSION, startCluster, type ClusterOptions } from './kafka'

const USAGE = `usage: node dist/tests/broker/cli.js start [--nodes 1|3] [--port-base <port>|free] [--version <release>] [--mode kraft|zookeeper] [--config key=value …]
       node dist/tests/broker/cli.js fetch [--version <release>]`

async function main (args: string[]): Promise<number> {
  const [command, ...rest] = args
  if (command === 'fetch') {
    const version = rest[0] === '--version' && rest[1] !== undefined ? rest[1] : KAFKA_VERSION
    console.log(`Kafka ${version} jars are in ${await ensureKafkaJars(version)}`)
    return 0
  }
  if (command !== 'start') {
    console.error(USAGE)
    return 2
  }
  const options: ClusterOptions = {}
  for (let i = 0; i < rest.length; i++) {
    const value = rest[i + 1]
    if (rest[i] === '--nodes' && (value === '1' || value === '3')) {
      options.nodes = Number(value) as 1 | 3
      i++
    } else if (rest[i] === '--version' && value !== undefined) {
      options.version = value
      i++
    } else if (rest[i] === '--mode' && (value === 'kraft' || value === 'zookeeper')) {
      options.mode = value
      i++
    } else if (rest[i] === '--config' && value !== undefined && value.includes('=')) {
      // A server.properties entry over the test settings, e.g. Kafka's own group timings for a benchmark.
      options.brokerOverrides = { ...options.brokerOverrides, [value.slice(0, value.indexOf('='))]: value.slice(value.indexOf('=') + 1) }
      i++
    } else if (rest[i] === '--port-base' && value !== undefined && (value === 'free' || /^\d+$/.test(value))) {
      options.portBase = value === 'free' ? 'free' : Number(value)
      i++
    } else {
      console.error(`unknown or incomplete option ${rest[i]}\n${USAGE}`)
      return 2
    }
  }

  let stopping = false
  options.onUnexpectedExit = (node, code) => {
    if (stopping) return
    console.error(`Kafka node ${node.nodeId} exited on its own (status ${String(code)}); its log is ${node.logFile}`)
  }
  const cluster = await startCluster(options)
  // Our child handles are unref'd (see kafka.ts); this keeps the CLI alive until a signal.
  const keepAlive = setInterval(() => {}, 1 << 30)
  console.log(`Kafka ${cluster.version} (${cluster.mode}) is ready with ${cluster.nodes.length} node(s) (data in ${cluster.dir}).`)
  for (const node of cluster.nodes) console.log(`  node ${node.nodeId}: ${node.host}:${node.port} (controller ${node.controllerPort}, pid ${node.pid})`)
  console.log(`KAFKA_BOOTSTRAP=${cluster.bootstrap.join(',')}`)
  console.log('Press Ctrl-C to stop.')

  await new Promise<void>(resolve => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
  stopping = true
  console.log('Stopping Kafka …')
  await cluster.stop()
  clearInterval(keepAlive)
  return 0
}

main(process.argv.slice(2)).then(code => { process.exitCode = code }, (error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
})
