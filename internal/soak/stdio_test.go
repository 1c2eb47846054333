package soak_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/testfixture"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/stdio"
)

// maxLine bounds one stdio line (and one HTTP body) in the soak, so that
// oversized frames are cheap to send.
const maxLine = 64 << 10

// maxInFlight bounds the requests a stdio session has in flight (sent,
// not answered, not cancelled).
const maxInFlight = 16

// sent is one request of a stdio session and what came back for it.
type sent struct {
	kind      string
	cancelled bool // the client cancelled it
	responses int
	progress  int  // progress notifications before the response
	acks      int  // listen: acknowledgements
	ended     int  // listen: the server's notifications/cancelled for it
	bad       bool // the response was not what the kind expects
}

// stdioSession is one stdio connection of the soak, served by the
// soak's supervisor and driven by one worker.
type stdioSession struct {
	rep  *report
	conn *stdio.Conn
	in   *io.PipeWriter
	out  *io.PipeReader

	mu       sync.Mutex
	reqs     map[string]*sent // by id
	nextID   int
	inFlight int
	room     *sync.Cond
	badSent  int // malformed lines: each gets -32700 with no id
	bigSent  int // lines over maxLine: each gets -32600 with no id
	badGot   int
	bigGot   int
	readErr  error
	read     chan struct{} // closed when the output has ended
}

func startStdio(sup *supervisor.Supervisor, rt *dispatch.Runtime, rep *report) (*stdioSession, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c, err := stdio.Start(context.Background(), rt, stdio.WithSupervisor(sup), stdio.WithInput(inR), stdio.WithOutput(outW),
		stdio.WithLimits(stdio.Limits{MaxLineBytes: maxLine}))
	if err != nil {
		return nil, err
	}
	s := &stdioSession{rep: rep, conn: c, in: inW, out: outR, reqs: map[string]*sent{}, read: make(chan struct{})}
	s.room = sync.NewCond(&s.mu)
	go func() {
		_ = c.Wait()
		inR.Close()  // the transport never closes its input
		outW.Close() // nor its output
	}()
	go s.readLoop()
	return s, nil
}

func (s *stdioSession) readLoop() {
	defer close(s.read)
	sc := bufio.NewScanner(s.out)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n%25 == 0 {
			// A sample of the frames is checked against the schema.
			if err := testkit.ValidateFrame(testfixture.Version, line, ""); err != nil {
				s.rep.failf("stdio: frame fails the schema: %v: %.200s", err, line)
			}
		}
		var f frame
		if err := json.Unmarshal(line, &f); err != nil {
			s.rep.failf("stdio: unparsable output line %.200q: %v", line, err)
			continue
		}
		s.handle(&f, line)
	}
	s.mu.Lock()
	s.readErr = sc.Err()
	s.room.Broadcast()
	s.mu.Unlock()
}

func (s *stdioSession) handle(f *frame, line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case f.Method == "notifications/progress":
		tok := strings.TrimPrefix(strings.Trim(string(f.Params.ProgressToken), `"`), "p")
		if r := s.reqs[tok]; r != nil && r.responses == 0 {
			r.progress++
		} else {
			s.rep.failf("stdio: progress for %s, which is not waiting for its response", f.Params.ProgressToken)
		}
	case f.Method == "notifications/subscriptions/acknowledged":
		if r := s.reqs[string(f.Params.Meta["io.modelcontextprotocol/subscriptionId"])]; r != nil && r.kind == "listen" {
			r.acks++
		} else {
			s.rep.failf("stdio: an acknowledgement for no listen request: %.200s", line)
		}
	case f.Method == "notifications/cancelled":
		if r := s.reqs[string(f.Params.RequestID)]; r != nil && r.kind == "listen" {
			r.ended++
		} else {
			s.rep.failf("stdio: the server cancelled %s, which is no stream of this session", f.Params.RequestID)
		}
	case f.Method != "":
		// tools/list_changed from a listen stream, or another event.
	case !f.hasID():
		switch {
		case f.Error != nil && f.Error.Code == -32700:
			s.badGot++
		case f.Error != nil && f.Error.Code == -32600:
			s.bigGot++
		default:
			s.rep.failf("stdio: a response without an id: %.200s", line)
		}
	default:
		r := s.reqs[string(f.ID)]
		if r == nil {
			s.rep.failf("stdio: a response for id %s, which was never sent", f.ID)
			return
		}
		r.responses++
		if r.responses > 1 {
			s.rep.failf("stdio: a second response for %s (%s)", f.ID, r.kind)
			return
		}
		r.bad = !expected(r.kind, f, http200)
		if r.bad {
			s.rep.failf("stdio: %s answered %.300s", r.kind, line)
		}
		if r.kind == "progress" && r.progress != 3 {
			s.rep.failf("stdio: progress call %s answered after %d progress notifications, want 3", f.ID, r.progress)
		}
		if !r.cancelled && r.kind != "listen" {
			s.inFlight--
			s.room.Broadcast()
		}
	}
}

