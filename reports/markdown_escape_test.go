package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestReportsEscapeUserText: a scenario, plan, axis or file name with Markdown in it
// stays text in report.md (the heading stays one heading, code spans stay whole, no raw
// HTML), and report.html shows it as given. A name like "evil|name <script>" or a file
// name with a backtick once broke report.md's headings and code spans, and the HTML of a
// backticked file name had a mismatched code span.
func TestReportsEscapeUserText(t *testing.T) {
	const evil = "evil|name <script>x</script> *b* _i_ [l](u) `c`"
	const file = "we|ird`x <b>.yaml"
	run := fixtureRunReport(t, false)
	run.Summary.Scenario = evil
	run.File = file
	plan := fixturePlan()
	plan.Plan.Name = evil
	plan.Plan.Description = "# not a heading\n- not a list\n1. not a list either <i>"
	plan.Plan.File = file
	plan.Plan.Axes[0].Name = "re|pl*icas"
	for _, tc := range []struct {
		name     string
		md, html func(w *bytes.Buffer) error
		// heading is the first line of the Markdown report.
		heading string
	}{
		{"run", func(w *bytes.Buffer) error { return WriteRunMarkdown(w, run) }, func(w *bytes.Buffer) error { return WriteRunHTML(w, run) },
			`# Run report: evil\|name \<script\>x\</script\> \*b\* \_i\_ \[l\](u) \` + "`c\\`"},
		{"plan", func(w *bytes.Buffer) error { return WritePlanMarkdown(w, plan, nil) }, func(w *bytes.Buffer) error { return WritePlanHTML(w, plan, nil) },
			`# Capacity plan: evil\|name \<script\>x\</script\> \*b\* \_i\_ \[l\](u) \` + "`c\\`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var md, page bytes.Buffer
			if err := tc.md(&md); err != nil {
				t.Fatal(err)
			}
			if err := tc.html(&page); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(md.String(), "\n")
			if lines[0] != tc.heading {
				t.Errorf("heading %q, want %q", lines[0], tc.heading)
			}
			for _, l := range lines {
				l = strings.ReplaceAll(l, file, "") // in code spans only, checked below
				if strings.Contains(l, "<script>") || strings.Contains(l, "<b>") || strings.Contains(l, "<i>") {
					t.Errorf("raw HTML in report.md: %q", l)
				}
				if strings.HasPrefix(l, "# not") || strings.HasPrefix(l, "- not") || strings.HasPrefix(l, "1. not") {
					t.Errorf("the description made a block: %q", l)
				}
			}
			// The file name is one code span whose fence its backtick cannot close.
			if !strings.Contains(md.String(), "``"+file+"``") {
				t.Errorf("report.md lacks the file as a code span ``%s``", file)
			}
			h := page.String()
			if !strings.Contains(h, "<code>we|ird`x &lt;b&gt;.yaml</code>") {
				t.Errorf("report.html lacks the file name as one <code>:\n%.3000s", h)
			}
			if !strings.Contains(h, "evil|name &lt;script&gt;x&lt;/script&gt; *b* _i_ [l](u) `c`</h1>") || strings.Contains(h, `\|`) {
				t.Errorf("report.html does not show the name as given:\n%.1500s", h)
			}
		})
	}
	// A pipe in a table cell is escaped once, escaped or not.
	for in, want := range map[string]string{"a|b": `a\|b`, `a\|b`: `a\|b`, "a||b": `a\|\|b`, "`x|y`": "`x\\|y`"} {
		if got := escapePipes(in); got != want {
			t.Errorf("escapePipes(%q) = %q, want %q", in, got, want)
		}
	}
}
