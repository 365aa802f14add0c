// jsbench: the native (Go client) JetStream figure for `npm run bench:peers`.
//
// Publishes -n messages of -size bytes to -subject with js.PublishAsync, at most -inflight
// unacknowledged (nats.go's own async-publish window, as `nats bench --js` does), waits for every
// ack, then reads them all back with an ordered push consumer. Prints one JSON line with the
// rates. The stream must exist. It is built from Debian's golang-github-nats-io-go-nats-dev
// (GOPATH mode, no module download) by bench/peers/native-nats.ts; the `nats` CLI and its
// `nats bench` are not packaged by Debian.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

type result struct {
	Records            int     `json:"records"`
	Bytes              int     `json:"bytes"`
	ProduceRecordsPerS float64 `json:"produceRecordsPerSec"`
	ConsumeRecordsPerS float64 `json:"consumeRecordsPerSec"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "jsbench: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	servers := flag.String("servers", "nats://127.0.0.1:4222", "comma-separated server URLs")
	subject := flag.String("subject", "bench.p0", "subject the stream captures")
	n := flag.Int("n", 1000000, "messages")
	size := flag.Int("size", 100, "payload bytes")
	inflight := flag.Int("inflight", 10000, "unacknowledged publishes at most")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	flag.Parse()

	nc, err := nats.Connect(strings.ReplaceAll(*servers, ",", ", "), nats.Timeout(10*time.Second))
	if err != nil {
		fail("connect: %v", err)
	}
	defer nc.Close()
	js, err := nc.JetStream(nats.PublishAsyncMaxPending(*inflight))
	if err != nil {
		fail("jetstream: %v", err)
	}

	payload := make([]byte, *size)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	deadline := time.Now().Add(*timeout)
	start := time.Now()
	for i := 0; i < *n; i++ {
		if *size >= 4 {
			binary.BigEndian.PutUint32(payload, uint32(i))
		}
		// A full window waits for acks (up to 30 s) instead of nats.go's default 200 ms stall error:
		// on a loaded 2-core machine an R3 stream can pause that long, and the window is the bound.
		if _, err := js.PublishAsync(*subject, payload, nats.StallWait(30*time.Second)); err != nil {
			fail("publish %d: %v", i, err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(time.Until(deadline)):
		fail("publish acks did not complete within %v", *timeout)
	}
	produceSec := time.Since(start).Seconds()

	received := 0
	done := make(chan struct{})
	start = time.Now()
	sub, err := js.Subscribe(*subject, func(m *nats.Msg) {
		received++
		if received == *n {
			close(done)
		}
	}, nats.OrderedConsumer(), nats.DeliverAll())
	if err != nil {
		fail("subscribe: %v", err)
	}
	sub.SetPendingLimits(-1, -1)
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
		fail("consumed %d of %d within %v", received, *n, *timeout)
	}
	consumeSec := time.Since(start).Seconds()
	_ = sub.Unsubscribe()

	out, _ := json.Marshal(result{*n, *size, float64(*n) / produceSec, float64(*n) / consumeSec})
	fmt.Println(string(out))
}
