package reports

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// flattenJSON lists the leaf keys of a JSON object as dotted paths.
func flattenJSON(prefix string, v any, out *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		*out = append(*out, prefix)
		return
	}
	for k, x := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		flattenJSON(p, x, out)
	}
}

// Issue 12: results.csv was billed as "every summary figure" but lacked conflicts,
// staleSyncs, hiddenAddresses, watcherTerminations, relists, resentBytes, withinSLO and the
// ratios. Every field summary.json writes for a mode and a ratio must be a column.
func TestPlanCSVHasEverySummaryFigure(t *testing.T) {
	yes := true
	one := 1.0
	ms := &ModeSummary{WithinSLO: &yes, MaxWithinSLO: &yes}
	r := &RatioSummary{Writes: &one, EtcdBytes: &one, WatchEvents: &one, FanoutBytes: &one, PerNodeBytes: &one, MaxObjectBytes: &one, PeakEgressBytesPerSec: &one}
	for _, c := range []struct {
		v       any
		figures []planFigure
	}{{ms, planFigures}, {r, planRatioFigures}} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		json.Unmarshal(b, &doc)
		var keys []string
		flattenJSON("", doc, &keys)
		var cols []string
		for _, f := range c.figures {
			cols = append(cols, f.name)
		}
		for _, k := range keys {
			// Durations as Go strings have their figure in seconds next to them.
			if i := strings.LastIndexByte(k, '.'); i >= 0 && slices.Contains([]string{"p50", "p90", "p99", "max"}, k[i+1:]) {
				continue
			}
			if !slices.Contains(cols, k) {
				t.Errorf("summary.json figure %q is not a results.csv column (columns: %s)", k, strings.Join(cols, ", "))
			}
		}
	}
	for _, want := range []string{"conflicts", "staleSyncs", "hiddenAddresses", "watcherTerminations", "relists", "resentBytes", "withinSLO"} {
		found := false
		for _, f := range planFigures {
			found = found || f.name == want
		}
		if !found {
			t.Errorf("results.csv lacks %s", want)
		}
	}
}
