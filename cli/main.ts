#!/usr/bin/env node
/**
 * The `kafkats` command (the package's bin): kcat-like producing and consuming, and the
 * admin API, on the public kafkats API. Exit codes: 0 done, 1 failed (a Kafka or network
 * error, a record that failed), 2 wrong usage.
 */
import { acls, aclsHelp, cluster, clusterHelp, groups, groupsHelp, offsets, offsetsHelp, topics, topicsHelp } from './admin'
import { UsageError } from './common'
import { consume, consumeHelp } from './consume'
import { describe, produce, produceHelp } from './produce'

const usage = `Usage: kafkats <command> [options]     (kafkats <command> --help for its options)

Commands:
  produce    records from stdin (lines or JSON lines) to a topic
  consume    records of a topic to stdout (values, JSON lines or a -f format), from
             offsets, a timestamp or a group
  topics     list, describe, create, delete, alter-configs
  groups     list, describe (with lag), reset-offsets, delete
  offsets    a topic's earliest/latest offsets, or the offset at a timestamp
  acls       list, create, delete
  cluster    the cluster id, controller and brokers

Every command takes -b/--bootstrap host:port (or KAFKATS_BOOTSTRAP), -F/--config-file file.json,
TLS (--tls, --tls-ca …) and SASL (--sasl-mechanism, --sasl-username, --sasl-password) flags.
`

const commands: Record<string, { run: (args: string[]) => Promise<number>, help: string }> = {
  produce: { run: produce, help: produceHelp },
  consume: { run: consume, help: consumeHelp },
  topics: { run: topics, help: topicsHelp },
  groups: { run: groups, help: groupsHelp },
  offsets: { run: offsets, help: offsetsHelp },
  acls: { run: acls, help: aclsHelp },
  cluster: { run: cluster, help: clusterHelp }
}

export async function main (argv: string[]): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? commands[args[0] ?? ''] : undefined
    process.stdout.write(topic?.help ?? usage)
    return name === undefined ? 2 : 0
  }
  if (name === '--version' || name === '-v') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    process.stdout.write(`${(require('../../package.json') as { version: string }).version}\n`)
    return 0
  }
  const command = commands[name]
  if (command === undefined) {
    process.stderr.write(`kafkats: unknown command ${JSON.stringify(name)}\n\n${usage}`)
    return 2
  }
  try {
    return await command.run(args)
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`kafkats ${name}: ${error.message}\n(see kafkats ${name} --help)\n`)
      return 2
    }
    process.stderr.write(`kafkats ${name}: ${describe(error as Error)}\n`)
    return 1
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(code => { process.exitCode = code }, error => {
    process.stderr.write(`kafkats: ${String(error?.stack ?? error)}\n`)
    process.exitCode = 1
  })
}
