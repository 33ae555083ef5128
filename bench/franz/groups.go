// The groups benchmark's franz-go runner (`franz-bench groups CONFIG-JSON`): the timeline
// and the definitions of bench/groups/runner.ts in Go. Each member is a kgo.Client of its
// own in a group (KIP-848: ServerSideBalancer with the sticky balancer, which asks the
// broker for its "uniform" assignor; classic: franz-go's default cooperative-sticky),
// consuming from the start without committing; its OnPartitions* callbacks feed the watch
// and a HookBrokerWrite counts its requests per API.
package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// settleTime is runner.ts's SETTLE_MS: the pause between stable and the idle window.
const settleTime = time.Second

// groupWatch is runner.ts's GroupWatch: who owns which partition, and whether its owner
// has received a record of it since it was assigned there.
type groupWatch struct {
	mu      sync.Mutex
	owners  []map[int]bool
	flowing []int
	owned   []map[int32]bool
	gone    map[int]bool
	// early holds records a member received before OnPartitionsAssigned told it owns the
	// partition: they count once it does (one record per partition, so none may be dropped).
	early    map[[2]int]bool
	problems []string
	changes  int
	changed  chan struct{}
}

func newGroupWatch(partitions, members int) *groupWatch {
	w := &groupWatch{owners: make([]map[int]bool, partitions), flowing: make([]int, partitions), owned: make([]map[int32]bool, members), gone: map[int]bool{}, early: map[[2]int]bool{}, changed: make(chan struct{}, 1)}
	for p := range w.owners {
		w.owners[p] = map[int]bool{}
		w.flowing[p] = -1
	}
	for m := range w.owned {
		w.owned[m] = map[int32]bool{}
	}
	return w
}

func (w *groupWatch) wake() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

func (w *groupWatch) assigned(member int, partitions []int32) {
	w.mu.Lock()
	for _, p := range partitions {
		w.owners[p][member] = true
		w.owned[member][p] = true
		if w.early[[2]int{member, int(p)}] && !w.gone[member] {
			w.flowing[p] = member
		}
		delete(w.early, [2]int{member, int(p)})
	}
	w.changes++
	w.mu.Unlock()
	w.wake()
}

func (w *groupWatch) revoked(member int, partitions []int32) {
	w.mu.Lock()
	for _, p := range partitions {
		delete(w.owners[p], member)
		delete(w.owned[member], p)
		if w.flowing[p] == member {
			w.flowing[p] = -1
		}
		delete(w.early, [2]int{member, int(p)})
	}
	w.changes++
	w.mu.Unlock()
	w.wake()
}

func (w *groupWatch) consumed(member int, partition int32) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gone[member] || w.flowing[partition] == member {
		return
	}
	if !w.owners[partition][member] {
		w.early[[2]int{member, int(partition)}] = true
		return
	}
	w.flowing[partition] = member
	w.wake()
}

func (w *groupWatch) problem(text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.problems) < 5 {
		w.problems = append(w.problems, text)
	}
}

func (w *groupWatch) leaving(member int) []int32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gone[member] = true
	var partitions []int32
	for p := range w.owned[member] {
		partitions = append(partitions, p)
	}
	return partitions
}

// stable: every partition has exactly one owner, which is consuming it, and every member owns one at least (w.mu held).
func (w *groupWatch) stable() bool {
	for p := range w.owners {
		if len(w.owners[p]) != 1 || w.flowing[p] == -1 {
			return false
		}
	}
	for m, owned := range w.owned {
		if !w.gone[m] && len(owned) == 0 {
			return false
		}
	}
	return true
}

// moved: each partition has delivered a record to a member that is not leaving (w.mu held).
func (w *groupWatch) moved(partitions []int32) bool {
	for _, p := range partitions {
		if w.flowing[p] == -1 || w.gone[w.flowing[p]] {
			return false
		}
	}
	return true
}

// until waits for test (run under w.mu) to hold, rechecked at every change; false after bound.
func (w *groupWatch) until(test func() bool, bound time.Duration) bool {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		ok := test()
		w.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-w.changed:
		case <-deadline.C:
			return false
		}
	}
}

// requestCounter counts the members' requests per API name (a kgo.HookBrokerWrite).
type requestCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (r *requestCounter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	r.mu.Lock()
	r.counts[kmsg.NameForKey(key)]++
	r.mu.Unlock()
}

func (r *requestCounter) take() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	counts := r.counts
	r.counts = map[string]int{}
	return counts
}

