'use strict'
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS package, as kafkajs is */
// kafkajs's API is kafkats's: this package only gives kafkats/kafkajs the name `kafkajs`, so
// the libraries an application uses (NestJS, OpenTelemetry, ...) load it where they
// require('kafkajs'). The exports are kafkats/kafkajs's own object: `require('kafkajs')` and
// `require('kafkats/kafkajs')` give the same classes.
const layer = require('kafkats/kafkajs')

// kafkajs makes its producers and consumers through these modules' functions, and
// instrumentations wrap them by their paths (kafkajs/src/producer/index.js, ...) to learn each
// client's cluster; kafkats/kafkajs makes its clients through them once they are set here.
layer.Kafka[Symbol.for('kafkats.kafkajs.modules')] = {
  producer: require('./src/producer/index.js'),
  consumer: require('./src/consumer/index.js')
}

module.exports = layer