// http200 stands for "no HTTP status" in expected: stdio has none.
const http200 = 200

// expected reports whether f is the response a request of kind should
// get.
func expected(kind string, f *frame, status int) bool {
	switch kind {
	case "boom":
		return f.Error != nil && f.Error.Code == -32603 && (status == http200 || status == 500)
	case "refuse":
		return f.Result != nil && f.Result.IsError && status == 200
	}
	return f.Result != nil && !f.Result.IsError && status == 200
}

// send writes one line; it reports false when the input is gone.
func (s *stdioSession) send(line []byte) bool {
	_, err := s.in.Write(append(line, '\n'))
	return err == nil
}

// request registers and sends one request, waiting while too many are in
// flight. It returns the id.
func (s *stdioSession) request(kind string, build func(id string) []byte) (string, bool) {
	s.mu.Lock()
	for s.inFlight >= maxInFlight && s.readErr == nil && !s.closedLocked() {
		s.room.Wait()
	}
	s.nextID++
	id := fmt.Sprint(s.nextID)
	s.reqs[id] = &sent{kind: kind}
	if kind != "listen" && kind != "hold" {
		s.inFlight++
	}
	s.mu.Unlock()
	s.rep.count("stdio " + kind)
	return id, s.send(build(id))
}

func (s *stdioSession) closedLocked() bool {
	select {
	case <-s.read:
		return true
	default:
		return false
	}
}

func toolCall(id, name string, args map[string]any) []byte {
	return testkit.Request(json.Number(id), "tools/call", map[string]any{"name": name, "arguments": args})
}

func cancelFrame(id string) []byte {
	return testkit.Notification("notifications/cancelled", map[string]any{"requestId": json.Number(id), "reason": "soak"})
}