func groups(cfg config) {
	knownOptions(cfg)
	watch := newGroupWatch(cfg.Partitions, cfg.Members)
	requests := &requestCounter{counts: map[string]int{}}
	bound := time.Duration(cfg.BoundSeconds * float64(time.Second))
	balance := "classic protocol, franz-go's default balancer (cooperative-sticky)"
	if cfg.Protocol == "consumer" {
		balance = "KIP-848: ServerSideBalancer + Balancers(StickyBalancer()) (the broker's \"uniform\" assignor)"
	}
	settings := fmt.Sprintf("a kgo.Client per member, ConsumerGroup + ConsumeTopics, ConsumeResetOffset AtStart, DisableAutoCommit, %s, PollFetches loop (other settings: franz-go's defaults: HeartbeatInterval 3 s, SessionTimeout 45 s, MetadataMaxAge 5 min)", balance)
	result := map[string]any{"stableSeconds": nil, "rebalanceSeconds": nil, "closeSeconds": nil, "idleSeconds": 0, "joinRequests": map[string]int{}, "idleRequests": map[string]int{}, "rebalanceRequests": map[string]int{}, "settings": settings, "runtime": runtimeNote()}

	partitionsOf := func(assigned map[string][]int32) []int32 { return assigned[cfg.Topic] }
	started := time.Now()
	clients := make([]*kgo.Client, cfg.Members)
	var polling sync.WaitGroup
	for i := range clients {
		member := i
		opts := []kgo.Opt{
			kgo.SeedBrokers(strings.Split(cfg.Bootstrap, ",")...),
			kgo.ClientID(fmt.Sprintf("bench-groups-%d", member)),
			kgo.WithHooks(requests),
			kgo.ConsumerGroup(cfg.GroupID),
			kgo.ConsumeTopics(cfg.Topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.DisableAutoCommit(),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, assigned map[string][]int32) {
				watch.assigned(member, partitionsOf(assigned))
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, revoked map[string][]int32) {
				watch.revoked(member, partitionsOf(revoked))
			}),
			kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
				watch.revoked(member, partitionsOf(lost))
			}),
		}
		if cfg.Protocol == "consumer" {
			opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.StickyBalancer()))
		}
		client, err := kgo.NewClient(opts...)
		if err != nil {
			fail(err)
		}
		clients[member] = client
		polling.Add(1)
		go func() {
			defer polling.Done()
			for {
				fetches := client.PollFetches(context.Background())
				if fetches.IsClientClosed() {
					return
				}
				fetches.EachError(func(topic string, partition int32, err error) {
					watch.problem(fmt.Sprintf("member %d: %s[%d]: %v", member, topic, partition, err))
				})
				fetches.EachPartition(func(p kgo.FetchTopicPartition) {
					if len(p.Records) > 0 {
						watch.consumed(member, p.Partition)
					}
				})
			}
		}()
	}
	open := map[int]bool{}
	for i := range clients {
		open[i] = true
	}
	finish := func() {
		var closing sync.WaitGroup
		for i := range open {
			closing.Add(1)
			go func(c *kgo.Client) { defer closing.Done(); c.Close() }(clients[i])
		}
		closing.Wait()
		polling.Wait()
		result["problems"] = append([]string{}, watch.problems...)
		report(result)
	}
	defer finish()

	if !watch.until(watch.stable, bound) {
		watch.problem(fmt.Sprintf("not stable within %.0f s", bound.Seconds()))
		return
	}
	result["stableSeconds"] = time.Since(started).Seconds()
	result["joinRequests"] = requests.take()
	time.Sleep(settleTime)
	requests.take()
	watch.mu.Lock()
	changes := watch.changes
	watch.mu.Unlock()
	idleFrom := time.Now()
	time.Sleep(time.Duration(cfg.IdleSeconds * float64(time.Second)))
	result["idleRequests"] = requests.take()
	result["idleSeconds"] = time.Since(idleFrom).Seconds()
	watch.mu.Lock()
	if watch.changes != changes {
		watch.mu.Unlock()
		watch.problem(fmt.Sprintf("the assignment changed %d times in the idle window", watch.changes-changes))
	} else {
		watch.mu.Unlock()
	}
	if cfg.Members < 2 {
		return
	}
	leaver := cfg.Members - 1
	partitions := watch.leaving(leaver)
	leftAt := time.Now()
	delete(open, leaver)
	closed := make(chan float64, 1)
	go func() {
		clients[leaver].Close()
		closed <- time.Since(leftAt).Seconds()
	}()
	if watch.until(func() bool { return watch.moved(partitions) }, bound) {
		result["rebalanceSeconds"] = time.Since(leftAt).Seconds()
	} else {
		watch.problem(fmt.Sprintf("the leaver's %d partitions did not move within %.0f s", len(partitions), bound.Seconds()))
	}
	result["rebalanceRequests"] = requests.take()
	result["closeSeconds"] = <-closed
}
