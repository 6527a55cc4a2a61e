package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"testing"

	"gonum.org/v1/plot/vg"

	"epsim/sim"
)

// TestChartsGolden records each chart's finding (title and subtitle, computed from the data),
// its series (name, point count, last point) and a digest of the plotted data instead of
// pixels (asim style), and checks every chart renders as a valid PNG and SVG.
func TestChartsGolden(t *testing.T) {
	res := fixtureResults()
	charts, err := Charts(NewSummary(res, nil), res.Series, res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, c := range charts {
		fmt.Fprintf(&buf, "%s (%s)\n  title: %s\n  subtitle: %s\n", c.Name, c.Digest(), c.Title, c.Subtitle)
		for _, s := range c.Series {
			last := "-"
			if n := len(s.XYs); n > 0 {
				last = fmt.Sprintf("(%g, %g)", s.XYs[n-1].X, s.XYs[n-1].Y)
			}
			fmt.Fprintf(&buf, "  %-16s %4d points, last %s\n", s.Name, len(s.XYs), last)
		}
		checkRendered(t, c)
	}
	checkGolden(t, "charts.golden", buf.Bytes())
}

// checkRendered renders c in both formats and checks the PNG header decodes and the SVG is
// well-formed XML with an <svg> root.
func checkRendered(t *testing.T, c *Chart) {
	t.Helper()
	var p bytes.Buffer
	if err := c.Render(&p, "png"); err != nil {
		t.Fatalf("%s png: %v", c.Name, err)
	}
	cfg, err := png.DecodeConfig(&p)
	if err != nil {
		t.Fatalf("%s png: %v", c.Name, err)
	}
	// 8 × 4.5 in at 192 dpi: twice the 768×432 pixels of a plain 96 dpi canvas, sharp on a
	// slide.
	if want := int(math.Round(float64(c.height()/vg.Inch) * 192)); cfg.Width != 1536 || cfg.Height != want {
		t.Errorf("%s png is %dx%d, want 1536x%d (192 dpi)", c.Name, cfg.Width, cfg.Height, want)
	}
	var s bytes.Buffer
	if err := c.Render(&s, "svg"); err != nil {
		t.Fatalf("%s svg: %v", c.Name, err)
	}
	dec := xml.NewDecoder(&s)
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s svg is not well-formed XML: %v", c.Name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s svg root element is %q, want svg", c.Name, root)
	}
}

func TestChartsEdgeCases(t *testing.T) {
	for name, res := range map[string]*sim.Results{
		"empty":     {Scenario: "empty"},
		"quiet":     {Scenario: "quiet", Phases: []sim.PhaseResult{{Name: "wait", End: sim.Time(5e9)}}, Series: []sim.Bucket{{Second: 3}}},
		"one-phase": fixtureResultsOnePhase(),
	} {
		t.Run(name, func(t *testing.T) {
			for _, modes := range [][]sim.Mode{nil, {sim.ModeEndpoints}, {sim.ModeEndpointSlices}} {
				charts, err := Charts(NewSummary(res, modes), res.Series, res.Layout)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range charts {
					checkRendered(t, c)
				}
			}
		})
	}
}

func fixtureResultsOnePhase() *sim.Results {
	res := fixtureResults()
	res.Phases = res.Phases[1:2]
	return res
}

func TestChartRenderUnknownFormat(t *testing.T) {
	res := fixtureResults()
	charts, err := Charts(NewSummary(res, nil), res.Series, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := charts[0].Render(io.Discard, "gif"); err == nil {
		t.Error("Render accepted format gif")
	}
}

func TestChartsDeterministicSVG(t *testing.T) {
	res := fixtureResults()
	render := func() []byte {
		charts, err := Charts(NewSummary(res, nil), res.Series, res.Layout)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, c := range charts {
			if err := c.Render(&buf, "svg"); err != nil {
				t.Fatal(err)
			}
		}
		return buf.Bytes()
	}
	if !bytes.Equal(render(), render()) {
		t.Error("two renders of the same results differ")
	}
}
