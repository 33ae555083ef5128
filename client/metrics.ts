/**
 * Metrics: counters and histograms a Client keeps about itself and everything made from
 * it (`client.metrics()`), with a Prometheus text exposition (`toPrometheus()`).
 *
 * Cost rules (these are on the request, batch and hand-out paths):
 * - Counters are plain numbers in objects looked up once and cached by their user (a
 *   connection keeps its per-API stats in an array indexed by API key; a producer its
 *   per-topic stats in a Map it already has the topic for). Nothing is allocated per
 *   request, batch or record.
 * - Histograms have fixed buckets; observing one walks at most ~15 bounds.
 * - Gauges (buffered bytes, consumer lag) are not kept: producers and consumers register a
 *   collector that reads their state when a snapshot is taken.
 */

/** Seconds, for latencies (Prometheus' base unit). */
const LATENCY_BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const BATCH_BYTES_BOUNDS = [128, 512, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216]
const BATCH_RECORDS_BOUNDS = [1, 5, 10, 50, 100, 500, 1000, 5000, 10_000, 50_000]
const RATIO_BOUNDS = [1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16, 32]

export class Histogram {
  readonly bounds: readonly number[]
  /** Observations per bucket (not cumulative); the last one is above every bound (+Inf). */
  readonly counts: number[]
  sum = 0
  count = 0

  constructor (bounds: readonly number[]) {
    this.bounds = bounds
    this.counts = new Array<number>(bounds.length + 1).fill(0)
  }

  observe (value: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]) i++
    this.counts[i]++
    this.sum += value
    this.count++
  }

  /** Adds another histogram with the same bounds into this one. */
  add (other: Histogram): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] += other.counts[i]
    this.sum += other.sum
    this.count += other.count
  }

  snapshot (): HistogramSnapshot {
    let cumulative = 0
    const buckets = this.bounds.map((le, i) => ({ le, count: (cumulative += this.counts[i]) }))
    return { buckets, sum: this.sum, count: this.count }
  }
}

/** A histogram as `client.metrics()` returns it: cumulative counts per upper bound, as Prometheus has them. */
export interface HistogramSnapshot {
  /** `count` observations were ≤ `le`; the rest (`count` of the whole minus the last bucket's) were larger. */
  buckets: Array<{
    /** The bucket's upper bound (inclusive), in the histogram's unit. */
    le: number
    /** Observations at or below `le`. */
    count: number
  }>
  /** The sum of every observation, in the histogram's unit. */
  sum: number
  /** The number of observations. */
  count: number
}

/** Requests of one API to one broker. */
export class RequestStats {
  readonly api: string
  readonly nodeId: number
  requests = 0
  /** Failed requests (no answer: the connection closed, a timeout, an undecodable answer) and answers with a top-level error code. */
  errors = 0
  bytesSent = 0
  bytesReceived = 0
  /** Seconds from the write to the answer. */
  readonly latency = new Histogram(LATENCY_BOUNDS)

  constructor (api: string, nodeId: number) {
    this.api = api
    this.nodeId = nodeId
  }
}

/** What the producers of a client wrote to one topic (acknowledged batches only). */
export class ProducedTopicStats {
  batches = 0
  records = 0
  /** Bytes of the encoded (compressed) batches. */
  bytes = 0
}

/** What the consumers of a client handed to the application from one topic. */
export class ConsumedTopicStats {
  batches = 0
  records = 0
}

export class GroupStats {
  rebalances = 0
  commits = 0
  commitErrors = 0
  /** Seconds per OffsetCommit round (built, sent, answered, retries included). */
  readonly commitLatency = new Histogram(LATENCY_BOUNDS)
}

