package reports

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"epsim/sim"
)

// The report is built once as a list of blocks and rendered twice, as Markdown and as HTML,
// so both always say the same thing.
type blockKind int

const (
	blockHeading blockKind = iota
	blockPara
	blockList
	blockTable
	blockChart
)

type block struct {
	kind  blockKind
	level int
	text  string
	items []string
	rows  [][]string // rows[0] is the header
	chart *Chart
}

// planDoc builds the report's blocks. charts are the charts to show (by name).
func (r *PlanResults) planDoc(charts []*Chart) []block {
	var doc []block
	h := func(level int, text string) { doc = append(doc, block{kind: blockHeading, level: level, text: text}) }
	para := func(format string, args ...any) {
		doc = append(doc, block{kind: blockPara, text: fmt.Sprintf(format, args...)})
	}
	list := func(items []string) { doc = append(doc, block{kind: blockList, items: items}) }
	table := func(rows [][]string) { doc = append(doc, block{kind: blockTable, rows: rows}) }
	r = r.markdownSafe()
	spec := &r.Plan

	h(1, "Capacity plan: "+spec.Name)
	if spec.Description != "" {
		para("%s", strings.TrimSpace(spec.Description))
	}
	var axes []string
	for _, ax := range spec.Axes {
		axes = append(axes, fmt.Sprintf("%s ∈ {%s} (%s)", ax.Name, strings.Join(ax.Values, ", "), mdCodes(ax.Paths)))
	}
	seeds := "seed " + r.seeds()
	para("Plan %s, base scenario %s, %s; %s: %s. Bytes are in SI units (1 KB = 1000 B).",
		mdCode(spec.File), mdCode(spec.Scenario), seeds, plural(spec.GridPoints, "grid point"), strings.Join(axes, "; "))
	if len(spec.Set) > 0 {
		para("Every point also sets %s.", mdCodes(spec.Set))
	}

	h(2, "Budgets")
	list(r.budgetLines())

	h(2, "Recommended maxEndpointsPerSlice")
	recs := r.Recommendations()
	para("Per service size: the EndpointSlice layout that fans out the fewest bytes over the same timeline (so the fewest per change) while hitting no limit below. The Endpoints column is the legacy object on the same pods.")
	header := []string{"group", "endpoints per service", "recommended", "bytes fanned out", "per rolling update"}
	if len(spec.Churn) > 0 {
		header = append(header, "per node per day")
	}
	header = append(header, "Endpoints instead", "verdict")
	rows := [][]string{header}
	var why []string
	for _, rec := range recs {
		label := rec.Label
		if label == "" {
			label = "all"
		}
		row := []string{label, serviceSizeText(rec.EndpointsPerService, rec.MixedSizes, rec.SmallestService)}
		if rec.Best == nil {
			row = append(row, "-", "-", "-")
			if len(spec.Churn) > 0 {
				row = append(row, "-")
			}
			row = append(row, "-", "no point of this group ran")
			rows = append(rows, row)
			continue
		}
		best := rec.Best
		ms := best.mode(sim.ModeEndpointSlices)
		row = append(row, fmt.Sprintf("%d per slice", best.MaxEndpointsPerSlice), FormatBytes(ms.FanoutBytes), r.rolloutText(best, sim.ModeEndpointSlices))
		if len(spec.Churn) > 0 {
			v, _ := best.perNodeBytesPerDay(spec.Churn, sim.ModeEndpointSlices)
			row = append(row, FormatBytes(v))
		}
		endpoints := "-"
		if em := best.mode(sim.ModeEndpoints); em != nil {
			endpoints = FormatBytes(em.FanoutBytes)
			if lim := r.Limits(best, sim.ModeEndpoints); len(lim) > 0 {
				endpoints += " (" + limitKinds(lim) + ")"
			}
		}
		verdict := "within budget"
		if !rec.WithinBudget {
			verdict = "no layout within budget; fewest bytes shown (" + limitKinds(r.Limits(best, sim.ModeEndpointSlices)) + ")"
		}
		row = append(row, endpoints, verdict)
		rows = append(rows, row)
		why = append(why, r.whyLine(rec))
	}
	table(rows)
	if len(why) > 0 {
		list(why)
	}

	if sizeRows := r.sizeRows(recs); len(sizeRows) > 1 {
		h(3, "Per size of your Services")
		para("The scenario's own Services, grouped by size (endpoints per Service): for each group, the layout that fans out the fewest bytes for those Services alone, and what each layout costs them. maxEndpointsPerSlice is one kube-controller-manager flag for every Service, so this says which way each group pulls; the recommendation above weighs them all.")
		table(sizeRows)
	}

	if len(recs) == 1 && len(recs[0].Points) > 1 {
		if rows := r.phaseRows(recs[0].Points); len(rows) > 1 {
			h(2, "Cost per phase")
			para("Each phase of the timeline (a Service create, a single endpoint update, a rolling update…) with legacy Endpoints and with each EndpointSlice layout: the rows of KEP-752's cost table. Watch events are writes times watchers.")
			table(rows)
		}
	}

	h(2, "Limits hit")
	// Endpoints do not depend on maxEndpointsPerSlice: their limits are listed once per
	// group, the EndpointSlice ones per point.
	var hits []string
	for _, rec := range recs {
		for k, p := range rec.Points {
			for _, m := range AllModes {
				if m == sim.ModeEndpoints && k > 0 {
					continue
				}
				where := fmt.Sprintf("point %d (%s)", p.Index, r.label(p))
				if m == sim.ModeEndpoints && len(rec.Points) > 1 {
					where = groupName(rec.Label)
				}
				for _, l := range r.Limits(p, m) {
					hits = append(hits, fmt.Sprintf("%s: %s: %s", where, modeTitle(m), l.Text))
				}
			}
		}
	}
	var failed []string
	for i := range r.Points {
		if p := &r.Points[i]; !p.ok() {
			failed = append(failed, fmt.Sprintf("point %d (%s): %s", p.Index, r.label(p), p.Error))
		}
	}
	// A failed point has no figures to hit a limit with: "no point hits a limit" would be
	// true only of the points that ran, and of none when every point failed.
	switch {
	case len(hits) > 0:
		list(hits)
	case len(failed) == 0:
		para("No grid point hits a limit.")
	case len(failed) == len(r.Points):
		all := "all " + plural(len(failed), "point")
		if len(failed) == 1 {
			all = "its one point"
		}
		para("No grid point ran: %s failed (see Failed runs below), so no limit could be checked.", all)
	default:
		para("No grid point that ran hits a limit; %s of %d failed and could not be checked (see Failed runs below).",
			formatCount(int64(len(failed))), len(r.Points))
	}
	if len(failed) > 0 {
		h(2, "Failed runs")
		list(failed)
	}

	if len(charts) > 0 {
		h(2, "Charts")
		for _, c := range charts {
			doc = append(doc, block{kind: blockChart, chart: c, text: chartCaption(c.Name)})
		}
	}
	if spec.Notes != "" {
		h(2, "Notes")
		for _, p := range strings.Split(strings.TrimSpace(spec.Notes), "\n\n") {
			para("%s", strings.Join(strings.Fields(p), " "))
		}
	}

	h(2, "All grid points")
	header = []string{"#"}
	for _, ax := range spec.Axes {
		header = append(header, ax.Name)
	}
	header = append(header, "mode", "writes", "failed", "bytes fanned out", "per rolling update", "per node", "peak egress", "largest object", "writes/s", "p99", "programming p99", "limits")
	rows = [][]string{header}
	for i := range r.Points {
		p := &r.Points[i]
		for _, m := range AllModes {
			ms := p.mode(m)
			if ms == nil && p.ok() {
				continue
			}
			row := []string{strconv.Itoa(p.Index)}
			row = append(row, p.Values...)
			if ms == nil {
				row = append(row, "-", "failed run", "", "", "", "", "", "", "", "", "", "")
				rows = append(rows, row)
				break
			}
			perNode := FormatBytes(ms.PerNodeBytes)
			if v, ok := p.perNodeBytesPerDay(spec.Churn, m); ok {
				perNode = FormatBytes(v) + "/day"
			}
			p99, programming := "-", "-"
			if ms.Propagation.Count > 0 {
				p99 = FormatSeconds(ms.Propagation.P99Seconds)
			}
			if ms.Programming.Count > 0 {
				programming = FormatSeconds(ms.Programming.P99Seconds)
			}
			row = append(row, modeTitle(m), formatCount(ms.Writes.Total), formatCount(ms.FailedWrites),
				FormatBytes(ms.FanoutBytes), r.rolloutText(p, m), perNode, FormatRate(ms.PeakEgressBytesPerSec),
				FormatBytes(ms.MaxObjectBytes), fmt.Sprintf("%.1f", p.WritesPerSec.mode(m)), p99, programming, limitKinds(r.Limits(p, m)))
			rows = append(rows, row)
		}
	}
	table(rows)
	return doc
}

