/**
 * kafkajs's partitioners, kafkajs-shaped (`createPartitioner()` returns
 * `({ topic, partitionMetadata, message }) => partition`), on kafkats's byte-identical
 * implementations: DefaultPartitioner (= JavaCompatiblePartitioner, Java's murmur2) and
 * LegacyPartitioner (kafkajs 1.x's murmur2).
 */
import { KafkajsPartitioner } from '../producer/partitioners'
import type { ICustomPartitioner } from './types'

export type { DefaultPartitioner, ICustomPartitioner, LegacyPartitioner, PartitionerArgs } from './types'

const toBuffer = (value: Buffer | string | null | undefined): Buffer | null =>
  value === null || value === undefined ? null : Buffer.isBuffer(value) ? value : Buffer.from(String(value))

function kafkajsPartitioner (variant: 'default' | 'legacy'): ICustomPartitioner {
  return () => {
    const partitioner = new KafkajsPartitioner(variant)
    return ({ topic, partitionMetadata, message }) => {
      if (typeof message.partition === 'number') return message.partition
      return partitioner.partition({
        topic,
        key: toBuffer(message.key),
        value: toBuffer(message.value),
        partitionCount: partitionMetadata.length,
        availablePartitions: partitionMetadata.filter(p => p.leader >= 0).map(p => p.partitionId)
      })
    }
  }
}

/** kafkajs's partitioners, for the `createPartitioner` option: a message with a `partition` keeps it. */
export const Partitioners = {
  /** kafkajs 2's default: Java's murmur2 of the key; keyless messages go round robin over the available partitions. */
  DefaultPartitioner: kafkajsPartitioner('default'),
  /** The same as DefaultPartitioner (kafkajs's name for it from 1.x, where it was not the default). */
  JavaCompatiblePartitioner: kafkajsPartitioner('default'),
  /** kafkajs 1.x's default, whose murmur2 differs from Java's: keeps keyed messages on the partitions kafkajs 1.x chose. */
  LegacyPartitioner: kafkajsPartitioner('legacy')
}
