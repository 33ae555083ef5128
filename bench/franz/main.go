// The franz-go peer of the side-by-side benchmarks: one binary, built by the harness
// (bench/common/harness.ts), run as `franz-bench produce|consume|latency|partitions|groups|many-clients CONFIG-JSON`
// with the same config as the Node runners, printing the same `BENCH-RESULT {json}`
// line (bench/common/runner.ts). The groups mode is in groups.go, many-clients in
// manyclients.go.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const resultPrefix = "BENCH-RESULT "

// config holds the fields of the runners' configs (produce/runner.ts, consume/runner.ts)
// that this runner reads.
type config struct {
	Bootstrap    string         `json:"bootstrap"`
	Topic        string         `json:"topic"`
	Partitions   int            `json:"partitions"`
	Records      int            `json:"records"`
	ValueSize    int            `json:"valueSize"`
	Compression  string         `json:"compression"`
	Options      map[string]any `json:"options"`
	PayloadFile  string         `json:"payloadFile"`
	LatencyFile  string         `json:"latencyFile"`
	GroupID      string         `json:"groupId"`
	StartOffsets []string       `json:"startOffsets"`
	EndOffsets   []string       `json:"endOffsets"`
	StallSeconds float64        `json:"stallSeconds"`
	// The groups benchmark's (bench/groups/runner.ts's GroupsConfig).
	Protocol     string  `json:"protocol"`
	Members      int     `json:"members"`
	IdleSeconds  float64 `json:"idleSeconds"`
	BoundSeconds float64 `json:"boundSeconds"`
}

func main() {
	if len(os.Args) != 3 {
		fail(fmt.Errorf("usage: franz-bench produce|consume|latency|partitions|groups|many-clients CONFIG-JSON (run it through the benchmark's run.js)"))
	}
	switch os.Args[1] {
	case "produce":
		produce(readConfig[config]())
	case "consume":
		consume(readConfig[config]())
	case "latency":
		latency(readConfig[latencyConfig]())
	case "partitions":
		partitions(readConfig[partitionsConfig]())
	case "groups":
		groups(readConfig[config]())
	case "many-clients":
		manyClients(readConfig[manyClientsConfig]())
	default:
		fail(fmt.Errorf("unknown mode %q", os.Args[1]))
	}
}

