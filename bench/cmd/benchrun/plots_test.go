package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/bench/load"
)

// syntheticResults is a small results file as -json writes it: two
// rounds of two load scenarios and one listen scenario, where mcp-go
// lacks the listen stream.
func syntheticResults(t *testing.T) string {
	t.Helper()
	var recs []Record
	for round := 1; round <= 2; round++ {
		for i, srv := range []string{"snodo", "go-sdk", "mcp-go"} {
			f := float64(i + 1)
			recs = append(recs,
				Record{Round: round, Result: load.Result{Server: srv, Scenario: "stdio C=16", Param: 16, Requests: 100, Throughput: 9000 / f, P50us: 100 * f, P99us: 900 * f, CPUPerReq: 40 * f}},
				Record{Round: round, Result: load.Result{Server: srv, Scenario: "http K=16", Param: 16, Requests: 100, Throughput: 6000 / f, P50us: 300 * f, P99us: 2000 * f, CPUPerReq: 90 * f}},
			)
			listen := load.Result{Server: srv, Scenario: "listen N=1000", Param: 1000, Streams: 1000, HeapPerStreamB: 3000 * f, StackPerStreamB: 1024}
			if srv == "mcp-go" {
				listen = load.Result{Server: srv, Scenario: "listen N=1000", Param: 1000, Unsupported: true}
			}
			recs = append(recs, Record{Round: round, Result: listen})
		}
	}
	b, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// svgText parses an SVG document as XML and returns its text and
// attribute values, so a test can look for labels and colors.
func svgText(t *testing.T, b []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var out strings.Builder
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, b)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = v.Name.Local
			}
			for _, a := range v.Attr {
				out.WriteString(a.Value + "\n")
			}
		case xml.CharData:
			out.Write(v)
			out.WriteString("\n")
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return out.String()
}

// The plots of a results file are SVG documents naming every server,
// every scenario and each median.
func TestPlotsOfAResultsFile(t *testing.T) {
	dir := t.TempDir()
	if err := redraw(syntheticResults(t), dir, "the synthetic run"); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"perf-throughput.svg": {"Throughput", "requests per second", "stdio C=16", "http K=16",
			"snodo, stdio C=16: 9000", "go-sdk, stdio C=16: 4500", "mcp-go, http K=16: 2000"},
		"perf-cpu.svg": {"CPU µs per request", "snodo, http K=16: 90.00", "mcp-go, stdio C=16: 120"},
		"perf-latency.svg": {"p50 to p99", "log scale", "snodo, stdio C=16: 100 to 900",
			"go-sdk, http K=16: 600 to 4000"},
		"perf-stream-memory.svg": {"listen N=1000", "snodo, listen N=1000: 3.93", "go-sdk, listen N=1000: 6.86", "n/a"},
	}
	for file, labels := range want {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		text := svgText(t, b)
		for _, l := range append(labels, "snodo", "go-sdk", "mcp-go", "Median of 2 round(s); the synthetic run.") {
			if !strings.Contains(text, l) {
				t.Errorf("%s lacks %q:\n%s", file, l, text)
			}
		}
	}
	// mcp-go has no listen figure: no bar, an n/a.
	b, _ := os.ReadFile(filepath.Join(dir, "perf-stream-memory.svg"))
	if strings.Contains(svgText(t, b), "mcp-go, listen") {
		t.Error("a bar for an unsupported scenario")
	}
}

// The report embeds the plots the run drew, and only those.
func TestReportEmbedsThePlots(t *testing.T) {
	out := render(nil, nil, runInfo{Rounds: 1, Date: time.Unix(0, 0), Plots: []string{"perf-throughput.svg", "perf-latency.svg"}})
	if !strings.Contains(out, "![Requests per second](perf-throughput.svg)") || !strings.Contains(out, "![Latency, p50 to p99](perf-latency.svg)") {
		t.Fatalf("plots not embedded:\n%s", out)
	}
	if strings.Contains(out, "perf-cpu.svg") {
		t.Fatalf("a plot not drawn is embedded:\n%s", out)
	}
	if out := render(nil, nil, runInfo{Rounds: 1, Date: time.Unix(0, 0)}); strings.Contains(out, "### Plots") {
		t.Fatalf("a run without plots has a plots section:\n%s", out)
	}
}

// A run with no load or listen scenario draws nothing.
func TestNoPlotsWithoutTheirScenarios(t *testing.T) {
	recs := []Record{{Round: 1, Result: load.Result{Server: "snodo", Scenario: "storm N=1000", Started: 10}}}
	files, err := writePlots(t.TempDir(), recs, "note")
	if err != nil || len(files) != 0 {
		t.Fatalf("wrote %v, %v", files, err)
	}
}
