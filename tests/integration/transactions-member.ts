// A transactional producer in a process of its own, for tests/integration/transactions.test.ts
// to SIGSTOP past its transaction timeout. Environment: BOOTSTRAP, TOPIC, TXN_ID, TIMEOUT_MS.
// It begins a transaction, sends RECORDS records, prints "SENT", then commits when a line
// arrives on stdin and prints "RESULT ok" or "RESULT <error class> <message>". A commit
// refused as abortable (the coordinator aborted the transaction for its timeout, KIP-588) is
// aborted and followed by a transaction of one record, "recovered": it prints "RECOVERED ok"
// or "RECOVERED <error class> <message>".
import { createInterface } from 'node:readline'
import { Client, TransactionAbortableError } from '../../index'

async function main (): Promise<void> {
  const client = new Client({ bootstrap: process.env.BOOTSTRAP!, clientId: 'txn-member' })
  const producer = client.producer({ transactionalId: process.env.TXN_ID!, transactionTimeoutMs: Number(process.env.TIMEOUT_MS) })
  await producer.beginTransaction()
  const count = Number(process.env.RECORDS ?? '10')
  await producer.send(Array.from({ length: count }, (_, i) => ({ topic: process.env.TOPIC!, partition: 0, value: `stalled-${i}` })))
  process.stdout.write('SENT\n')
  const lines = createInterface({ input: process.stdin })
  await new Promise<void>(resolve => lines.once('line', () => resolve()))
  try {
    await producer.commitTransaction({ signal: AbortSignal.timeout(30_000) })
    process.stdout.write('RESULT ok\n')
  } catch (error) {
    process.stdout.write(`RESULT ${(error as Error).name} ${(error as Error).message.replace(/\n/g, ' ')}\n`)
    if (error instanceof TransactionAbortableError) {
      try {
        await producer.abortTransaction({ signal: AbortSignal.timeout(30_000) })
        await producer.transaction(async tx => { await tx.send({ topic: process.env.TOPIC!, partition: 0, value: 'recovered' }) }, { signal: AbortSignal.timeout(30_000) })
        process.stdout.write('RECOVERED ok\n')
      } catch (recoveryError) {
        process.stdout.write(`RECOVERED ${(recoveryError as Error).name} ${(recoveryError as Error).message.replace(/\n/g, ' ')}\n`)
      }
    }
  }
  lines.close()
  await producer.close({ force: true })
  await client.close()
}

main().then(() => process.exit(0), error => {
  process.stdout.write(`FAILED ${(error as Error).stack ?? String(error)}\n`)
  process.exit(1)
})