// readConfig is argv[2], the benchmark's config as JSON.
func readConfig[T any]() T {
	var cfg T
	if err := json.Unmarshal([]byte(os.Args[2]), &cfg); err != nil {
		fail(fmt.Errorf("reading the config: %w", err))
	}
	return cfg
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func report(result map[string]any) {
	line, _ := json.Marshal(result)
	fmt.Println(resultPrefix + string(line))
}

// cpuSeconds is this process's user + system CPU so far (every thread).
func cpuSeconds() float64 {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

func runtimeNote() string {
	return fmt.Sprintf("go %s, franz-go %s", strings.TrimPrefix(runtime.Version(), "go"), franzVersion())
}

func franzVersion() string {
	// Set by the harness from go.mod; "?" when run by hand.
	if v := os.Getenv("FRANZ_GO_VERSION"); v != "" {
		return v
	}
	return "?"
}

func compression(name string) kgo.CompressionCodec {
	switch name {
	case "none":
		return kgo.NoCompression()
	case "gzip":
		return kgo.GzipCompression()
	case "snappy":
		return kgo.SnappyCompression()
	case "lz4":
		return kgo.Lz4Compression()
	case "zstd":
		return kgo.ZstdCompression()
	}
	fail(fmt.Errorf("unknown compression %q", name))
	return kgo.NoCompression()
}

// intOption is options[key] as an int, else fallback.
func intOption(cfg config, key string, fallback int) int {
	if v, ok := cfg.Options[key].(float64); ok {
		return int(v)
	}
	return fallback
}

func knownOptions(cfg config, keys ...string) {
	for key := range cfg.Options {
		known := false
		for _, k := range keys {
			known = known || k == key
		}
		if !known {
			fail(fmt.Errorf("unknown franz option %q (known: %s)", key, strings.Join(keys, ", ")))
		}
	}
}

// ---------------------------------------------------------------------------------------
// produce

// readValues splits the payload file (values of valueSize letters, one per line).
func readValues(cfg config) [][]byte {
	data, err := os.ReadFile(cfg.PayloadFile)
	if err != nil {
		fail(err)
	}
	var values [][]byte
	for start := 0; start+cfg.ValueSize <= len(data); start += cfg.ValueSize + 1 {
		values = append(values, data[start:start+cfg.ValueSize])
	}
	if len(values) == 0 {
		fail(fmt.Errorf("no %d-byte values in %s", cfg.ValueSize, cfg.PayloadFile))
	}
	return values
}

func produce(cfg config) {
	knownOptions(cfg, "lingerMs", "batchMaxBytes", "maxBufferedRecords")
	lingerMs := intOption(cfg, "lingerMs", 5)
	batchMaxBytes := intOption(cfg, "batchMaxBytes", 1_000_000)
	maxBuffered := intOption(cfg, "maxBufferedRecords", 50_000)
	values := readValues(cfg)
	latencies := make([]float32, cfg.Records)

	cpuStart := cpuSeconds()
	// acks=all and idempotence are franz-go's defaults; they are not turned off here.
	client, err := kgo.NewClient(
		kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...),
		kgo.ClientID("bench-franz"),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(time.Duration(lingerMs)*time.Millisecond),
		kgo.ProducerBatchMaxBytes(int32(batchMaxBytes)),
		kgo.MaxBufferedRecords(maxBuffered),
		kgo.ProducerBatchCompression(compression(cfg.Compression)),
		kgo.DefaultProduceTopic(cfg.Topic),
	)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	if err := client.Ping(ctx); err != nil {
		fail(err)
	}

	var acknowledged, failed atomic.Int64
	var firstError atomic.Value
	var wg sync.WaitGroup
	wg.Add(cfg.Records)
	started := time.Now()
	for i := 0; i < cfg.Records; i++ {
		sentAt := time.Now()
		record := &kgo.Record{Value: values[i%len(values)]}
		// Produce blocks while MaxBufferedRecords are buffered: the client's backpressure.
		client.Produce(ctx, record, func(_ *kgo.Record, err error) {
			if err == nil {
				latencies[acknowledged.Add(1)-1] = float32(time.Since(sentAt).Seconds() * 1000)
			} else {
				failed.Add(1)
				firstError.CompareAndSwap(nil, err.Error())
			}
			wg.Done()
		})
	}
	wg.Wait()
	wallSeconds := time.Since(started).Seconds()
	client.Close()
	cpu := cpuSeconds() - cpuStart

	count := int(acknowledged.Load())
	latencyBytes := make([]byte, 4*count)
	for i := 0; i < count; i++ {
		binary.LittleEndian.PutUint32(latencyBytes[4*i:], math.Float32bits(latencies[i]))
	}
	if err := os.WriteFile(cfg.LatencyFile, latencyBytes, 0o644); err != nil {
		fail(err)
	}
	result := map[string]any{
		"wallSeconds":  wallSeconds,
		"acknowledged": count,
		"failed":       failed.Load(),
		"cpuSeconds":   cpu,
		"latencyPer":   "record",
		"settings": fmt.Sprintf("kgo.Client.Produce(record, callback) per record, acks=all, idempotent (the defaults), ProducerLinger %d ms, ProducerBatchMaxBytes %d, MaxBufferedRecords %d, compression %s (other settings: franz-go's defaults)",
			lingerMs, batchMaxBytes, maxBuffered, cfg.Compression),
		"runtime": runtimeNote(),
	}
	if e, ok := firstError.Load().(string); ok {
		result["firstError"] = e
	}
	report(result)
}

// ---------------------------------------------------------------------------------------
// consume

// tally counts and checks what arrives, as consume/runner.ts's Tally does: per partition,
// offsets rise strictly, and at the end each partition holds its records and ends at its
// end offset - 1.
type tally struct {
	started    time.Time
	received   int
	valueBytes int
	firstAt    time.Time
	lastAt     time.Time
	counts     []int
	first      []int64
	last       []int64
	problems   []string
}

func newTally(partitions int) *tally {
	t := &tally{started: time.Now(), counts: make([]int, partitions), first: make([]int64, partitions), last: make([]int64, partitions)}
	for p := range t.first {
		t.first[p] = -1
		t.last[p] = -1
	}
	return t
}

func (t *tally) problem(text string) {
	if len(t.problems) < 5 {
		t.problems = append(t.problems, text)
	}
}

func (t *tally) add(partition int32, offset int64, value []byte) {
	last := t.last[partition]
	if offset <= last {
		t.problem(fmt.Sprintf("partition %d: offset %d after %d", partition, offset, last))
	} else if last == -1 {
		t.first[partition] = offset
	}
	t.last[partition] = offset
	t.counts[partition]++
	t.valueBytes += len(value)
	if t.received == 0 {
		t.firstAt = time.Now()
	}
	t.received++
}

func (t *tally) check(cfg config) []string {
	for p := 0; p < cfg.Partitions; p++ {
		start, _ := strconv.ParseInt(cfg.StartOffsets[p], 10, 64)
		end, _ := strconv.ParseInt(cfg.EndOffsets[p], 10, 64)
		expected := int(end - start)
		if t.counts[p] != expected {
			t.problem(fmt.Sprintf("partition %d: %d records, not %d", p, t.counts[p], expected))
		} else if expected > 0 && (t.first[p] != start || t.last[p] != end-1) {
			t.problem(fmt.Sprintf("partition %d: offsets %d..%d, not %d..%d", p, t.first[p], t.last[p], start, end-1))
		}
	}
	if t.received != cfg.Records {
		t.problem(fmt.Sprintf("%d records received, not %d", t.received, cfg.Records))
	}
	if t.problems == nil {
		return []string{}
	}
	return t.problems
}

// heapBytes is the live heap after a full collection.
func heapBytes() uint64 {
	runtime.GC()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return stats.HeapAlloc
}

func consume(cfg config) {
	knownOptions(cfg, "fetchMaxBytes", "fetchMaxPartitionBytes", "retainRecords")
	fetchMaxBytes := intOption(cfg, "fetchMaxBytes", 50<<20)
	partitionBytes := intOption(cfg, "fetchMaxPartitionBytes", 1<<20)
	// retainRecords N: hold the first N records received and report the live heap they
	// take (after a full collection, less the heap before the client existed), as the
	// Node runners' HeldRecords does.
	retain := intOption(cfg, "retainRecords", 0)
	var held []*kgo.Record
	var heapBefore uint64
	if retain > 0 {
		heapBefore = heapBytes()
		held = make([]*kgo.Record, 0, retain)
	}
	cpuStart := cpuSeconds()
	t := newTally(cfg.Partitions)
	client, err := kgo.NewClient(
		kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...),
		kgo.ClientID("bench-franz"),
		kgo.ConsumerGroup(cfg.GroupID),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxBytes(int32(fetchMaxBytes)),
		kgo.FetchMaxPartitionBytes(int32(partitionBytes)),
	)
	if err != nil {
		fail(err)
	}
	settings := fmt.Sprintf("kgo.ConsumerGroup + ConsumeTopics from the start (ConsumeResetOffset AtStart), PollFetches + EachRecord, FetchMaxBytes %d, FetchMaxPartitionBytes %d (other settings: franz-go's defaults: autocommit, cooperative-sticky balancer, CRCs checked)",
		fetchMaxBytes, partitionBytes)

	ctx := context.Background()
	stall := time.Duration(cfg.StallSeconds * float64(time.Second))
	if stall <= 0 {
		stall = 30 * time.Second
	}
	result := map[string]any{}
	for t.received < cfg.Records {
		pollCtx, cancel := context.WithTimeout(ctx, stall)
		fetches := client.PollFetches(pollCtx)
		cancel()
		if pollCtx.Err() != nil && fetches.NumRecords() == 0 {
			t.problem(fmt.Sprintf("stalled: nothing received for %.0f s", stall.Seconds()))
			break
		}
		fetches.EachError(func(topic string, partition int32, err error) {
			if err != context.DeadlineExceeded {
				t.problem(fmt.Sprintf("%s[%d]: %v", topic, partition, err))
			}
		})
		fetches.EachRecord(func(r *kgo.Record) {
			t.add(r.Partition, r.Offset, r.Value)
			if t.received == cfg.Records {
				t.lastAt = time.Now()
			}
			if held != nil {
				held = append(held, r)
				if len(held) == retain {
					// The slice's own 8 bytes per record are the application's, not the client's.
					heap := heapBytes() - uint64(8*cap(held))
					result["heldMemory"] = map[string]any{"records": len(held), "bytesPerRecord": float64(heap-heapBefore) / float64(len(held))}
					held = nil
				}
			}
		})
	}
	if t.lastAt.IsZero() {
		t.lastAt = time.Now()
	}
	client.Close()
	cpu := cpuSeconds() - cpuStart

	var firstRecord any
	if !t.firstAt.IsZero() {
		firstRecord = t.firstAt.Sub(t.started).Seconds()
	}
	problems := t.check(cfg)
	result["received"] = t.received
	result["valueBytes"] = t.valueBytes
	result["wallSeconds"] = t.lastAt.Sub(t.started).Seconds()
	result["firstRecordSeconds"] = firstRecord
	result["cpuSeconds"] = cpu
	result["problems"] = problems
	result["settings"] = settings
	result["runtime"] = runtimeNote()
	report(result)
}
