'use strict'
// kafkajs's src/producer/index.js makes a producer from its parameters, the producer's
// cluster among them. @opentelemetry/instrumentation-kafkajs wraps this module's function to
// map each producer to its cluster and read cluster.brokerPool.metadata.clusterId for the
// spans (messaging.kafka.cluster.id). kafkats/kafkajs hands it the cluster (a view of its
// client's) and what makes the producer.
module.exports = function createProducer ({ make }) {
  return make()
}