/** One partition's lag, from the last fetch's high watermark (no round trip). */
export interface PartitionLag {
  /** The consumer group, or undefined for a consumer of assigned partitions. */
  group: string | undefined
  /** The partition's topic. */
  topic: string
  /** The partition's number. */
  partition: number
  /** The offset after the last record the application finished (what at-least-once commits), if any. */
  processedOffset: bigint | undefined
  /** The last offset this member committed (or found committed when it got the partition). */
  committedOffset: bigint | undefined
  /** Where the next fetch starts. */
  fetchOffset: bigint | undefined
  /** The partition's high watermark in the last fetch answer; undefined before the first. */
  highWatermark: bigint | undefined
  /**
   * Records not processed yet: highWatermark − the first offset not processed (after the
   * processed offset, else the committed one, else the first record out or buffered, else
   * the fetch offset); undefined before the first fetch answer.
   */
  lag: bigint | undefined
  /**
   * A concurrent run(): records finished above `processedOffset` (which stops at the first
   * unfinished one); they go into the commit's metadata. Undefined otherwise.
   */
  finishedAbove?: number
}

/** What a producer or consumer reports when a snapshot is taken. */
export interface MetricsCollector {
  producerBufferedBytes: number
  producerBufferedRecords: number
  consumerBufferedBytes: number
  consumerRecordsInFlight: number
  consumerRecordsWaiting: number
  lag: PartitionLag[]
}

export class MetricsRegistry {
  readonly #requests = new Map<string, RequestStats>()
  readonly #produced = new Map<string, ProducedTopicStats>()
  readonly #consumed = new Map<string, ConsumedTopicStats>()
  readonly #groups = new Map<string, GroupStats>()
  readonly batchBytes = new Histogram(BATCH_BYTES_BOUNDS)
  readonly batchRecords = new Histogram(BATCH_RECORDS_BOUNDS)
  /** Uncompressed (estimated, from the records' sizes) / compressed bytes of compressed batches. */
  readonly compressionRatio = new Histogram(RATIO_BOUNDS)
  readonly #collectors = new Set<(into: MetricsCollector) => void>()

  /** The stats of one API to one broker (callers cache it). */
  requestStats (api: string, nodeId: number): RequestStats {
    const key = `${api}\u0000${nodeId}`
    let stats = this.#requests.get(key)
    if (stats === undefined) this.#requests.set(key, stats = new RequestStats(api, nodeId))
    return stats
  }

  produced (topic: string): ProducedTopicStats {
    let stats = this.#produced.get(topic)
    if (stats === undefined) this.#produced.set(topic, stats = new ProducedTopicStats())
    return stats
  }

  /** One acknowledged batch. */
  batchProduced (topic: string, records: number, encodedBytes: number, uncompressedBytes: number, compressed: boolean): void {
    const stats = this.produced(topic)
    stats.batches++
    stats.records += records
    stats.bytes += encodedBytes
    this.batchBytes.observe(encodedBytes)
    this.batchRecords.observe(records)
    if (compressed && encodedBytes > 0) this.compressionRatio.observe(uncompressedBytes / encodedBytes)
  }

  /** One batch handed to the application. */
  batchConsumed (topic: string, records: number): void {
    let stats = this.#consumed.get(topic)
    if (stats === undefined) this.#consumed.set(topic, stats = new ConsumedTopicStats())
    stats.batches++
    stats.records += records
  }

  group (groupId: string): GroupStats {
    let stats = this.#groups.get(groupId)
    if (stats === undefined) this.#groups.set(groupId, stats = new GroupStats())
    return stats
  }

