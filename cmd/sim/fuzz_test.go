package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"epsim/reports"
)

// FuzzCheckRules: --tolerance and --floor values never panic, and what they accept is a
// finite, non-negative value with a pattern CheckFigurePattern accepts.
func FuzzCheckRules(f *testing.F) {
	for _, s := range []string{"2%", "writes.*=10%", "count=1", "total.endpoints.fanoutBytes=10MB", "50ms", "=", "a=b=c", "[=1", "-1", "NaN", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, parse := range []func(string) (float64, error){parseTolerance, parseFloor} {
			def, rules, err := parseRules("--x", []string{s}, 0, parse)
			if err != nil {
				continue
			}
			if def < 0 || math.IsNaN(def) || math.IsInf(def, 0) {
				t.Errorf("%q: default %v", s, def)
			}
			for _, r := range rules {
				if r.Value < 0 || math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || reports.CheckFigurePattern(r.Pattern) != nil {
					t.Errorf("%q: rule %+v", s, r)
				}
			}
		}
		if v, err := parsePercent("--fail-on", s); err == nil && (v < 0 || v > 10 || math.IsNaN(v)) {
			t.Errorf("parsePercent(%q) = %v", s, v)
		}
	})
}

// FuzzParseArgs: any command line parses or fails cleanly, and "--flag true|false" joining
// never loses or invents an argument.
func FuzzParseArgs(f *testing.F) {
	f.Add("x.yaml --charts false --out d")
	f.Add("--charts -- false")
	f.Add("-o json --quiet true x")
	f.Fuzz(func(t *testing.T, line string) {
		args := bytes.Fields([]byte(line))
		strs := make([]string, len(args))
		for i, a := range args {
			strs[i] = string(a)
		}
		fs := newFlagSet(cmdRun)
		cmdRun.setup(fs)
		joined := joinBoolValues(fs, strs)
		// Every joined word is two given words put together with "=".
		i := 0
		for _, a := range joined {
			switch {
			case i < len(strs) && a == strs[i]:
				i++
			case i+1 < len(strs) && a == strs[i]+"="+strs[i+1]:
				i += 2
			default:
				t.Fatalf("joinBoolValues(%q) = %q: %q is not from the arguments", strs, joined, a)
			}
		}
		if i != len(strs) {
			t.Errorf("joinBoolValues(%q) = %q: lost arguments", strs, joined)
		}
		if _, err := parseArgs(fs, strs); err != nil && !errors.Is(err, flag.ErrHelp) && err.Error() == "" {
			t.Errorf("empty error for %q", strs)
		}
	})
}

// FuzzScanBaselineJSON: any bytes are scanned without a panic, and every problem found in
// valid JSON says where it is ("line:column: ").
func FuzzScanBaselineJSON(f *testing.F) {
	for _, s := range []string{
		`{"version": 1, "scenario": "q", "seed": 1, "figures": {"a.b.c": 1, "a.b.c": 2}}`,
		`{"version": 1, "scenario": "q", "seed": 1, "figures": {"a.b.c": 1}, "settings": {"seed": "1", "seed": 2}}`,
		`{"a": {"b": 1, "b": [{"c": 1, "c": 2}]}, "a": null}`,
		`{"figures": {"x": 1e400}}`, "\ufeff{}", `[`, `{"a":`, ``, `{"":0,"":0}0`,
	} {
		f.Add([]byte(s))
	}
	lineCol := regexp.MustCompile(`^[0-9]+:[0-9]+: `)
	f.Fuzz(func(t *testing.T, data []byte) {
		err := scanBaselineJSON(data)
		if err == nil {
			return
		}
		var first json.RawMessage
		if json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff")))).Decode(&first) != nil {
			t.Fatalf("invalid JSON %q: %v (it is ReadBaselineJSON's to report)", data, err)
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !lineCol.MatchString(line) {
				t.Errorf("problem %q has no line:column", line)
			}
		}
	})
}

// FuzzRecordingSettings: a replay.json beside a run diff compares never panics diff, and
// what it accepts gives every replay.* setting, in one order; what it refuses is named by
// its path, once.
func FuzzRecordingSettings(f *testing.F) {
	for _, s := range []string{
		`{"pods": "t.jsonl", "podStream": {"events": 3, "start": "2026-01-01T00:00:00Z"}, "services": 1, "nodes": 2, "timesFrom": "recorded", "start": "cold"}`,
		`{"pods": "x"}`, `{"podStream": null}`, `{"podStream": {"start": "yesterday"}}`, `[]`, ``, `{"pods": 1}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, replayReportFile)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		settings, err := recordingSettings(dir)
		if err != nil {
			if strings.Count(err.Error(), path) != 1 || !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("error %q does not begin with the file's path, once", err)
			}
			return
		}
		want := []string{"replay.pods", "replay.podStream.events", "replay.podStream.start", "replay.services", "replay.nodes", "replay.timesFrom", "replay.start"}
		if len(settings) != len(want) {
			t.Fatalf("%d settings, want %d", len(settings), len(want))
		}
		for i, s := range settings {
			if s.Path != want[i] {
				t.Errorf("setting %d is %s, want %s", i, s.Path, want[i])
			}
		}
	})
}
