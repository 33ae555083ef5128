export * from 'kafkats/kafkajs'
