package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestReadme5000Nodes: the README's excerpt of `sim run 5000-nodes` (phase 2's block) and its
// prose about the rolling update quote the current output: the ratios, the API servers' CPU
// and the programming p99 of EndpointSlices.
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
	if len(decoding) != 3 || len(apiserver) != 3 || len(programming) < 2 {
		t.Fatalf("rows of the rolling update not found (%q %q %q):\n%s", decoding, apiserver, programming, rolling)
	}
	// The prose rounds: "12.5 min" for 12m32.128s, "6.7 s" for 6.733s.
	apiserverSlices, err1 := time.ParseDuration(apiserver[1])
	programmingSlices, err2 := time.ParseDuration(programming[1])
	if err1 != nil || err2 != nil {
		t.Fatalf("durations %q %q: %v %v", apiserver[1], programming[1], err1, err2)
	}
	prose := strings.Join(strings.Fields(block(string(readme), "Over the rolling update", "see the known limit")), " ")
	for _, want := range []string{
		decoding[2] + " more for decoding alone",
		fmt.Sprintf("%s more (3 h 49 min against %.1f min)", apiserver[2], apiserverSlices.Minutes()),
		fmt.Sprintf("against %.1f s", programmingSlices.Seconds()),
	} {
		if !strings.Contains(prose, want) {
			t.Errorf("README's rolling-update prose lacks %q:\n%s", want, prose)
		}
	}
}
