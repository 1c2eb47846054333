package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestScenarioName(t *testing.T) {
	for in, want := range map[string]string{
		"tools-call-simple-text-2026-11-29T15-20-22-000Z":      "tools-call-simple-text",
		"sep-2164-resource-not-found-2026-11-29T15-20-22-123Z": "sep-2164-resource-not-found",
		"ping": "ping",
	} {
		if got := scenarioName(in); got != want {
			t.Errorf("scenarioName(%q) = %q, want %q", in, got, want)
		}
	}
}

func write(t *testing.T, dir, scenario, checks string) {
	t.Helper()
	d := filepath.Join(dir, "server-"+scenario+"-2026-11-29T15-00-00-000Z")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "checks.json"), []byte(checks), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOutcomesAndBaseline(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ping", `[{"id":"a","status":"SUCCESS"}]`)
	write(t, dir, "tools-list", `[{"id":"a","status":"SUCCESS"},{"id":"b","status":"FAILURE","errorMessage":"boom"}]`)
	write(t, dir, "caching", `[{"id":"a","status":"SUCCESS"},{"id":"w","status":"WARNING","errorMessage":"hmm"}]`)
	write(t, dir, "only-info", `[{"id":"a","status":"INFO"}]`)
	out, err := readOutcomes(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !out["ping"].ok() || out["tools-list"].ok() || out["caching"].ok() || out["only-info"].ok() {
		t.Fatalf("verdicts: %+v", out)
	}
	r := laneResult{name: "native/x", scenarios: map[string]outcome{"ping": out["ping"], "tools-list": out["tools-list"], "caching": out["caching"]}, unscored: map[string]outcome{}}
	if r.passed() != 1 || r.failed() != 2 {
		t.Fatalf("counts %d/%d", r.passed(), r.failed())
	}
	bl := baseline{"native/x": {"tools-list": "not built yet", "ping": "stale", "gone": "never runs"}}
	problems := strings.Join(bl.check("native/x", r, false), "\n")
	for _, want := range []string{"NEW FAILURE caching", "STALE baseline entry ping", "STALE baseline entry gone"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}
	if strings.Contains(problems, "tools-list") {
		t.Errorf("an expected failure was reported:\n%s", problems)
	}
}

func TestInfoOnlyScenarioSaysWhy(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "server-session-lifecycle", `[{"id":"skipped","status":"INFO","description":"Server is stateless"}]`)
	out, err := readOutcomes(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := out["server-session-lifecycle"]
	if o.ok() || !strings.Contains(strings.Join(o.problems, ";"), "Server is stateless") {
		t.Fatalf("outcome %+v", o)
	}
}

func TestWholeLaneBaseline(t *testing.T) {
	failing := outcome{problems: []string{"boom"}}
	r := laneResult{scenarios: map[string]outcome{"ping": failing, "tools-list": failing}, unscored: map[string]outcome{}}
	bl := baseline{"native/x": {wholeLane: "no HTTP transport yet"}}
	if p := bl.check("native/x", r, false); len(p) != 0 {
		t.Fatalf("an expected lane failure was reported: %v", p)
	}
	r.scenarios["ping"] = outcome{successes: 1}
	p := strings.Join(bl.check("native/x", r, false), "\n")
	if !strings.Contains(p, "STALE") || !strings.Contains(p, "ping") {
		t.Fatalf("a passing scenario under %q was not reported stale: %q", wholeLane, p)
	}
}

func TestBaselineRefusesEntriesWithoutReasonsOrMixedWithWholeLane(t *testing.T) {
	dir := t.TempDir()
	for _, body := range []string{
		`{"stdio/x": {"ping": ""}}`,
		`{"stdio/x": {"*": "all", "ping": "one"}}`,
	} {
		path := filepath.Join(dir, "bl.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadBaseline(path); err == nil {
			t.Errorf("%s was accepted", body)
		}
	}
}
