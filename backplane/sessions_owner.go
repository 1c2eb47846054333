// This file is the owner's side of a session relay: it serves a relayed
// request through the instance's handler and sends the response back in
// chunks, a window of them at a time.

package backplane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// serveRelay takes a relay sent to this instance. It runs on the
// subscription's goroutine, so the relay runs on its own.
func (s *Sessions) serveRelay(m *nats.Msg) {
	if kind, _ := kindOf(m); kind != kindOpen || m.Reply == "" || m.Header.Get(relayControlHeader) == "" {
		return
	}
	select {
	case s.owning <- struct{}{}:
	default:
		_ = s.nc.PublishMsg(relayMsg(m.Reply, kindBusy, 0, nil))
		return
	}
	var rq relayRequest
	next := s.next.Load()
	if json.Unmarshal([]byte(m.Header.Get(relayHeader)), &rq) != nil || next == nil || s.ctx.Err() != nil {
		<-s.owning
		return // the relaying instance answers 404 when nothing takes it
	}
	req, err := http.NewRequest(rq.Method, "http://"+rq.Host+rq.URI, bytes.NewReader(m.Data))
	if err != nil {
		<-s.owning
		return
	}
	ctl, err := s.nc.SubscribeSync(m.Header.Get(relayControlHeader))
	if err != nil {
		<-s.owning
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	req = req.WithContext(ctx)
	req.Header, req.Host, req.RemoteAddr = rq.Header, rq.Host, rq.Peer
	if req.Header == nil {
		req.Header = http.Header{}
	}
	o := &ownerRelay{s: s, reply: m.Reply, ctl: ctl, ctx: ctx, cancel: cancel, acked: make(chan struct{}, 1), heard: time.Now()}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel()
		_ = ctl.Unsubscribe()
		<-s.owning
		return
	}
	s.wg.Add(2)
	s.mu.Unlock()
	// The flush makes the server hold the control subscription before the
	// handler starts: a client that leaves once the handler runs has its
	// cancel delivered, not dropped by a server that has not yet seen the
	// subscription (nats.go sends SUB from a buffer, asynchronously).
	err = s.nc.PublishMsg(relayMsg(m.Reply, kindAccept, 0, nil))
	if err == nil {
		err = s.nc.FlushTimeout(s.cfg.OpenTimeout)
	}
	if err != nil {
		cancel()
		_ = ctl.Unsubscribe()
		<-s.owning
		s.wg.Add(-2)
		return
	}
	done := make(chan struct{})
	go func() {
		defer s.wg.Done()
		o.control(done)
	}()
	go func() {
		defer s.wg.Done()
		defer func() { <-s.owning }()
		defer close(done)
		defer cancel()
		o.serve(*next, req)
	}()
}

// ownerRelay is one relay this instance serves.
type ownerRelay struct {
	s      *Sessions
	reply  string             // the relaying instance's inbox
	ctl    *nats.Subscription // its control inbox: ack, beat, cancel
	ctx    context.Context
	cancel context.CancelFunc
	acked  chan struct{} // a signal that an ack came

	mu    sync.Mutex
	nacks uint64    // data chunks acknowledged
	heard time.Time // the last message from the relaying instance

	// Owned by the serving goroutine.
	seq    uint64
	sent   uint64 // data chunks sent
	header http.Header
	wrote  bool
	buf    []byte
	err    error
}

// serve runs the request through the handler and ends the relay.
func (o *ownerRelay) serve(next http.Handler, req *http.Request) {
	o.header = http.Header{}
	aborted := true
	defer func() {
		if aborted {
			o.publish(kindAbort, nil)
		}
		if p := recover(); p != nil && p != http.ErrAbortHandler {
			o.s.logger.Error("backplane: a relayed session request panicked", "panic", p)
		}
	}()
	next.ServeHTTP(o, req)
	aborted = false
	if o.FlushError() == nil {
		o.publish(kindEnd, nil)
	}
}

