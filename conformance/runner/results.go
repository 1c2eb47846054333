package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// outcome is a scenario's verdict: it passes with at least one success and
// no failure or warning (the suite's own baseline mode treats warnings as
// failures too).
type outcome struct {
	successes int
	problems  []string
	failed    map[string]string // failing or warning check id → its problem
}

func (o outcome) ok() bool { return o.successes > 0 && len(o.problems) == 0 }

// readOutcomes reads DIR/server-<scenario>-<timestamp>/checks.json.
func readOutcomes(dir string) (map[string]outcome, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	out := map[string]outcome{}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, "server-") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name, "checks.json"))
		if err != nil {
			continue
		}
		var checks []check
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		scenario := scenarioName(strings.TrimPrefix(name, "server-"))
		var o outcome
		var notes []string
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				o.successes++
			case "FAILURE", "WARNING":
				p := fmt.Sprintf("%s %s: %s", c.Status, c.ID, c.ErrorMessage)
				o.problems = append(o.problems, p)
				if o.failed == nil {
					o.failed = map[string]string{}
				}
				o.failed[c.ID] = p
			default:
				notes = append(notes, fmt.Sprintf("%s %s: %s", c.Status, c.ID, firstNonEmpty(c.ErrorMessage, c.Description)))
			}
		}
		if o.successes == 0 && len(o.problems) == 0 {
			// Say why a scenario with nothing but INFO or SKIPPED fails.
			o.problems = append([]string{"no successful check"}, notes...)
		}
		out[scenario] = o
	}
	return out, nil
}

// resultStamp is the ISO timestamp (":" and "." made "-") the suite
// appends to a result directory.
var resultStamp = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// scenarioName strips the timestamp (scenario names contain dashes too).
func scenarioName(s string) string { return resultStamp.ReplaceAllString(s, "") }

// laneResult is one lane at one version.
type laneResult struct {
	name, lane, version string
	scenarios           map[string]outcome // scored
	unscored            map[string]outcome // pending and extension scenarios that ran
	startFailure        string             // why the lane's server did not start, or ""
}

func (r laneResult) passed() int {
	n := 0
	for _, o := range r.scenarios {
		if o.ok() {
			n++
		}
	}
	return n
}

func (r laneResult) failed() int { return len(r.scenarios) - r.passed() }

func (r laneResult) unscoredTotal() int { return len(r.unscored) }

func (r laneResult) unscoredPassed() int {
	n := 0
	for _, o := range r.unscored {
		if o.ok() {
			n++
		}
	}
	return n
}

// baseline lists, per lane ("stdio/2026-07-28"), the scenarios expected
// to fail and why; a key "*/<version>" lists those expected to fail on
// every lane at that version. Scored and unscored (pending, extension)
// scenarios alike: a scenario that fails and is not listed fails the run,
// and so does a listed one that passes or does not run (a stale entry),
// so the baseline may only shrink. The entry "*" expects every scenario
// of the lane to fail (a lane the library cannot serve yet); it turns
// stale as soon as a scored one passes, and must then give way to
// entries per scenario.
type baseline map[string]map[string]string

// wholeLane is the baseline key for "every scenario of the lane".
const wholeLane = "*"

// everyLane prefixes the baseline key of entries for every lane at a
// version.
const everyLane = "*/"

func loadBaseline(path string) (baseline, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return baseline{}, nil
	}
	if err != nil {
		return nil, err
	}
	var bl baseline
	if err := json.Unmarshal(b, &bl); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for lane, entries := range bl {
		for name, reason := range entries {
			if strings.TrimSpace(reason) == "" {
				return nil, fmt.Errorf("%s: %s %s has no reason", path, lane, name)
			}
		}
		if _, ok := entries[wholeLane]; ok && len(entries) > 1 {
			return nil, fmt.Errorf("%s: %s lists %q and single scenarios; use one or the other", path, lane, wholeLane)
		}
		if _, ok := entries[wholeLane]; ok && strings.HasPrefix(lane, everyLane) {
			return nil, fmt.Errorf("%s: %s cannot expect a whole lane to fail", path, lane)
		}
	}
	for key, entries := range bl {
		version, ok := strings.CutPrefix(key, everyLane)
		if !ok {
			continue
		}
		for lane, own := range bl {
			if strings.HasSuffix(lane, "/"+version) && lane != key {
				for name := range entries {
					if _, dup := own[name]; dup {
						return nil, fmt.Errorf("%s: %s is listed under %s and %s", path, name, key, lane)
					}
				}
			}
		}
	}
	return bl, nil
}

