package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"epsim/scenarios"
	"epsim/sim"
)

// BenchmarkPodReader measures parsing alone: events/s through PodReader for the sample
// trace (compact JSON lines) and the raw kubectl watch output (pretty-printed, full pods).
func BenchmarkPodReader(b *testing.B) {
	for _, name := range []string{"replay-trace.jsonl", "replay-watch.json"} {
		data, err := os.ReadFile(sampleDir + "/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var events int64
			for b.Loop() {
				r := NewPodReader(bytes.NewReader(data), name)
				for {
					if _, err := r.Next(); err != nil {
						if !errors.Is(err, io.EOF) {
							b.Fatal(err)
						}
						break
					}
					events++
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkReplay measures a whole replay from a trace — parsing, both controllers, sizes
// and fan-out — in pod events per second, on a recorded simulation of 1,000 pods on 100
// nodes through a rolling update.
func BenchmarkReplay(b *testing.B) {
	_, cfg, err := scenarios.Load("quick", []string{"services[0].replicas=1000"})
	if err != nil {
		b.Fatal(err)
	}
	rec, _ := simulate(b, cfg, nil)
	var traceBuf bytes.Buffer
	if _, err := Record(bytes.NewReader(rec.watch.Bytes()), &traceBuf, "watch.json", rec.clock()); err != nil {
		b.Fatal(err)
	}
	data := traceBuf.Bytes()
	b.ReportAllocs()
	var events int64
	for b.Loop() {
		_, stats, err := sim.Replay(cfg, rec.services, rec.nodes, NewPodReader(bytes.NewReader(data), "trace"), nil)
		if err != nil {
			b.Fatal(err)
		}
		events += stats.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
