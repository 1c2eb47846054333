// This file is the relaying side of a session relay: it sends a request
// naming another instance's session to its owner and writes the owner's
// answer back to the client.

package backplane

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
)

// The answers a relay gives itself, in the transport's JSON-RPC error
// form.
var (
	relayNotFound   = relayErr{-32600, "Invalid Request: session not found"}
	relayFull       = relayErr{-32000, "too many session relays in flight on this instance"}
	relayOwnerFull  = relayErr{-32000, "too many session relays in flight on the session's instance"}
	relayStalled    = relayErr{-32000, "the session's instance stopped answering"}
	relayTooLarge   = relayErr{-32600, "Invalid Request: body too large to relay"}
	relayUnreadable = relayErr{-32600, "Invalid Request: body unreadable"}
)

// relayErr is a JSON-RPC error.
type relayErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// relayError writes one of the relay's own answers, with the id of the
// request body (null when it has none: a notification, a response, no
// body).
func relayError(w http.ResponseWriter, status int, body []byte, e relayErr) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.ID) == 0 {
		req.ID = json.RawMessage("null")
	}
	b := mustJSON(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   relayErr        `json:"error"`
	}{"2.0", req.ID, e})
	w.Header()["Content-Type"] = []string{"application/json"}
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// errRelayLost is a relay that ended without its end: a stall, a gap, the
// owner gone mid-response.
var errRelayLost = errors.New("backplane: session relay lost")

// relay sends r to owner and writes its answer to w.
func (s *Sessions) relay(w http.ResponseWriter, r *http.Request, owner string) {
	maxBody := int(s.nc.MaxPayload()) - relayOverhead
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(io.LimitReader(r.Body, int64(maxBody)+1))
		if err != nil {
			relayError(w, http.StatusBadRequest, nil, relayUnreadable)
			return
		}
		if len(b) > maxBody {
			w.Header()["Connection"] = []string{"close"}
			relayError(w, http.StatusRequestEntityTooLarge, nil, relayTooLarge)
			return
		}
		body = b
	}
	select {
	case s.relaying <- struct{}{}:
		defer func() { <-s.relaying }()
	default:
		relayError(w, http.StatusServiceUnavailable, body, relayFull)
		return
	}
	inbox := s.nc.NewInbox()
	sub, err := s.nc.SubscribeSync(inbox)
	if err != nil {
		relayError(w, http.StatusNotFound, body, relayNotFound)
		return
	}
	defer func() { _ = sub.Unsubscribe() }()
	open := relayMsg(s.subject+owner, kindOpen, 0, body)
	open.Reply = inbox
	// The control inbox is ours to name, so that a client that leaves
	// before the owner's accept arrives can still cancel the relay.
	ctl := s.nc.NewInbox()
	open.Header[relayControlHeader] = []string{ctl}
	open.Header[relayHeader] = []string{string(mustJSON(relayRequest{
		Method: r.Method, URI: r.URL.RequestURI(), Host: r.Host, Peer: r.RemoteAddr, Header: endToEnd(r.Header),
	}))}
	if err := s.nc.PublishMsg(open); err != nil {
		relayError(w, http.StatusNotFound, body, relayNotFound)
		return
	}
	// The owner takes the relay, or is gone.
	ctx := r.Context()
	m, err := nextMsg(ctx, sub, s.cfg.OpenTimeout)
	if err != nil || noResponders(m) {
		if ctx.Err() != nil {
			_ = s.nc.PublishMsg(relayMsg(ctl, kindCancel, 0, nil))
			return
		}
		relayError(w, http.StatusNotFound, body, relayNotFound)
		return
	}
	switch kind, _ := kindOf(m); {
	case kind == kindBusy:
		relayError(w, http.StatusServiceUnavailable, body, relayOwnerFull)
		return
	case kind != kindAccept:
		relayError(w, http.StatusNotFound, body, relayNotFound)
		return
	}
	rr := &relayReader{s: s, w: w, rc: http.NewResponseController(w), sub: sub, ctl: ctl, heard: time.Now()}
	err = rr.run(ctx)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		_ = s.nc.PublishMsg(relayMsg(rr.ctl, kindCancel, 0, nil))
	case !rr.headDone:
		s.logger.Warn("backplane: a session relay stalled before its response", "owner", owner, "error", err)
		_ = s.nc.PublishMsg(relayMsg(rr.ctl, kindCancel, 0, nil))
		relayError(w, http.StatusGatewayTimeout, body, relayStalled)
	default:
		s.logger.Warn("backplane: a session relay was cut off", "owner", owner, "error", err)
		_ = s.nc.PublishMsg(relayMsg(rr.ctl, kindCancel, 0, nil))
		// The response has begun: cut it off, so that the client sees
		// it incomplete rather than complete.
		panic(http.ErrAbortHandler)
	}
}

