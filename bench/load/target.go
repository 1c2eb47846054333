package load

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
)

// ErrUnsupported reports a server without the transport or method a
// scenario needs; the scenario is recorded as unsupported, not failed.
var ErrUnsupported = errors.New("load: not supported by this server")

// Target is one running server as a scenario sees it.
type Target struct {
	// Stdin and Stdout carry the stdio transport (nil in HTTP mode).
	Stdin  io.WriteCloser
	Stdout io.Reader
	// URL is the Streamable HTTP endpoint (empty in stdio mode).
	URL string
	// PID is the server process, for /proc figures; 0 when the server
	// runs in the driver's own process (then CPU and RSS are not
	// reported).
	PID int
	// Stats reads the server's counters out of band.
	Stats func(ctx context.Context, gc bool) (benchtool.Stats, error)
}

// ServerSpec names a server binary.
type ServerSpec struct {
	// Name labels results ("snodo", "go-sdk", "mcp-go", "floor-stdio",
	// "floor-http").
	Name string
	// Path is the built binary.
	Path string
	// Args are passed to every start.
	Args []string
	// Kinds are the scenario kinds the server serves ("stdio", "http",
	// ...); a scenario of another kind is recorded as unsupported without
	// starting it. Empty means every kind.
	Kinds []string
}

// Serves reports whether the server serves scenarios of kind.
func (s ServerSpec) Serves(kind string) bool {
	return len(s.Kinds) == 0 || slices.Contains(s.Kinds, kind)
}

// Proc is a server process started by Start.
type Proc struct {
	Target
	cmd  *exec.Cmd
	done chan struct{}

	mu   sync.Mutex
	tail []string // last lines of standard error
}

// Start runs spec with extra arguments, in HTTP mode when http is true,
// and waits (up to 10 s) for its start-up lines.
func Start(spec ServerSpec, http bool, extra ...string) (*Proc, error) {
	args := append(append([]string{}, spec.Args...), extra...)
	if http {
		args = append(args, "-http", "127.0.0.1:0")
	}
	cmd := exec.Command(spec.Path, args...)
	p := &Proc{cmd: cmd, done: make(chan struct{})}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if !http {
		if p.Stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if p.Stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.PID = cmd.Process.Pid
	type startup struct {
		stats, url  string
		unsupported bool
	}
	ready := make(chan startup, 1)
	go func() {
		var st startup
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, benchtool.StatsLinePrefix):
				st.stats = strings.TrimPrefix(line, benchtool.StatsLinePrefix)
			case strings.HasPrefix(line, benchtool.MCPLinePrefix):
				st.url = strings.TrimPrefix(line, benchtool.MCPLinePrefix)
			case line == benchtool.UnsupportedLine:
				st.unsupported = true
			default:
				p.mu.Lock()
				p.tail = append(p.tail, line)
				if len(p.tail) > 20 {
					p.tail = p.tail[1:]
				}
				p.mu.Unlock()
			}
			if !sent && (st.unsupported || st.stats != "" && (!http || st.url != "")) {
				ready <- st
				sent = true
			}
		}
		if !sent {
			ready <- st
		}
	}()
	go func() { _ = cmd.Wait(); close(p.done) }()
	select {
	case st := <-ready:
		if st.unsupported {
			p.Stop()
			return nil, ErrUnsupported
		}
		if st.stats == "" || (http && st.url == "") {
			p.Stop()
			return nil, fmt.Errorf("load: %s did not start: %s", spec.Name, p.StderrTail())
		}
		p.URL = st.url
		p.Stats = statsClient(st.stats)
		return p, nil
	case <-time.After(10 * time.Second):
		p.Stop()
		return nil, fmt.Errorf("load: %s did not announce itself within 10 s", spec.Name)
	}
}

// StderrTail returns the last lines the server wrote to standard error.
func (p *Proc) StderrTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, "\n")
}

// Stop ends the server: end of input (stdio) or SIGTERM (HTTP), then a kill
// after 3 s. It returns once the process has exited.
func (p *Proc) Stop() {
	if p.Stdin != nil {
		_ = p.Stdin.Close()
	} else {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-p.done:
		return
	case <-time.After(3 * time.Second):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Kill ends the server at once.
func (p *Proc) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

func statsClient(addr string) func(ctx context.Context, gc bool) (benchtool.Stats, error) {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	return func(ctx context.Context, gc bool) (benchtool.Stats, error) {
		u := "http://" + addr + "/stats"
		if gc {
			u += "?gc=1"
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return benchtool.Stats{}, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return benchtool.Stats{}, err
		}
		defer resp.Body.Close()
		var s benchtool.Stats
		err = json.NewDecoder(resp.Body).Decode(&s)
		return s, err
	}
}
