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

// A pending or extension scenario that fails fails the run unless the
// baseline lists it with a reason, as a scored one does; listed, it must
// keep failing.
func TestFailingUnscoredScenarioFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ping", `[{"id":"a","status":"SUCCESS"}]`)
	write(t, dir, "json-schema-2020-12", `[{"id":"schema","status":"FAILURE","errorMessage":"keyword dropped"}]`)
	write(t, dir, "http-header-validation", `[{"id":"h","status":"SUCCESS"}]`)
	out, err := readOutcomes(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := laneResult{
		scenarios: map[string]outcome{"ping": out["ping"]},
		unscored:  map[string]outcome{"json-schema-2020-12": out["json-schema-2020-12"], "http-header-validation": out["http-header-validation"]},
	}
	problems := baseline{}.check("stdio/2026-07-28", r, false)
	if len(problems) != 1 || !strings.Contains(problems[0], "NEW FAILURE (not scored by the suite) json-schema-2020-12: FAILURE schema: keyword dropped") {
		t.Fatalf("problems %q, want the unscored failure alone", problems)
	}
	listed := baseline{"stdio/2026-07-28": {"json-schema-2020-12": "not served yet"}}
	if p := listed.check("stdio/2026-07-28", r, false); len(p) != 0 {
		t.Fatalf("a listed unscored failure was reported: %q", p)
	}
	stale := baseline{"stdio/2026-07-28": {"http-header-validation": "was failing"}}
	if p := strings.Join(stale.check("stdio/2026-07-28", r, false), "\n"); !strings.Contains(p, "STALE baseline entry (not scored by the suite) http-header-validation") ||
		!strings.Contains(p, "NEW FAILURE (not scored by the suite) json-schema-2020-12") {
		t.Fatalf("problems %q", p)
	}
}

// Entries under "*/<version>" apply to every lane at that version.
func TestEveryLaneEntries(t *testing.T) {
	failing := outcome{problems: []string{"not implemented"}}
	r := laneResult{scenarios: map[string]outcome{"ping": {successes: 1}}, unscored: map[string]outcome{"tasks-lifecycle": failing}}
	bl := baseline{"*/2026-07-28": {"tasks-lifecycle": "the tasks extension is not served yet"}}
	for _, lane := range []string{"native/2026-07-28", "handler/2026-07-28", "stdio/2026-07-28"} {
		if p := bl.check(lane, r, false); len(p) != 0 {
			t.Errorf("%s: %q", lane, p)
		}
	}
	if p := bl.check("stdio/2025-11-25", r, false); len(p) != 1 || !strings.Contains(p[0], "NEW FAILURE") {
		t.Errorf("an entry for another version applied: %q", p)
	}
	r.unscored["tasks-lifecycle"] = outcome{successes: 1}
	if p := bl.check("native/2026-07-28", r, false); len(p) != 1 || !strings.Contains(p[0], "STALE") {
		t.Errorf("a passing scenario listed for every lane was not stale: %q", p)
	}
}

func TestBaselineRefusesAScenarioListedForALaneAndForEveryLane(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bl.json")
	body := `{"*/2026-07-28": {"tasks-lifecycle": "a"}, "stdio/2026-07-28": {"tasks-lifecycle": "b"}}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadBaseline(path); err == nil {
		t.Fatal("accepted a scenario listed twice")
	}
}

// The committed baseline loads and gives every entry a reason.
func TestCommittedBaselineLoads(t *testing.T) {
	bl, err := loadBaseline("../expected-failures.json")
	if err != nil {
		t.Fatal(err)
	}
	for key := range bl {
		if !strings.HasPrefix(key, everyLane) && !strings.Contains(key, "/") {
			t.Errorf("baseline key %q names no lane and version", key)
		}
	}
}

func TestCheckLevelBaselineEntries(t *testing.T) {
	bl := baseline{"*/2026-07-28": {
		"tasks-lifecycle:wire-schema-valid":   "the suite validates a task handle as a tool result",
		"tasks-wire-fields:wire-schema-valid": "same",
	}}
	fail := func(ids ...string) outcome {
		o := outcome{successes: 3, failed: map[string]string{}}
		for _, id := range ids {
			p := "FAILURE " + id + ": x"
			o.problems = append(o.problems, p)
			o.failed[id] = p
		}
		return o
	}
	r := laneResult{unscored: map[string]outcome{
		"tasks-lifecycle":   fail("wire-schema-valid"),                              // only the expected check fails
		"tasks-wire-fields": fail("wire-schema-valid", "tasks-no-early-ttl-expiry"), // and a real failure
	}}
	problems := bl.check("native/2026-07-28", r, false)
	if len(problems) != 1 || !strings.Contains(problems[0], "NEW FAILURE") || !strings.Contains(problems[0], "tasks-no-early-ttl-expiry") || strings.Contains(problems[0], "FAILURE wire-schema-valid") {
		t.Fatalf("problems: %q", problems)
	}
	r.unscored["tasks-lifecycle"] = fail()
	r.unscored["tasks-wire-fields"] = fail("wire-schema-valid")
	problems = bl.check("native/2026-07-28", r, false)
	if len(problems) != 1 || !strings.Contains(problems[0], "STALE baseline entry tasks-lifecycle:wire-schema-valid") {
		t.Fatalf("a check that no longer fails: %q", problems)
	}
}

func TestUnscoredScenariosAreTabled(t *testing.T) {
	results := []laneResult{
		{lane: "native", version: "2026-07-28", unscored: map[string]outcome{
			"tasks-lifecycle":            {successes: 3},
			"tasks-wire-fields":          {successes: 2, problems: []string{"FAILURE wire-schema-valid: x"}, failed: map[string]string{"wire-schema-valid": "FAILURE wire-schema-valid: x"}},
			"tasks-status-notifications": {problems: []string{"no successful check"}},
		}},
		{lane: "native", version: "2025-06-18"},
		{lane: "stdio", version: "2026-07-28", unscored: map[string]outcome{"tasks-lifecycle": {successes: 1, problems: []string{"FAILURE a: y"}}}},
	}
	var b strings.Builder
	writeUnscored(&b, results)
	got := b.String()
	for _, want := range []string{
		"| scenario | native 2026-07-28 | stdio 2026-07-28 |",
		"| `tasks-lifecycle` | pass | failed |",
		"| `tasks-status-notifications` | *skipped* | — |",
		"| `tasks-wire-fields` | failed `wire-schema-valid` | — |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	b.Reset()
	writeUnscored(&b, []laneResult{{lane: "native", version: "2025-06-18"}})
	if b.Len() != 0 {
		t.Errorf("a run with no unscored scenario wrote %q", b.String())
	}
}
