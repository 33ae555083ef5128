// The many-clients benchmark's franz-go runner (`franz-bench many-clients CONFIG-JSON`):
// the timeline and result of bench/many-clients/runner.ts in Go. Every producer and every
// consumer is a kgo.Client of its own with franz-go's defaults: a producer sends with
// ProduceSync, a consumer is alone in its own group (ConsumerGroup + ConsumeTopics,
// reading from the start) and polls in a goroutine of its own. What Node calls resources
// keeping the process alive has no Go counterpart: the runner reports the goroutines
// (and the OS threads) instead; the heap is HeapAlloc after runtime.GC().
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// manyClientsConfig is bench/many-clients/runner.ts's ManyClientsConfig.
type manyClientsConfig struct {
	Bootstrap    string         `json:"bootstrap"`
	Topic        string         `json:"topic"`
	ValueSize    int            `json:"valueSize"`
	Options      map[string]any `json:"options"`
	Producers    int            `json:"producers"`
	Consumers    int            `json:"consumers"`
	GroupID      string         `json:"groupId"`
	Burst        int            `json:"burst"`
	IdleSeconds  float64        `json:"idleSeconds"`
	BoundSeconds float64        `json:"boundSeconds"`
}

// manySettle is runner.ts's SETTLE_MS: the rest before each snapshot, so the last round
// trips of the phase before are over.
const manySettle = 2 * time.Second

// processSnapshot is runner.ts's ProcessSnapshot, with Go's figures: heapUsedBytes is
// HeapAlloc after a collection, heapTotalBytes the heap obtained from the OS (HeapSys);
// "resources" holds the goroutines (the count that grows per client, where Node has its
// timers) and the OS threads. Node's external and array-buffer figures have no Go
// counterpart and are left out.
func processSnapshot() map[string]any {
	runtime.GC()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return map[string]any{
		"rssBytes":       procStatusBytes("VmRSS"),
		"heapUsedBytes":  stats.HeapAlloc,
		"heapTotalBytes": stats.HeapSys,
		"resources":      map[string]int{"goroutines": runtime.NumGoroutine(), "OS threads": osThreads()},
		"sockets":        openSockets(),
	}
}

// osThreads is /proc/self/status's Threads, or 0.
func osThreads() int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if value, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(value))
			return n
		}
	}
	return 0
}

// openSockets counts this process's socket descriptors, as runner.ts does.
func openSockets() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	sockets := 0
	for _, entry := range entries {
		if target, err := os.Readlink("/proc/self/fd/" + entry.Name()); err == nil && strings.HasPrefix(target, "socket:") {
			sockets++
		}
	}
	return sockets
}

// idleSnapshot is runner.ts's: after manySettle, the snapshot, then the CPU (getrusage, every
// thread) over the idle window. Go has no event loop: eventLoopUtilization is left out.
func idleSnapshot(phase string, idleSeconds float64) map[string]any {
	time.Sleep(manySettle)
	snapshot := processSnapshot()
	cpuFrom := cpuSeconds()
	from := time.Now()
	time.Sleep(time.Duration(idleSeconds * float64(time.Second)))
	cpu := cpuSeconds() - cpuFrom
	snapshot["phase"] = phase
	snapshot["idleCpuPercent"] = cpu / time.Since(from).Seconds() * 100
	return snapshot
}

// receipts is runner.ts's Receipts: what each consumer received, and a wake-up per change.
type receipts struct {
	mu      sync.Mutex
	counts  []int
	changed chan struct{}
}

func (r *receipts) received(consumer, records int) {
	r.mu.Lock()
	r.counts[consumer] += records
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// until is true once every consumer has perConsumer records, false after bound.
func (r *receipts) until(perConsumer int, bound time.Duration) bool {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		done := true
		for _, n := range r.counts {
			done = done && n >= perConsumer
		}
		r.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-r.changed:
		case <-deadline.C:
			return false
		}
	}
}

