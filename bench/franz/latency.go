// franz-go's runner of the steady-rate latency benchmark (bench/latency/run.ts runs it as
// `franz-bench latency CONFIG-JSON`): one kgo.Client that produces (acks=all,
// idempotent, the given linger) and consumes every partition from the start, in one
// process. The record layout, the readiness record, the schedule and the files are
// bench/latency/runner.ts's; both latencies count from a record's due time.
package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const readySequence = 0xffffffff

type latencyConfig struct {
	Bootstrap       string         `json:"bootstrap"`
	Topic           string         `json:"topic"`
	Partitions      int            `json:"partitions"`
	ValueSize       int            `json:"valueSize"`
	Options         map[string]any `json:"options"`
	Rate            float64        `json:"rate"`
	DurationSeconds float64        `json:"durationSeconds"`
	WarmupSeconds   float64        `json:"warmupSeconds"`
	LingerMs        int            `json:"lingerMs"`
	DrainSeconds    float64        `json:"drainSeconds"`
	E2EFile         string         `json:"e2eFile"`
	AckFile         string         `json:"ackFile"`
}

// stampedValue is runner.ts's stampedValue: due time (float64 ms LE), sequence (uint32 LE), letters.
func stampedValue(size int, sequence uint32, dueMs float64) []byte {
	value := make([]byte, size)
	binary.LittleEndian.PutUint64(value, math.Float64bits(dueMs))
	binary.LittleEndian.PutUint32(value[8:], sequence)
	letter := byte(65 + sequence%26)
	for i := 12; i < size; i++ {
		value[i] = letter
	}
	return value
}

func writeFloat32s(file string, values []float32) {
	bytes := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(bytes[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(file, bytes, 0o644); err != nil {
		fail(err)
	}
}

func latency(cfg latencyConfig) {
	warmup := int(math.Round(cfg.WarmupSeconds * cfg.Rate))
	measured := int(math.Round(cfg.DurationSeconds * cfg.Rate))
	total := warmup + measured
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key-%d", i))
	}
	// The process's monotonic clock, in ms since base: what the stamps and arrivals are read on.
	base := time.Now()
	nowMs := func() float64 { return float64(time.Since(base).Nanoseconds()) / 1e6 }

	partitions := map[int32]kgo.Offset{}
	for p := 0; p < cfg.Partitions; p++ {
		partitions[int32(p)] = kgo.NewOffset().AtStart()
	}
	cpuStart := cpuSeconds()
	client, err := kgo.NewClient(
		kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...),
		kgo.ClientID("bench-franz-latency"),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(time.Duration(cfg.LingerMs)*time.Millisecond),
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: partitions}),
		// 500 ms as the Java client's and kafkats's defaults (franz-go's is 5 s); it bounds an empty poll only.
		kgo.FetchMaxWait(500*time.Millisecond),
	)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())

	e2e := make([]float32, 0, measured)
	seen := make([]bool, measured)
	duplicates := 0
	var lastArrival float64
	ready := make(chan struct{})
	all := make(chan struct{})
	var readingDone sync.WaitGroup
	readingDone.Add(1)
	go func() {
		defer readingDone.Done()
		readyOnce := false
		for {
			fetches := client.PollFetches(ctx)
			if ctx.Err() != nil {
				return
			}
			now := nowMs()
			done := false
			fetches.EachRecord(func(r *kgo.Record) {
				sequence := binary.LittleEndian.Uint32(r.Value[8:])
				if sequence == readySequence {
					if !readyOnce {
						readyOnce = true
						close(ready)
					}
					return
				}
				if int(sequence) < warmup {
					return
				}
				i := int(sequence) - warmup
				if seen[i] {
					duplicates++
					return
				}
				seen[i] = true
				e2e = append(e2e, float32(now-math.Float64frombits(binary.LittleEndian.Uint64(r.Value))))
				lastArrival = now
				if len(e2e) == measured {
					done = true
				}
			})
			if done {
				close(all)
				return
			}
		}
	}()

	// The readiness record, through before the clock starts.
	if err := client.ProduceSync(ctx, &kgo.Record{Key: keys[0], Value: stampedValue(cfg.ValueSize, readySequence, nowMs())}).FirstErr(); err != nil {
		fail(fmt.Errorf("the readiness record: %w", err))
	}
	<-ready

	ack := make([]float32, measured)
	var acknowledged, failed atomic.Int64
	var firstError atomic.Value
	var pending sync.WaitGroup
	interval := 1000 / cfg.Rate
	start := nowMs() + 1
	maxSendLag := 0.0
	for sequence := 0; sequence < total; {
		now := nowMs()
		for ; sequence < total; sequence++ {
			due := start + float64(sequence)*interval
			if due > now {
				break
			}
			if now-due > maxSendLag {
				maxSendLag = now - due
			}
			measuredIndex := sequence - warmup
			pending.Add(1)
			client.Produce(ctx, &kgo.Record{Key: keys[sequence%len(keys)], Value: stampedValue(cfg.ValueSize, uint32(sequence), due)}, func(_ *kgo.Record, err error) {
				if err != nil {
					failed.Add(1)
					firstError.CompareAndSwap(nil, err.Error())
				} else if measuredIndex >= 0 {
					ack[acknowledged.Add(1)-1] = float32(nowMs() - due)
				}
				pending.Done()
			})
		}
		if sequence < total {
			if wait := start + float64(sequence)*interval - nowMs(); wait > 0 {
				time.Sleep(time.Duration(wait * 1e6))
			}
		}
	}
	pending.Wait()
	select {
	case <-all:
	case <-time.After(time.Duration(cfg.DrainSeconds * float64(time.Second))):
	}
	cancel()
	readingDone.Wait()
	end := nowMs()
	if len(e2e) == measured {
		end = lastArrival
	}
	client.Close()
	cpu := cpuSeconds() - cpuStart

	count := int(acknowledged.Load())
	writeFloat32s(cfg.E2EFile, e2e)
	writeFloat32s(cfg.AckFile, ack[:count])
	result := map[string]any{
		"scheduled":    measured,
		"acknowledged": count,
		"failed":       failed.Load(),
		"received":     len(e2e),
		"duplicates":   duplicates,
		"maxSendLagMs": maxSendLag,
		"wallSeconds":  (end - (start + float64(warmup)*interval)) / 1000,
		"cpuSeconds":   cpu,
		"settings":     fmt.Sprintf("one kgo.Client: Produce(record, callback) on the schedule, acks=all, idempotent (the defaults), ProducerLinger %d ms; ConsumePartitions every partition AtStart, PollFetches + EachRecord, FetchMaxWait 500 ms (other settings: franz-go's defaults)", cfg.LingerMs),
		"runtime":      runtimeNote(),
	}
	if e, ok := firstError.Load().(string); ok {
		result["firstError"] = e
	}
	report(result)
}
