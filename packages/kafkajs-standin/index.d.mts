export * from 'kafkats/kafkajs'
export { default } from 'kafkats/kafkajs'