func (r *receipts) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	parts := make([]string, len(r.counts))
	for i, n := range r.counts {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func manyClients(cfg manyClientsConfig) {
	knownOptions(config{Options: cfg.Options})
	settings := "a kgo.Client per producer and per consumer; producers: DefaultProduceTopic, ProduceSync(records...) (franz-go's defaults: idempotent, acks=all, ProducerLinger 10 ms); " +
		"consumers: ConsumerGroup (one group per consumer) + ConsumeTopics, ConsumeResetOffset AtStart, a goroutine each in a PollFetches loop (other settings: franz-go's defaults: classic protocol, cooperative-sticky, autocommit every 5 s); " +
		"\"timers\" = goroutines (runtime.NumGoroutine), heap = HeapAlloc after runtime.GC(), CPU = getrusage"
	problems := []string{}
	result := map[string]any{"before": processSnapshot(), "phases": []map[string]any{}, "connectSeconds": nil, "burstSeconds": nil, "settings": settings, "runtime": runtimeNote()}
	seeds := kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...)
	value := []byte(strings.Repeat("x", cfg.ValueSize))
	bound := time.Duration(cfg.BoundSeconds * float64(time.Second))
	got := &receipts{counts: make([]int, cfg.Consumers), changed: make(chan struct{}, 1)}
	// Problems come from the consumers' and senders' goroutines too.
	var problemsMu sync.Mutex
	noteProblem := func(text string) {
		problemsMu.Lock()
		if len(problems) < 5 {
			problems = append(problems, text)
		}
		problemsMu.Unlock()
	}

	started := time.Now()
	consumers := make([]*kgo.Client, cfg.Consumers)
	var polling sync.WaitGroup
	for i := range consumers {
		consumer, err := kgo.NewClient(seeds, kgo.ClientID(fmt.Sprintf("bench-many-consumer-%d", i)),
			kgo.ConsumerGroup(fmt.Sprintf("%s-%d", cfg.GroupID, i)), kgo.ConsumeTopics(cfg.Topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if err != nil {
			fail(err)
		}
		consumers[i] = consumer
		polling.Add(1)
		go func(index int) {
			defer polling.Done()
			for {
				fetches := consumer.PollFetches(context.Background())
				if fetches.IsClientClosed() {
					return
				}
				fetches.EachError(func(topic string, partition int32, err error) {
					noteProblem(fmt.Sprintf("consumer %d: %s[%d]: %v", index, topic, partition, err))
				})
				if n := fetches.NumRecords(); n > 0 {
					got.received(index, n)
				}
			}
		}(i)
	}
	producers := make([]*kgo.Client, cfg.Producers)
	for i := range producers {
		producer, err := kgo.NewClient(seeds, kgo.ClientID(fmt.Sprintf("bench-many-producer-%d", i)), kgo.DefaultProduceTopic(cfg.Topic))
		if err != nil {
			fail(err)
		}
		producers[i] = producer
	}
	// send has every producer send count records at once (as runner.ts's Promise.all), each in one ProduceSync call.
	send := func(count int) {
		var sending sync.WaitGroup
		for _, producer := range producers {
			sending.Add(1)
			go func(p *kgo.Client) {
				defer sending.Done()
				records := make([]*kgo.Record, count)
				for r := range records {
					records[r] = &kgo.Record{Value: value}
				}
				if err := p.ProduceSync(context.Background(), records...).FirstErr(); err != nil {
					noteProblem(fmt.Sprintf("send failed: %v", err))
				}
			}(producer)
		}
		sending.Wait()
	}

	defer func() {
		var closing sync.WaitGroup
		for _, client := range append(append([]*kgo.Client{}, producers...), consumers...) {
			closing.Add(1)
			go func(c *kgo.Client) { defer closing.Done(); c.Close() }(client)
		}
		closing.Wait()
		polling.Wait()
		problemsMu.Lock()
		result["problems"] = append([]string{}, problems...)
		problemsMu.Unlock()
		report(result)
	}()

	send(1)
	if !got.until(cfg.Producers, bound) {
		noteProblem(fmt.Sprintf("not every consumer had the first %d records within %.0f s (received: %s)", cfg.Producers, bound.Seconds(), got.text()))
		return
	}
	result["connectSeconds"] = time.Since(started).Seconds()
	result["phases"] = append(result["phases"].([]map[string]any), idleSnapshot("connected, idle", cfg.IdleSeconds))
	burstFrom := time.Now()
	send(cfg.Burst)
	if !got.until(cfg.Producers*(1+cfg.Burst), bound) {
		noteProblem(fmt.Sprintf("not every consumer had the burst within %.0f s", bound.Seconds()))
		return
	}
	result["burstSeconds"] = time.Since(burstFrom).Seconds()
	result["phases"] = append(result["phases"].([]map[string]any), idleSnapshot("after a burst, idle", cfg.IdleSeconds))
}