// phaseRows is the per-phase table of one group of points that differ only in
// maxEndpointsPerSlice: per phase, writes, the largest object, watch events and bytes fanned
// out, for Endpoints (from the first point that ran it) and each point's EndpointSlices.
func (r *PlanResults) phaseRows(points []*PlanPoint) [][]string {
	header := []string{"phase", "figure", "Endpoints"}
	var ran *PlanPoint
	for _, p := range points {
		header = append(header, fmt.Sprintf("%d per slice", p.MaxEndpointsPerSlice))
		if ran == nil && p.ok() {
			ran = p
		}
	}
	rows := [][]string{header}
	if ran == nil {
		return rows
	}
	figures := []struct {
		name string
		get  func(m *ModeSummary) string
	}{
		{"writes", func(m *ModeSummary) string { return formatCount(m.Writes.Total) }},
		{"largest object", func(m *ModeSummary) string { return FormatBytes(m.MaxObjectBytes) }},
		{"watch events", func(m *ModeSummary) string { return formatCount(m.WatchEvents) }},
		{"bytes fanned out", func(m *ModeSummary) string { return FormatBytes(m.FanoutBytes) }},
	}
	for i := range ran.Summary.Phases {
		name := ran.Summary.Phases[i].Name
		for _, f := range figures {
			row := []string{mdCode(name), f.name}
			cell := func(p *PlanPoint, m sim.Mode) string {
				ph := p.phase(name)
				if ph == nil || ph.Mode(m) == nil {
					return "-"
				}
				return f.get(ph.Mode(m))
			}
			row = append(row, cell(ran, sim.ModeEndpoints))
			for _, p := range points {
				row = append(row, cell(p, sim.ModeEndpointSlices))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// sizeRows is the table of the recommendations per Service size, with a header; nil
// (or the header only) when no group has more than one Service.
func (r *PlanResults) sizeRows(recs []PlanRecommendation) [][]string {
	rows := [][]string{{"group", "Services of", "Services", "recommended", "bytes fanned out", "every layout", "Endpoints instead"}}
	for _, rec := range recs {
		label := rec.Label
		if label == "" {
			label = "all"
		}
		for _, sz := range rec.BySize {
			best, bytes := "-", "-"
			if sz.Best != nil {
				best = fmt.Sprintf("%d per slice", sz.Best.MaxEndpointsPerSlice)
				for k, p := range rec.Points {
					if p == sz.Best {
						bytes = FormatBytes(sz.Bytes[k])
					}
				}
				if sz.Failed {
					best += " (failed writes at every layout)"
				}
				// Layouts that cost the group the same bytes are all as good.
				same, first, ran := true, int64(-1), 0
				for _, b := range sz.Bytes {
					switch {
					case b < 0:
						continue
					case first < 0:
						first = b
					case b != first:
						same = false
					}
					ran++
				}
				if same && ran > 1 {
					best = "any (the same bytes)"
				}
			}
			var every []string
			for k, p := range rec.Points {
				v := "failed run"
				if sz.Bytes[k] >= 0 {
					v = FormatBytes(sz.Bytes[k])
				}
				every = append(every, fmt.Sprintf("%d: %s", p.MaxEndpointsPerSlice, v))
			}
			rows = append(rows, []string{label, sz.Size, formatCount(int64(sz.Services)), best, bytes,
				strings.Join(every, "; "), FormatBytes(sz.EndpointsBytes)})
		}
	}
	return rows
}

// groupName names a recommendation group.
func groupName(label string) string {
	if label == "" {
		return "all points"
	}
	return label
}

// seeds lists the distinct seeds of the points ("1", or "1, 2").
func (r *PlanResults) seeds() string {
	var out []string
	for _, p := range r.Points {
		s := strconv.FormatUint(p.Seed, 10)
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

func (r *PlanResults) label(p *PlanPoint) string {
	parts := make([]string, 0, len(r.Plan.Axes))
	for i, ax := range r.Plan.Axes {
		if i < len(p.Values) {
			parts = append(parts, ax.Name+"="+p.Values[i])
		}
	}
	return strings.Join(parts, ", ")
}

func (r *PlanResults) rolloutText(p *PlanPoint, m sim.Mode) string {
	if v, ok := p.rolloutBytes(m); ok {
		return FormatBytes(v)
	}
	return "-"
}

// budgetLines states each budget and how it is measured.
func (r *PlanResults) budgetLines() []string {
	b := r.Plan.Budgets
	var out []string
	if len(r.Plan.Churn) > 0 {
		var parts []string
		for _, c := range r.Plan.Churn {
			parts = append(parts, fmt.Sprintf("%s × %s", c.Phase, strconv.FormatFloat(c.PerDay, 'f', -1, 64)))
		}
		line := "Churn per day: " + strings.Join(parts, ", ") + "; per-day figures add each phase's bytes per node that many times."
		out = append(out, line)
	}
	if b.PerNodeBytesPerDay > 0 {
		out = append(out, fmt.Sprintf("Per-node ingress ≤ %s/day.", FormatBytes(b.PerNodeBytesPerDay)))
	}
	if b.PeakEgressBytesPerSec > 0 {
		out = append(out, fmt.Sprintf("Peak API server egress (all replicas, busiest second) ≤ %s (%s).", FormatRate(b.PeakEgressBytesPerSec), formatBits(b.PeakEgressBytesPerSec*8)))
	}
	if b.WritesPerSec > 0 {
		out = append(out, fmt.Sprintf("Each controller's write rate, sustained over %ds, below %.1f writes/s.", b.WriteWindowSeconds, b.WritesPerSec))
	} else {
		out = append(out, fmt.Sprintf("Each controller's write rate, sustained over %ds, below its client QPS (at the QPS, its rate limiter is holding writes back).", b.WriteWindowSeconds))
	}
	out = append(out, "Always: objects within the etcd request limit (the scenario's objectSizeLimit), no Endpoints truncation at 1000 addresses, API server egress below its bandwidth, propagation p99 and network programming p99 within the scenario's SLO, kube-proxy syncing less than 90% of the time, every pod finding a node (cluster.maxPodsPerNode).")
	return out
}

// formatBits prints a bit rate in SI units ("1.0 Gbit/s").
func formatBits(bitsPerSec int64) string {
	s := FormatBytes(bitsPerSec)
	s = strings.TrimSuffix(s, "B")
	return strings.TrimSpace(s) + "bit/s"
}

// whyLine explains one recommendation against the other layouts of its group.
func (r *PlanResults) whyLine(rec PlanRecommendation) string {
	var others []string
	for _, p := range rec.Points {
		if p == rec.Best {
			continue
		}
		ms := p.mode(sim.ModeEndpointSlices)
		if ms == nil {
			others = append(others, fmt.Sprintf("%d per slice: run failed", p.MaxEndpointsPerSlice))
			continue
		}
		s := fmt.Sprintf("%d per slice: %s", p.MaxEndpointsPerSlice, FormatBytes(ms.FanoutBytes))
		if lim := r.Limits(p, sim.ModeEndpointSlices); len(lim) > 0 {
			s += ", " + lim[0].Text
		}
		others = append(others, s)
	}
	label := rec.Label
	if label == "" {
		label = "all points"
	}
	best := rec.Best
	line := fmt.Sprintf("%s: %d per slice fans out %s over the run", label, best.MaxEndpointsPerSlice, FormatBytes(best.mode(sim.ModeEndpointSlices).FanoutBytes))
	if len(others) > 0 {
		line += " (" + strings.Join(others, "; ") + ")"
	}
	return line + "."
}

// limitKinds lists the kinds of limits hit for a reader, comma-separated, or "-".
func limitKinds(ls []PlanLimit) string {
	if len(ls) == 0 {
		return "-"
	}
	return joinLimitKinds(ls, ", ")
}

// csvLimits lists the kinds of limits hit, space-separated ("" for none): one CSV field
// that needs no quoting.
func csvLimits(ls []PlanLimit) string {
	return joinLimitKinds(ls, " ")
}

// joinLimitKinds joins the kinds of ls with sep.
func joinLimitKinds(ls []PlanLimit, sep string) string {
	kinds := make([]string, len(ls))
	for i, l := range ls {
		kinds[i] = l.Kind
	}
	return strings.Join(kinds, sep)
}

// chartCaption says what a plan chart shows.
func chartCaption(name string) string {
	switch name {
	case "bytes-per-rollout":
		return "Bytes fanned out to all watchers during the rolling update, against endpoints per service: one line for legacy Endpoints, one per maxEndpointsPerSlice."
	case "per-node-ingress":
		return "Bytes one kube-proxy receives, against the number of nodes."
	case "writes-vs-batch-period":
		return "API writes over the whole run, against the controllers' batch period."
	case "bytes-per-phase":
		return "Bytes fanned out to all watchers in each phase: one bar for legacy Endpoints, one per maxEndpointsPerSlice."
	}
	return name
}

// WritePlanMarkdown writes the report as Markdown; charts are linked as NAME.png beside it.
func WritePlanMarkdown(w io.Writer, r *PlanResults, charts []*Chart) error {
	return writeBlocksMarkdown(w, r.planDoc(charts))
}

// WritePlanHTML writes the report as one self-contained HTML page: the charts are embedded
// as SVG data URIs.
func WritePlanHTML(w io.Writer, r *PlanResults, charts []*Chart) error {
	return writeBlocksHTML(w, "Capacity plan: "+r.Plan.Name, r.planDoc(charts), svgImage)
}

// svgImage renders a chart as SVG for embedding.
func svgImage(c *Chart) (string, []byte, error) {
	var svg bytes.Buffer
	if err := c.Render(&svg, "svg"); err != nil {
		return "", nil, err
	}
	return "image/svg+xml", svg.Bytes(), nil
}

// writeBlocksMarkdown renders a document as Markdown; charts are linked as NAME.png beside it.
func writeBlocksMarkdown(w io.Writer, doc []block) error {
	var b bytes.Buffer
	for i, bl := range doc {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch bl.kind {
		case blockHeading:
			fmt.Fprintf(&b, "%s %s\n", strings.Repeat("#", bl.level), bl.text)
		case blockPara:
			fmt.Fprintf(&b, "%s\n", bl.text)
		case blockList:
			for _, it := range bl.items {
				fmt.Fprintf(&b, "- %s\n", it)
			}
		case blockTable:
			for j, row := range bl.rows {
				cells := make([]string, len(row))
				for k, c := range row {
					cells[k] = escapePipes(c)
				}
				fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
				if j == 0 {
					fmt.Fprintf(&b, "|%s\n", strings.Repeat(" --- |", len(row)))
				}
			}
		case blockChart:
			fmt.Fprintf(&b, "![%s](%s.png)\n\n%s\n", mdText(bl.chart.Title), bl.chart.Name, bl.text)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeBlocksHTML renders a document as one self-contained HTML page titled title: no
// external resource; image gives each chart's bytes and MIME type, embedded as a data URI.
func writeBlocksHTML(w io.Writer, title string, doc []block, image func(c *Chart) (mime string, data []byte, err error)) error {
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>` + html.EscapeString(title) + `</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; font-size: 90%; }
.table { overflow-x: auto; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.4em; text-align: left; }
th { background: #f3f3f3; }
td { font-variant-numeric: tabular-nums; }
code { background: #f3f3f3; padding: 0 0.2em; }
figure { margin: 1.5em 0; }
img { max-width: 100%; }
</style>
</head>
<body>
`)
	for _, bl := range doc {
		switch bl.kind {
		case blockHeading:
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", bl.level, inlineHTML(bl.text), bl.level)
		case blockPara:
			fmt.Fprintf(&b, "<p>%s</p>\n", inlineHTML(bl.text))
		case blockList:
			b.WriteString("<ul>\n")
			for _, it := range bl.items {
				fmt.Fprintf(&b, "<li>%s</li>\n", inlineHTML(it))
			}
			b.WriteString("</ul>\n")
		case blockTable:
			// A wide grid (many axes, a point hitting every limit) wraps its cells at the
			// camelCase words (wordBreaks), and if still wider than the page scrolls in its
			// own box, not the page.
			b.WriteString("<div class=\"table\"><table>\n")
			for j, row := range bl.rows {
				cell := "td"
				if j == 0 {
					cell = "th"
				}
				b.WriteString("<tr>")
				for _, c := range row {
					fmt.Fprintf(&b, "<%s>%s</%s>", cell, wordBreaks(inlineHTML(c)), cell)
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</table></div>\n")
		case blockChart:
			mime, data, err := image(bl.chart)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "<figure><img alt=\"%s\" src=\"data:%s;base64,%s\"><figcaption>%s</figcaption></figure>\n",
				html.EscapeString(bl.chart.Title), mime, base64.StdEncoding.EncodeToString(data), inlineHTML(bl.text))
		}
	}
	b.WriteString("</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// wordBreaks lets a browser break the HTML h inside camelCase words, where a lower-case
// letter or digit meets an upper-case one ("egress<wbr>Saturated", "max<wbr>Endpoints<wbr>Per<wbr>Slice"):
// a plan's table heads and limits are such words, and unbroken they made the "All grid
// points" table of kep-752 wider than a 1400-pixel window. Tags are left as they are; the
// entities html.EscapeString writes have no upper-case letter.
func wordBreaks(h string) string {
	var b strings.Builder
	inTag := false
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '<':
			inTag = true
		case c == '>':
			inTag = false
		case !inTag && i > 0 && 'A' <= c && c <= 'Z' && ('a' <= h[i-1] && h[i-1] <= 'z' || '0' <= h[i-1] && h[i-1] <= '9'):
			b.WriteString("<wbr>")
		}
		b.WriteByte(c)
	}
	return b.String()
}

// The blocks' text is a small subset of Markdown that both renderers read: code spans
// (a run of backticks up to the same run, as CommonMark) and backslash escapes of ASCII
// punctuation. Text a user gave (names, descriptions, file names, grid values) enters it
// only through mdText or mdCode, so that it cannot make headings, links, emphasis, tables
// or raw HTML of the Markdown report, nor break its code spans.

// mdText escapes s for the text of a block: every character Markdown gives a meaning
// inline, and the markers of a block (heading, list, quote) at the start of a line.
func mdText(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		line = strings.TrimLeft(line, " \t") // four spaces would start a code block
		if m := blockMarker.FindString(line); m != "" {
			// Escape the marker's last character: "\#", "1\.", "\-".
			b.WriteString(m[:len(m)-1] + `\` + m[len(m)-1:])
			line = line[len(m):]
		}
		for _, c := range line {
			if strings.ContainsRune("\\`*_[]<>&|~!", c) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
	}
	return b.String()
}

// escapePipes escapes each "|" of a table cell that is not escaped already (mdText escapes
// a user's; a code span's are not), so that it does not split the cell.
func escapePipes(c string) string {
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		if c[i] == '\\' && i+1 < len(c) {
			b.WriteString(c[i : i+2])
			i++
			continue
		}
		if c[i] == '|' {
			b.WriteByte('\\')
		}
		b.WriteByte(c[i])
	}
	return b.String()
}

// blockMarker matches what starts a heading, a list item, a thematic break or a setext
// underline at the start of a line.
var blockMarker = regexp.MustCompile(`^(#{1,6}|[-+=]|[0-9]{1,9}[.)])(\s|$)`)

// mdCode makes s a code span: its fence is a run of backticks longer than any in s, and a
// space pads s when it begins or ends with a backtick (CommonMark strips one each side).
func mdCode(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + strings.ReplaceAll(s, "\n", " ") + fence
}

// mdCodes lists each of ss as a code span, joined with ", ".
func mdCodes(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mdCode(s)
	}
	return strings.Join(out, ", ")
}

// markdownSafe returns a copy of r whose user-given text the report shows as text (the
// plan's name and description, the axes' names and values, and so the points' values) is
// escaped with mdText. Equal values stay equal, so groups and labels are unchanged.
func (r *PlanResults) markdownSafe() *PlanResults {
	c := *r
	esc := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = mdText(s)
		}
		return out
	}
	c.Plan.Name, c.Plan.Description = mdText(r.Plan.Name), mdText(strings.TrimSpace(r.Plan.Description))
	c.Plan.Axes = slices.Clone(r.Plan.Axes)
	for i := range c.Plan.Axes {
		c.Plan.Axes[i].Name = mdText(c.Plan.Axes[i].Name)
		c.Plan.Axes[i].Values = esc(c.Plan.Axes[i].Values)
	}
	c.Points = slices.Clone(r.Points)
	for i := range c.Points {
		c.Points[i].Values = esc(c.Points[i].Values)
	}
	return &c
}

// inlineHTML renders a block's text as HTML: code spans become <code>, backslash escapes
// the characters they escape, and everything is HTML-escaped.
func inlineHTML(s string) string {
	var b strings.Builder
	var text strings.Builder
	flush := func() {
		b.WriteString(html.EscapeString(text.String()))
		text.Reset()
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			text.WriteByte(s[i+1])
			i += 2
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			end := closingFence(s, i+n, n)
			if end < 0 {
				text.WriteString(s[i : i+n]) // no closing run: literal backticks
				i += n
				continue
			}
			code := s[i+n : end]
			if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
				code = code[1 : len(code)-1]
			}
			flush()
			b.WriteString("<code>" + html.EscapeString(code) + "</code>")
			i = end + n
		default:
			text.WriteByte(c)
			i++
		}
	}
	flush()
	return b.String()
}

// closingFence returns where in s, from from, a run of exactly n backticks starts, or -1.
func closingFence(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// isASCIIPunct reports whether c is ASCII punctuation, which a backslash escapes.
func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// planFigures are the per-mode columns of results.csv: every figure of summary.json.
var planFigures = figureColumns(reflect.TypeFor[ModeSummary](), "", nil)

// planRatioFigures are the ratio columns of each phase in results.csv.
var planRatioFigures = figureColumns(reflect.TypeFor[RatioSummary](), "", nil)

// planFigure is one column of results.csv per phase and mode: a summary.json field.
type planFigure struct {
	name  string
	index []int // reflect field index path
}

// get formats the figure of v (a ModeSummary or RatioSummary); "" for an absent one.
func (f planFigure) get(v any) string {
	x := reflect.ValueOf(v).Elem().FieldByIndex(f.index)
	switch x.Kind() {
	case reflect.Pointer:
		if x.IsNil() {
			return ""
		}
		x = x.Elem()
	}
	switch x.Kind() {
	case reflect.Int, reflect.Int64:
		return itoa(x.Int())
	case reflect.Float64:
		return ftoa(x.Float())
	case reflect.Bool:
		return strconv.FormatBool(x.Bool())
	}
	return x.String()
}

// figureColumns lists every figure of a summary struct in summary.json order, named by
// their JSON field paths ("writes.create", "propagation.p99Seconds"), so that results.csv
// holds every summary figure, including those added later. Durations as strings are left
// out: each has its figure in seconds.
func figureColumns(t reflect.Type, prefix string, index []int) []planFigure {
	var out []planFigure
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		idx := append(slices.Clone(index), i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Struct:
			out = append(out, figureColumns(ft, prefix+name+".", idx)...)
		case reflect.String:
		default:
			out = append(out, planFigure{name: prefix + name, index: idx})
		}
	}
	return out
}

func itoa(n int64) string   { return strconv.FormatInt(n, 10) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// planPhaseNames lists "total" and the phases of the first point that ran.
func (r *PlanResults) planPhaseNames() []string {
	names := []string{"total"}
	for i := range r.Points {
		if p := &r.Points[i]; p.ok() {
			for _, ph := range p.Summary.Phases {
				names = append(names, ph.Name)
			}
			break
		}
	}
	return names
}

// WritePlanCSV writes results.csv: one row per grid point with its axis values, the facts
// of its configuration, the derived figures the budgets use, the limits hit, and every
// summary figure per phase ("total" first) and mode ("phase.mode.figure"). A failed point
// has its error and empty figures.
func WritePlanCSV(w io.Writer, r *PlanResults) error {
	cw := csv.NewWriter(w)
	phases := r.planPhaseNames()
	header := []string{"index"}
	for _, ax := range r.Plan.Axes {
		header = append(header, "grid."+ax.Name)
	}
	header = append(header, "seed", "nodes", "services", "endpointsPerService", "maxEndpointsPerSlice", "batchPeriodSeconds", "encoding", "error")
	for _, m := range AllModes {
		header = append(header, string(m)+".writesPerSecSustained", string(m)+".perNodeBytesPerDay", string(m)+".rolloutFanoutBytes", string(m)+".limits")
	}
	for _, ph := range phases {
		for _, m := range AllModes {
			for _, f := range planFigures {
				header = append(header, ph+"."+string(m)+"."+f.name)
			}
		}
		for _, f := range planRatioFigures {
			header = append(header, ph+".ratio."+f.name)
		}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range r.Points {
		p := &r.Points[i]
		row := []string{strconv.Itoa(p.Index)}
		row = append(row, p.Values...)
		row = append(row, strconv.FormatUint(p.Seed, 10), strconv.Itoa(p.Nodes), strconv.Itoa(p.Services),
			strconv.Itoa(p.EndpointsPerService), strconv.Itoa(p.MaxEndpointsPerSlice), ftoa(p.BatchPeriodSeconds), p.Encoding, p.Error)
		for _, m := range AllModes {
			if p.mode(m) == nil {
				row = append(row, "", "", "", "")
				continue
			}
			perDay := ""
			if v, ok := p.perNodeBytesPerDay(r.Plan.Churn, m); ok {
				perDay = itoa(v)
			}
			rollout := ""
			if v, ok := p.rolloutBytes(m); ok {
				rollout = itoa(v)
			}
			row = append(row, ftoa(p.WritesPerSec.mode(m)), perDay, rollout, csvLimits(r.Limits(p, m)))
		}
		for _, name := range phases {
			var ph *PhaseSummary
			if name == "total" {
				if p.ok() {
					ph = &p.Summary.Total
				}
			} else {
				ph = p.phase(name)
			}
			for _, m := range AllModes {
				var ms *ModeSummary
				if ph != nil {
					ms = ph.Mode(m)
				}
				for _, f := range planFigures {
					if ms == nil {
						row = append(row, "")
					} else {
						row = append(row, f.get(ms))
					}
				}
			}
			for _, f := range planRatioFigures {
				if ph == nil || ph.Ratio == nil {
					row = append(row, "")
				} else {
					row = append(row, f.get(ph.Ratio))
				}
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