// control reads the relaying instance's messages and sends heartbeats
// until done; it cancels the relay on cancel or silence.
func (o *ownerRelay) control(done <-chan struct{}) {
	defer func() { _ = o.ctl.Unsubscribe() }()
	cfg := o.s.cfg
	beat := time.Now() // the last heartbeat sent
	for {
		// A heartbeat every Heartbeat, whatever the relaying instance
		// sends (see relayReader.run).
		wait := time.Until(beat.Add(cfg.Heartbeat))
		if wait <= 0 {
			_ = o.s.nc.PublishMsg(relayMsg(o.reply, kindBeat, 0, nil))
			beat, wait = time.Now(), cfg.Heartbeat
		}
		m, err := nextMsg(o.ctx, o.ctl, wait)
		select {
		case <-done:
			return
		default:
		}
		if err != nil {
			if o.ctx.Err() != nil {
				<-done
				return
			}
			o.mu.Lock()
			silent := time.Since(o.heard) >= cfg.StallTimeout
			o.mu.Unlock()
			if silent {
				o.cancel()
			}
			continue
		}
		o.mu.Lock()
		o.heard = time.Now()
		kind, _ := kindOf(m)
		if kind == kindAck {
			if n, err := strconv.ParseUint(m.Header.Get(relayAckHeader), 10, 64); err == nil && n > o.nacks {
				o.nacks = n
			}
		}
		o.mu.Unlock()
		switch kind {
		case kindAck:
			select {
			case o.acked <- struct{}{}:
			default:
			}
		case kindCancel:
			o.cancel()
		}
	}
}

// publish sends the next message of the response.
func (o *ownerRelay) publish(kind string, data []byte) {
	if o.err != nil {
		return
	}
	o.seq++
	if err := o.s.nc.PublishMsg(relayMsg(o.reply, kind, o.seq, data)); err != nil {
		o.fail(err)
	}
}

// fail ends the relay: the request is cancelled, later writes fail.
func (o *ownerRelay) fail(err error) {
	if o.err == nil {
		o.err = err
	}
	o.cancel()
}

// errRelayStalled is a window that stayed full for the stall timeout.
var errRelayStalled = errors.New("backplane: session relay stalled")

// sendChunk sends one chunk once the window has room.
func (o *ownerRelay) sendChunk(p []byte) {
	timer := time.NewTimer(o.s.cfg.StallTimeout)
	defer timer.Stop()
	for o.err == nil {
		o.mu.Lock()
		room := o.sent-o.nacks < uint64(o.s.cfg.Window)
		o.mu.Unlock()
		if room {
			break
		}
		select {
		case <-o.acked:
		case <-o.ctx.Done():
			o.fail(o.ctx.Err())
		case <-timer.C:
			o.fail(errRelayStalled)
		}
	}
	if o.err != nil {
		return
	}
	o.sent++
	o.publish(kindData, p)
}

// Header implements http.ResponseWriter.
func (o *ownerRelay) Header() http.Header { return o.header }

// WriteHeader implements http.ResponseWriter: the head goes at once.
func (o *ownerRelay) WriteHeader(status int) {
	if o.wrote || status < 200 {
		return // a second head, or an informational one: not relayed
	}
	o.wrote = true
	o.publish(kindHead, mustJSON(relayHead{Status: status, Header: endToEnd(o.header)}))
}

// Write implements http.ResponseWriter, sending each full chunk.
func (o *ownerRelay) Write(p []byte) (int, error) {
	if !o.wrote {
		o.WriteHeader(http.StatusOK)
	}
	if o.err != nil {
		return 0, o.err
	}
	n := len(p)
	size := o.s.cfg.ChunkBytes
	for len(o.buf)+len(p) >= size && o.err == nil {
		take := size - len(o.buf)
		chunk := append(o.buf, p[:take]...)
		o.buf = nil
		p = p[take:]
		o.sendChunk(chunk)
	}
	if o.err != nil {
		return 0, o.err
	}
	o.buf = append(o.buf, p...)
	return n, nil
}

// FlushError sends what was written (http.ResponseController uses it).
func (o *ownerRelay) FlushError() error {
	if !o.wrote {
		o.WriteHeader(http.StatusOK)
	}
	if len(o.buf) > 0 && o.err == nil {
		chunk := o.buf
		o.buf = nil
		o.sendChunk(chunk)
	}
	return o.err
}

// Flush implements http.Flusher.
func (o *ownerRelay) Flush() { _ = o.FlushError() }
