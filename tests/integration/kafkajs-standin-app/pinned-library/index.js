'use strict'
/* eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS library */
module.exports = require('kafkajs')