// act sends one random action.
func (s *stdioSession) act(rng *rand.Rand, openListen *string) bool {
	switch p := rng.IntN(100); {
	case p < 30:
		_, ok := s.request("echo", func(id string) []byte { return toolCall(id, "echo", map[string]any{"text": "soak " + id}) })
		return ok
	case p < 40:
		_, ok := s.request("slow", func(id string) []byte { return toolCall(id, "slow", map[string]any{"ms": rng.IntN(20)}) })
		return ok
	case p < 48:
		_, ok := s.request("progress", func(id string) []byte {
			return testkit.Request(json.Number(id), "tools/call", map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "p" + id}})
		})
		return ok
	case p < 52:
		_, ok := s.request("boom", func(id string) []byte { return toolCall(id, "boom", nil) })
		return ok
	case p < 56:
		_, ok := s.request("refuse", func(id string) []byte { return toolCall(id, "refuse", nil) })
		return ok
	case p < 66:
		method, params := readCall(rng)
		_, ok := s.request("read", func(id string) []byte { return testkit.Request(json.Number(id), method, params) })
		return ok
	case p < 76:
		id, ok := s.request("hold", func(id string) []byte { return toolCall(id, "hold", nil) })
		if !ok {
			return false
		}
		s.mu.Lock()
		s.reqs[id].cancelled = true
		s.mu.Unlock()
		s.rep.count("stdio cancel")
		return s.send(cancelFrame(id))
	case p < 86:
		if *openListen != "" {
			// Close the open stream: the client cancels it.
			id := *openListen
			*openListen = ""
			s.mu.Lock()
			s.reqs[id].cancelled = true
			s.mu.Unlock()
			s.rep.count("stdio listen closed")
			return s.send(cancelFrame(id))
		}
		id, ok := s.request("listen", func(id string) []byte {
			return testkit.Request(json.Number(id), "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
		})
		*openListen = id
		return ok
	case p < 96:
		s.mu.Lock()
		s.badSent++
		s.mu.Unlock()
		s.rep.count("stdio bad frame")
		return s.send([]byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":` + fmt.Sprint(rng.IntN(1000))))
	default:
		s.mu.Lock()
		s.bigSent++
		s.mu.Unlock()
		s.rep.count("stdio oversized frame")
		return s.send(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`), bytes.Repeat([]byte("x"), maxLine+rng.IntN(maxLine))...))
	}
}

// readCall is one of the calls that read the catalog.
func readCall(rng *rand.Rand) (string, map[string]any) {
	switch rng.IntN(6) {
	case 0:
		return "resources/read", map[string]any{"uri": "file:///soak/readme"}
	case 1:
		return "resources/read", map[string]any{"uri": fmt.Sprintf("file:///soak/items/%d", rng.IntN(100))}
	case 2:
		return "prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"name": "soak"}}
	case 3:
		return "tools/list", nil
	case 4:
		return "resources/templates/list", nil
	}
	return "server/discover", nil
}

// end closes the session: gracefully (end of input: every request the
// client did not cancel is answered, open streams complete) or abruptly
// (the client stops reading first, so the server's writes fail). After a
// graceful end it checks every request's outcome.
func (s *stdioSession) end(graceful bool) {
	if !graceful {
		s.out.Close()
		s.in.Close()
		<-s.read
		s.rep.count("stdio abrupt end")
		return
	}
	s.in.Close()
	select {
	case <-s.read:
	case <-time.After(time.Minute):
		s.rep.failf("stdio: the output did not end within a minute of the end of input")
		s.out.Close()
		<-s.read
		return
	}
	s.rep.count("stdio graceful end")
	if err := s.conn.Wait(); err != nil {
		s.rep.failf("stdio: a connection that ended at end of input returned %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readErr != nil {
		s.rep.failf("stdio: reading the output: %v", s.readErr)
	}
	if s.badGot != s.badSent || s.bigGot != s.bigSent {
		s.rep.failf("stdio: %d malformed lines got %d parse errors; %d oversized lines got %d errors", s.badSent, s.badGot, s.bigSent, s.bigGot)
	}
	for id, r := range s.reqs {
		switch {
		case r.kind == "listen" && r.cancelled:
			if r.responses != 0 || r.acks > 1 || r.ended != 0 {
				s.rep.failf("stdio: listen %s, closed by the client, got %d responses, %d acknowledgements, %d server cancellations", id, r.responses, r.acks, r.ended)
			}
		case r.kind == "listen":
			if r.responses != 1 || r.acks != 1 || r.ended != 1 {
				s.rep.failf("stdio: listen %s, open at end of input, got %d responses, %d acknowledgements, %d server cancellations; want 1 of each", id, r.responses, r.acks, r.ended)
			}
		case r.cancelled:
			if r.responses > 1 {
				s.rep.failf("stdio: cancelled %s %s got %d responses", r.kind, id, r.responses)
			}
		case r.responses != 1:
			s.rep.failf("stdio: %s %s got %d responses, want exactly 1", r.kind, id, r.responses)
		}
	}
}

// runStdio is one stdio worker: sessions one after another until stop.
func runStdio(sup *supervisor.Supervisor, rt *dispatch.Runtime, rep *report, rng *rand.Rand, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		s, err := startStdio(sup, rt, rep)
		if err != nil {
			rep.failf("stdio: starting a session: %v", err)
			return
		}
		open := ""
		n := 20 + rng.IntN(300)
		stopped := false
		for i := 0; i < n && !stopped; i++ {
			select {
			case <-stop:
				stopped = true
			default:
				if !s.act(rng, &open) {
					rep.failf("stdio: the input closed while the session was live")
					stopped = true
				}
			}
		}
		s.end(stopped || rng.IntN(5) > 0) // one session in five ends abruptly
	}
}
