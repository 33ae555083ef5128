// The CommonJS module is the one copy (its exports are kafkats/kafkajs's): import and require
// give the same classes, and the instrumentation's modules are set either way.
import layer from './index.js'
export * from 'kafkats/kafkajs'
export default layer