// nextMsg waits at most d for the next message of sub.
func nextMsg(ctx context.Context, sub *nats.Subscription, d time.Duration) (*nats.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return sub.NextMsgWithContext(ctx)
}

// relayReader writes an owner's answer to the client.
type relayReader struct {
	s        *Sessions
	w        http.ResponseWriter
	rc       *http.ResponseController
	sub      *nats.Subscription
	ctl      string // the control inbox the owner listens on
	seq      uint64 // the last seq received
	chunks   uint64 // data chunks written
	heard    time.Time
	headDone bool
}

// run reads the owner's messages until the end of the response; it
// returns nil then, and an error when the client went away, the owner
// stalled, or a message was lost.
func (rr *relayReader) run(ctx context.Context) error {
	cfg := rr.s.cfg
	beat := time.Now() // the last heartbeat sent
	for {
		// A heartbeat every Heartbeat, whatever the owner sends: its
		// own heartbeats must not silence this side's.
		wait := time.Until(beat.Add(cfg.Heartbeat))
		if wait <= 0 {
			_ = rr.s.nc.PublishMsg(relayMsg(rr.ctl, kindBeat, 0, nil))
			beat, wait = time.Now(), cfg.Heartbeat
		}
		m, err := nextMsg(ctx, rr.sub, wait)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
				return err
			}
			if time.Since(rr.heard) >= cfg.StallTimeout {
				return errRelayLost
			}
			continue
		}
		rr.heard = time.Now()
		kind, seq := kindOf(m)
		if kind == kindBeat {
			continue
		}
		if noResponders(m) || seq != rr.seq+1 {
			return errRelayLost
		}
		rr.seq = seq
		switch kind {
		case kindHead:
			var h relayHead
			if json.Unmarshal(m.Data, &h) != nil || h.Status < 200 || h.Status > 999 {
				return errRelayLost
			}
			for k, v := range endToEnd(h.Header) {
				rr.w.Header()[k] = v
			}
			rr.w.WriteHeader(h.Status)
			rr.headDone = true
			if err := rr.flush(); err != nil {
				return err
			}
		case kindData:
			if !rr.headDone {
				return errRelayLost
			}
			// A client that reads nothing for the stall timeout ends
			// the relay; the deadline is lifted once the chunk is out,
			// as an idle stream must not fail its next write.
			_ = rr.rc.SetWriteDeadline(time.Now().Add(cfg.StallTimeout))
			if _, err := rr.w.Write(m.Data); err != nil {
				return err
			}
			if err := rr.flush(); err != nil {
				return err
			}
			_ = rr.rc.SetWriteDeadline(time.Time{})
			rr.chunks++
			ack := relayMsg(rr.ctl, kindAck, 0, nil)
			ack.Header[relayAckHeader] = []string{strconv.FormatUint(rr.chunks, 10)}
			_ = rr.s.nc.PublishMsg(ack)
		case kindEnd:
			if !rr.headDone {
				return errRelayLost
			}
			return nil
		default: // abort, or a kind this version does not know
			return errRelayLost
		}
	}
}

// flush sends what was written to the client; a ResponseWriter that
// cannot flush is written through at the end.
func (rr *relayReader) flush() error {
	if err := rr.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
