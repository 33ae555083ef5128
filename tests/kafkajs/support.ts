// What the kafkajs test files share: their broker and a polling wait.
import { after, before } from 'node:test'
import { sharedBootstrap, startCluster, type KafkaCluster } from '../broker/kafka'

/** The file's broker: the shared one (KAFKA_BOOTSTRAP), or a single node of its own stopped after the file. */
export function useBroker (onReady: (bootstrap: string[]) => void): void {
  let cluster: KafkaCluster | undefined
  before(async () => {
    const shared = sharedBootstrap()
    if (shared !== undefined) onReady(shared)
    else {
      cluster = await startCluster({ nodes: 1, portBase: 'free' })
      onReady(cluster.bootstrap)
    }
  })
  after(async () => {
    await cluster?.stop()
  })
}

export const until = async (condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}
