'use strict'
// kafkajs's src/consumer/index.js: as src/producer/index.js, for consumers.
module.exports = function createConsumer ({ make }) {
  return make()
}