  /** A producer's or consumer's gauges, read at each snapshot; returns the unregistering function. */
  addCollector (collect: (into: MetricsCollector) => void): () => void {
    this.#collectors.add(collect)
    return () => { this.#collectors.delete(collect) }
  }

  snapshot (clientId: string): ClientMetrics {
    const gauges: MetricsCollector = { producerBufferedBytes: 0, producerBufferedRecords: 0, consumerBufferedBytes: 0, consumerRecordsInFlight: 0, consumerRecordsWaiting: 0, lag: [] }
    for (const collect of this.#collectors) collect(gauges)
    const fetchLatency = new Histogram(LATENCY_BOUNDS)
    for (const stats of this.#requests.values()) if (stats.api === 'Fetch') fetchLatency.add(stats.latency)
    return new ClientMetrics(clientId, {
      requests: [...this.#requests.values()].map(s => ({ api: s.api, nodeId: s.nodeId, requests: s.requests, errors: s.errors, bytesSent: s.bytesSent, bytesReceived: s.bytesReceived, latency: s.latency.snapshot() })),
      producer: {
        topics: [...this.#produced].map(([topic, s]) => ({ topic, batches: s.batches, records: s.records, bytes: s.bytes })),
        batchBytes: this.batchBytes.snapshot(),
        batchRecords: this.batchRecords.snapshot(),
        compressionRatio: this.compressionRatio.snapshot(),
        bufferedBytes: gauges.producerBufferedBytes,
        bufferedRecords: gauges.producerBufferedRecords
      },
      consumer: {
        topics: [...this.#consumed].map(([topic, s]) => ({ topic, batches: s.batches, records: s.records })),
        fetchLatency: fetchLatency.snapshot(),
        bufferedBytes: gauges.consumerBufferedBytes,
        recordsInFlight: gauges.consumerRecordsInFlight,
        recordsWaiting: gauges.consumerRecordsWaiting,
        lag: gauges.lag
      },
      groups: [...this.#groups].map(([group, s]) => ({ group, rebalances: s.rebalances, commits: s.commits, commitErrors: s.commitErrors, commitLatency: s.commitLatency.snapshot() }))
    })
  }
}

/** The data of a metrics snapshot: requests per API and broker, and what the producers, consumers and groups of the client did. */
export interface ClientMetricsData {
  /** Per API and broker (nodeId; negative for bootstrap addresses). */
  requests: Array<{
    /** The API's name, e.g. 'Produce'. */
    api: string
    /** The broker's node id. */
    nodeId: number
    /** Requests sent. */
    requests: number
    /** Requests that failed (no answer) or were answered with a top-level error code. */
    errors: number
    /** Bytes of request frames written. */
    bytesSent: number
    /** Bytes of response frames read. */
    bytesReceived: number
    /** Seconds from writing a request to its answer. */
    latency: HistogramSnapshot
  }>
  /** What the client's producers wrote. */
  producer: {
    /** Acknowledged batches, records and encoded bytes per topic. */
    topics: Array<{
      /** The topic. */
      topic: string
      /** Record batches acknowledged. */
      batches: number
      /** Records acknowledged. */
      records: number
      /** Encoded (compressed) bytes of the acknowledged batches. */
      bytes: number
    }>
    /** Encoded bytes per acknowledged batch. */
    batchBytes: HistogramSnapshot
    /** Records per acknowledged batch. */
    batchRecords: HistogramSnapshot
    /** Compressed batches only: estimated uncompressed size / encoded size. */
    compressionRatio: HistogramSnapshot
    /** Records buffered and not answered yet, over every producer of the client. */
    bufferedBytes: number
    /** Records buffered and not answered yet, over every producer of the client. */
    bufferedRecords: number
  }
  /** What the client's consumers did. */
  consumer: {
    /** Batches and records handed to the application, per topic. */
    topics: Array<{
      /** The topic. */
      topic: string
      /** Batches handed to the application. */
      batches: number
      /** Records handed to the application. */
      records: number
    }>
    /** Seconds per Fetch request (the broker's long poll included), over every broker. */
    fetchLatency: HistogramSnapshot
    /** Prefetched bytes not handed out yet, over every consumer of the client. */
    bufferedBytes: number
    /** Concurrent run()s: records whose handler runs now, over every consumer of the client. */
    recordsInFlight: number
    /** Concurrent run()s: records taken in and not started (queued, or waiting to be retried). */
    recordsWaiting: number
    /** Each consumed partition's lag, from the last fetch's high watermark. */
    lag: PartitionLag[]
  }
  /** Per consumer group of the client. */
  groups: Array<{
    /** The group's id. */
    group: string
    /** Assignments applied by the group's members. */
    rebalances: number
    /** Offset commits sent. */
    commits: number
    /** Offset commits that failed or were refused in part. */
    commitErrors: number
    /** Seconds per offset commit, retries included. */
    commitLatency: HistogramSnapshot
  }>
}

/** A snapshot of a client's metrics (`client.metrics()`). */
export class ClientMetrics implements ClientMetricsData {
  /** The client id of the client the snapshot is of. */
  readonly clientId: string
  readonly requests: ClientMetricsData['requests']
  readonly producer: ClientMetricsData['producer']
  readonly consumer: ClientMetricsData['consumer']
  readonly groups: ClientMetricsData['groups']

  constructor (clientId: string, data: ClientMetricsData) {
    this.clientId = clientId
    this.requests = data.requests
    this.producer = data.producer
    this.consumer = data.consumer
    this.groups = data.groups
  }

  /** The Prometheus text exposition format (version 0.0.4): HELP and TYPE lines, every series labelled with `client`. */
  toPrometheus (): string {
    const out = new Exposition({ client: this.clientId })
    const broker = (nodeId: number): string => String(nodeId)
    out.family('kafkats_requests_total', 'counter', 'Requests sent, per API and broker.',
      this.requests.map(r => [{ api: r.api, broker: broker(r.nodeId) }, r.requests]))
    out.family('kafkats_request_errors_total', 'counter', 'Requests that failed (no answer, or an answer with a top-level error code), per API and broker.',
      this.requests.map(r => [{ api: r.api, broker: broker(r.nodeId) }, r.errors]))
    out.family('kafkats_request_sent_bytes_total', 'counter', 'Bytes of request frames written, per API and broker.',
      this.requests.map(r => [{ api: r.api, broker: broker(r.nodeId) }, r.bytesSent]))
    out.family('kafkats_response_received_bytes_total', 'counter', 'Bytes of response frames read, per API and broker.',
      this.requests.map(r => [{ api: r.api, broker: broker(r.nodeId) }, r.bytesReceived]))
    out.histograms('kafkats_request_duration_seconds', 'Seconds from writing a request to its answer, per API and broker.',
      this.requests.map(r => [{ api: r.api, broker: broker(r.nodeId) }, r.latency]))
    const p = this.producer
    out.family('kafkats_producer_batches_total', 'counter', 'Record batches acknowledged, per topic.', p.topics.map(t => [{ topic: t.topic }, t.batches]))
    out.family('kafkats_producer_records_total', 'counter', 'Records acknowledged, per topic.', p.topics.map(t => [{ topic: t.topic }, t.records]))
    out.family('kafkats_producer_bytes_total', 'counter', 'Encoded (compressed) bytes of acknowledged batches, per topic.', p.topics.map(t => [{ topic: t.topic }, t.bytes]))
    out.histograms('kafkats_producer_batch_size_bytes', 'Encoded bytes per acknowledged batch.', [[{}, p.batchBytes]])
    out.histograms('kafkats_producer_batch_records', 'Records per acknowledged batch.', [[{}, p.batchRecords]])
    out.histograms('kafkats_producer_compression_ratio', 'Estimated uncompressed / compressed size of compressed batches.', [[{}, p.compressionRatio]])
    out.family('kafkats_producer_buffered_bytes', 'gauge', 'Bytes of records buffered and not answered yet.', [[{}, p.bufferedBytes]])
    out.family('kafkats_producer_buffered_records', 'gauge', 'Records buffered and not answered yet.', [[{}, p.bufferedRecords]])
    const c = this.consumer
    out.family('kafkats_consumer_batches_total', 'counter', 'Batches handed to the application, per topic.', c.topics.map(t => [{ topic: t.topic }, t.batches]))
    out.family('kafkats_consumer_records_total', 'counter', 'Records fetched and handed to the application, per topic.', c.topics.map(t => [{ topic: t.topic }, t.records]))
    out.histograms('kafkats_consumer_fetch_duration_seconds', 'Seconds per Fetch request, the broker\'s wait for data included.', [[{}, c.fetchLatency]])
    out.family('kafkats_consumer_buffered_bytes', 'gauge', 'Prefetched bytes not handed to the application yet.', [[{}, c.bufferedBytes]])
    out.family('kafkats_consumer_records_in_flight', 'gauge', 'Records whose handler runs now (concurrent run()).', [[{}, c.recordsInFlight]])
    out.family('kafkats_consumer_records_waiting', 'gauge', 'Records taken in and not started yet (concurrent run()).', [[{}, c.recordsWaiting]])
    out.family('kafkats_consumer_finished_above', 'gauge', 'Records finished above the processed offset, per partition (concurrent run()).',
      c.lag.filter(l => l.finishedAbove !== undefined).map(l => [{ group: l.group ?? '', topic: l.topic, partition: String(l.partition) }, l.finishedAbove!]))
    out.family('kafkats_consumer_lag', 'gauge', 'Records behind the high watermark of the last fetch, per partition.',
      c.lag.filter(l => l.lag !== undefined).map(l => [{ group: l.group ?? '', topic: l.topic, partition: String(l.partition) }, Number(l.lag)]))
    out.family('kafkats_group_rebalances_total', 'counter', 'Assignments applied by the group\'s members.', this.groups.map(g => [{ group: g.group }, g.rebalances]))
    out.family('kafkats_group_commits_total', 'counter', 'Offset commits sent.', this.groups.map(g => [{ group: g.group }, g.commits]))
    out.family('kafkats_group_commit_errors_total', 'counter', 'Offset commits that failed or were refused in part.', this.groups.map(g => [{ group: g.group }, g.commitErrors]))
    out.histograms('kafkats_group_commit_duration_seconds', 'Seconds per offset commit, retries included.', this.groups.map(g => [{ group: g.group }, g.commitLatency]))
    return out.text()
  }
}

type Labels = Record<string, string>

/** Builds the text format: one HELP and TYPE per family, escaped label values. */
class Exposition {
  readonly #lines: string[] = []
  readonly #common: Labels

  constructor (common: Labels) {
    this.#common = common
  }

  family (name: string, type: 'counter' | 'gauge', help: string, samples: Array<[Labels, number]>): void {
    this.#header(name, type, help)
    for (const [labels, value] of samples) this.#lines.push(`${name}${this.#labels(labels)} ${formatNumber(value)}`)
  }

  histograms (name: string, help: string, series: Array<[Labels, HistogramSnapshot]>): void {
    this.#header(name, 'histogram', help)
    for (const [labels, h] of series) {
      for (const b of h.buckets) this.#lines.push(`${name}_bucket${this.#labels(labels, { le: formatNumber(b.le) })} ${b.count}`)
      this.#lines.push(`${name}_bucket${this.#labels(labels, { le: '+Inf' })} ${h.count}`)
      this.#lines.push(`${name}_sum${this.#labels(labels)} ${formatNumber(h.sum)}`)
      this.#lines.push(`${name}_count${this.#labels(labels)} ${h.count}`)
    }
  }

  text (): string {
    return this.#lines.join('\n') + '\n'
  }

  #header (name: string, type: string, help: string): void {
    this.#lines.push(`# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${name} ${type}`)
  }

  #labels (labels: Labels, extra: Labels = {}): string {
    const all = { ...this.#common, ...labels, ...extra }
    return `{${Object.entries(all).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`
  }
}

/** Prometheus label values escape backslash, double quote and line feed. */
export function escapeLabelValue (value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}

function formatNumber (value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Infinity) return '+Inf'
  if (value === -Infinity) return '-Inf'
  return String(value)
}