// expected returns the entries that apply to lane name ("stdio/2026-07-28").
func (bl baseline) expected(name string) map[string]string {
	out := map[string]string{}
	if _, version, ok := strings.Cut(name, "/"); ok {
		for k, v := range bl[everyLane+version] {
			out[k] = v
		}
	}
	for k, v := range bl[name] {
		out[k] = v
	}
	return out
}

// check compares a lane with the baseline: every failing scenario, scored
// or not, must be listed, and every listed one must fail.
func (bl baseline) check(lane string, r laneResult, verbose bool) []string {
	var problems []string
	expected := bl.expected(lane)
	if reason, ok := expected[wholeLane]; ok {
		var passing []string
		for name, o := range r.scenarios {
			if o.ok() {
				passing = append(passing, name)
			}
		}
		sort.Strings(passing)
		if len(passing) > 0 {
			problems = append(problems, fmt.Sprintf("%s: STALE baseline entry %q (was: %s): now passing: %s; list the remaining failures one by one",
				lane, wholeLane, reason, strings.Join(passing, ", ")))
		}
		if verbose {
			fmt.Fprintf(os.Stderr, "%s: every scenario expected to fail (%s)\n", lane, reason)
		}
		return problems
	}
	all := map[string]outcome{}
	for k, v := range r.unscored {
		all[k] = v
	}
	for k, v := range r.scenarios {
		all[k] = v
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		o := all[name]
		_, isScored := r.scenarios[name]
		reason, listed := expected[name]
		if !listed {
			// Entries "<scenario>:<check id>" expect single checks to fail
			// (a suite's bug in one check); the scenario's other checks
			// still count.
			var stale []string
			o, stale = o.withoutExpectedChecks(name, expected)
			for _, id := range stale {
				problems = append(problems, fmt.Sprintf("%s: STALE baseline entry %s:%s (the check no longer fails; was: %s)", lane, name, id, expected[name+":"+id]))
			}
		}
		kind := ""
		if !isScored {
			kind = " (not scored by the suite)"
		}
		switch {
		case !o.ok() && !listed:
			problems = append(problems, fmt.Sprintf("%s: NEW FAILURE%s %s: %s", lane, kind, name, strings.Join(o.problems, "; ")))
		case o.ok() && listed:
			problems = append(problems, fmt.Sprintf("%s: STALE baseline entry%s %s (now passes; was: %s)", lane, kind, name, reason))
		case !o.ok() && verbose:
			fmt.Fprintf(os.Stderr, "%s: expected failure%s %s (%s): %s\n", lane, kind, name, reason, strings.Join(o.problems, "; "))
		}
	}
	for name := range expected {
		if scenario, _, isCheck := strings.Cut(name, ":"); isCheck {
			if _, ran := all[scenario]; !ran {
				problems = append(problems, fmt.Sprintf("%s: STALE baseline entry %s (the scenario did not run)", lane, name))
			}
			continue
		}
		if _, ran := all[name]; !ran {
			problems = append(problems, fmt.Sprintf("%s: STALE baseline entry %s (the scenario did not run)", lane, name))
		}
	}
	sort.Strings(problems)
	return problems
}

// withoutExpectedChecks returns o without the failing checks the baseline
// expects for scenario (entries "<scenario>:<check id>"), and the ids of
// expected checks that did not fail (stale entries).
func (o outcome) withoutExpectedChecks(scenario string, expected map[string]string) (outcome, []string) {
	var stale []string
	out := outcome{successes: o.successes, failed: map[string]string{}}
	dropped := map[string]bool{}
	for key := range expected {
		s, id, ok := strings.Cut(key, ":")
		if !ok || s != scenario {
			continue
		}
		if _, failed := o.failed[id]; failed {
			dropped[o.failed[id]] = true
		} else {
			stale = append(stale, id)
		}
	}
	for _, p := range o.problems {
		if !dropped[p] {
			out.problems = append(out.problems, p)
		}
	}
	for id, p := range o.failed {
		if !dropped[p] {
			out.failed[id] = p
		}
	}
	sort.Strings(stale)
	return out, stale
}
