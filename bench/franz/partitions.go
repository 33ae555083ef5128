// franz-go's runner of the partition-scaling benchmark (bench/partitions/run.ts runs it as
// `franz-bench partitions CONFIG-JSON`; bench/partitions/runner.ts says what a run does):
// a kgo.Client produces the keyed records (Produce with a callback; it blocks while
// MaxBufferedRecords are buffered), then a second kgo.Client consumes every partition of
// every topic from the start (ConsumePartitions, no group). The heap is HeapAlloc after
// runtime.GC().
package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type partitionsConfig struct {
	Bootstrap    string         `json:"bootstrap"`
	Topics       []string       `json:"topics"`
	Partitions   int            `json:"partitions"`
	Records      int            `json:"records"`
	ValueSize    int            `json:"valueSize"`
	Options      map[string]any `json:"options"`
	LingerMs     int            `json:"lingerMs"`
	StallSeconds float64        `json:"stallSeconds"`
}

// procStatusBytes is a /proc/self/status field (VmRSS, VmHWM) in bytes, or 0.
func procStatusBytes(field string) uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	match := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(status)
	if match == nil {
		return 0
	}
	kb, _ := strconv.ParseUint(string(match[1]), 10, 64)
	return kb * 1024
}

func phase(records int, started time.Time, first, last time.Time, cpu float64) map[string]any {
	var firstSeconds any
	if !first.IsZero() {
		firstSeconds = first.Sub(started).Seconds()
	}
	if last.IsZero() {
		last = time.Now()
	}
	return map[string]any{"records": records, "seconds": last.Sub(started).Seconds(), "firstRecordSeconds": firstSeconds, "cpuSeconds": cpu}
}

func partitions(cfg partitionsConfig) {
	knownOptions(cfg.asConfig(), "maxBufferedRecords")
	maxBuffered := intOption(cfg.asConfig(), "maxBufferedRecords", 50_000)
	value := []byte(strings.Repeat("K", cfg.ValueSize))
	keys := make([][]byte, cfg.Records)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key-%d", i))
	}
	baselineHeap := heapBytes()
	baselineRss := procStatusBytes("VmRSS")
	problems := []string{}
	seeds := kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...)
	ctx := context.Background()

	// Produce.
	cpuStart := cpuSeconds()
	started := time.Now()
	producer, err := kgo.NewClient(seeds, kgo.ClientID("bench-franz-partitions-producer"),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(time.Duration(cfg.LingerMs)*time.Millisecond),
		kgo.MaxBufferedRecords(maxBuffered),
	)
	if err != nil {
		fail(err)
	}
	var acknowledged, failed atomic.Int64
	var firstError atomic.Value
	var mu sync.Mutex
	var firstAck, lastAck time.Time
	var wg sync.WaitGroup
	wg.Add(cfg.Records)
	for i := 0; i < cfg.Records; i++ {
		producer.Produce(ctx, &kgo.Record{Topic: cfg.Topics[i%len(cfg.Topics)], Key: keys[i], Value: value}, func(_ *kgo.Record, err error) {
			if err == nil {
				acknowledged.Add(1)
				now := time.Now()
				mu.Lock()
				if firstAck.IsZero() {
					firstAck = now
				}
				lastAck = now
				mu.Unlock()
			} else {
				failed.Add(1)
				firstError.CompareAndSwap(nil, err.Error())
			}
			wg.Done()
		})
	}
	wg.Wait()
	produce := phase(int(acknowledged.Load()), started, firstAck, lastAck, cpuSeconds()-cpuStart)

	// Consume.
	cpuStart = cpuSeconds()
	started = time.Now()
	assigned := map[string]map[int32]kgo.Offset{}
	for _, topic := range cfg.Topics {
		partitions := map[int32]kgo.Offset{}
		for p := 0; p < cfg.Partitions; p++ {
			partitions[int32(p)] = kgo.NewOffset().AtStart()
		}
		assigned[topic] = partitions
	}
	consumer, err := kgo.NewClient(seeds, kgo.ClientID("bench-franz-partitions-consumer"), kgo.ConsumePartitions(assigned))
	if err != nil {
		fail(err)
	}
	received := 0
	var firstRecord, lastRecord time.Time
	stall := time.Duration(cfg.StallSeconds * float64(time.Second))
	for received < cfg.Records {
		pollCtx, cancel := context.WithTimeout(ctx, stall)
		fetches := consumer.PollFetches(pollCtx)
		cancel()
		if pollCtx.Err() != nil && fetches.NumRecords() == 0 {
			problems = append(problems, fmt.Sprintf("stalled: nothing new for %.0f s after %d records", stall.Seconds(), received))
			break
		}
		if n := fetches.NumRecords(); n > 0 {
			lastRecord = time.Now()
			if firstRecord.IsZero() {
				firstRecord = lastRecord
			}
			received += n
		}
	}
	consume := phase(received, started, firstRecord, lastRecord, cpuSeconds()-cpuStart)
	if received != cfg.Records {
		problems = append(problems, fmt.Sprintf("%d records received, not %d", received, cfg.Records))
	}
	if int(acknowledged.Load()) != cfg.Records {
		problems = append(problems, fmt.Sprintf("%d records acknowledged, not %d", acknowledged.Load(), cfg.Records))
	}

	memory := map[string]any{
		"baselineRss": baselineRss, "baselineHeap": baselineHeap,
		"heap": heapBytes(), "rss": procStatusBytes("VmRSS"), "peakRss": procStatusBytes("VmHWM"),
	}
	consumer.Close()
	producer.Close()
	result := map[string]any{
		"produce":  produce,
		"consume":  consume,
		"memory":   memory,
		"failed":   failed.Load(),
		"problems": problems,
		"settings": fmt.Sprintf("kgo.Client.Produce(record, callback), acks=all, idempotent (the defaults), ProducerLinger %d ms, MaxBufferedRecords %d; a second kgo.Client with ConsumePartitions every partition AtStart, PollFetches (other settings: franz-go's defaults)", cfg.LingerMs, maxBuffered),
		"runtime":  runtimeNote(),
	}
	if e, ok := firstError.Load().(string); ok {
		result["firstError"] = e
	}
	report(result)
}

// asConfig gives the option helpers of main.go what they read.
func (cfg partitionsConfig) asConfig() config {
	return config{Options: cfg.Options}
}
