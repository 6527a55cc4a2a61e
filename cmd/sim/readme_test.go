package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestReadme5000Nodes: the README's excerpt of `sim run 5000-nodes` (phase 2's block) and its
// prose about the rolling update quote the current output: the writes, the ratios, the CPU of
// kube-proxy and of the API servers, and EndpointSlices' propagation and programming p99.
func TestReadme5000Nodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scenarios/5000-nodes.yaml")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	te := realEnv()
	if code := te.main([]string{"run", "5000-nodes", "--quiet"}); code != 0 {
		t.Fatalf("sim run 5000-nodes: exit %d: %s", code, te.stderr.String())
	}
	out := te.stdout.String()
	block := func(text, from, to string) string {
		i := strings.Index(text, from)
		if i < 0 {
			return ""
		}
		j := strings.Index(text[i:], to)
		if j < 0 {
			return ""
		}
		return text[i : i+j+len(to)]
	}
	phase2 := block(out, "phase 2/4:", "\n\n")
	if phase2 == "" || !strings.Contains(string(readme), strings.TrimSuffix(phase2, "\n")) {
		t.Errorf("README's phase-2 block is not the output's:\n%s", phase2)
	}
	rolling := block(out, "phase 4/4:", "\n\n")
	row := func(name string) []string {
		line := block(rolling, "  "+name+" ", "\n")
		return strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), name))
	}
	decoding, apiserver, programming := row("decoding"), row("apiserver CPU (watch)"), row("programming p99")
	proxy, writes, propagation := row("kube-proxy CPU/node"), row("API writes"), row("propagation p99")
	if len(decoding) != 3 || len(apiserver) != 3 || len(programming) < 2 || len(proxy) != 3 ||
		len(writes) != 3 || len(propagation) < 2 {
		t.Fatalf("rows of the rolling update not found (%q %q %q %q %q %q):\n%s",
			decoding, apiserver, programming, proxy, writes, propagation, rolling)
	}
	durations := func(texts ...string) []time.Duration {
		var ds []time.Duration
		for _, text := range texts {
			d, err := time.ParseDuration(text)
			if err != nil {
				t.Fatalf("duration %q: %v", text, err)
			}
			ds = append(ds, d)
		}
		return ds
	}
	d := durations(apiserver[0], apiserver[1], programming[1], proxy[0], proxy[1], propagation[1])
	// The prose rounds: "3 h 49 min" for 3h49m50.951s, "12.5 min" for 12m32.128s,
	// "9 min" for 9m20.45s, "6.7 s" for 6.733s.
	hoursMinutes := func(d time.Duration) string {
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	prose := strings.Join(strings.Fields(block(string(readme), "The rolling update of all 10,000 pods", "the slices' latency")+
		block(string(readme), "Over the rolling update", "see the known limit")), " ")
	for _, want := range []string{
		fmt.Sprintf("rewrites its 1.25 MB object %s times", writes[0]),
		fmt.Sprintf("EndpointSlices write %s slices of at most 15 KB (1.2 TB, p99 %.1f s)", writes[1], d[5].Seconds()),
		fmt.Sprintf("%s more CPU with Endpoints than with EndpointSlices (%s against %d min;",
			proxy[2], hoursMinutes(d[3]), int(d[4].Minutes())),
		decoding[2] + " more for decoding alone",
		fmt.Sprintf("%s more (%s against %.1f min)", apiserver[2], hoursMinutes(d[0]), d[1].Minutes()),
		fmt.Sprintf("against %.1f s", d[2].Seconds()),
	} {
		if !strings.Contains(prose, want) {
			t.Errorf("README's rolling-update prose lacks %q:\n%s", want, prose)
		}
	}
}
