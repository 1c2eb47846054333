package streamablehttp

// The bounded event log that lets a client resume a stream with Last-Event-ID.

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// The replay log of an initialize-era session: every event of the
// session's streams (the GET stream and the event streams of its POSTs)
// carries an id "<stream>-<seq>", and the session keeps its most recent
// events, bounded by count and bytes, so that a client whose connection
// dropped reconnects with Last-Event-ID and receives what it missed of
// that stream, once (2025-11-25 and 2025-06-18 transport, "Resumability
// and Redelivery"). Beyond the bound the client is told that events were
// lost.

// loggedEvent is one event kept for replay.
type loggedEvent struct {
	stream, seq uint64
	frame       []byte
	final       bool // a POST stream's response
}

// streamLog is what the log knows of one stream.
type streamLog struct {
	post      bool
	requestID jsonrpc.ID // a POST stream's request
	next      uint64     // the seq of its next event (its first is 1)
	dropped   uint64     // the highest seq evicted (0: none)
	finalSeq  uint64     // the seq of a POST stream's response, once written
	ended     bool       // a POST stream's request ended without a response
}

// eventLog is a session's replay log.
type eventLog struct {
	maxEvents, maxBytes int

	mu         sync.Mutex
	nextStream uint64
	events     []loggedEvent // oldest first
	bytes      int
	streams    map[uint64]*streamLog
	changed    chan struct{} // closed and replaced when an event is added
}

func newEventLog(maxEvents, maxBytes int) *eventLog {
	return &eventLog{maxEvents: maxEvents, maxBytes: maxBytes, streams: map[uint64]*streamLog{}, changed: make(chan struct{})}
}

// open starts a stream and returns its number.
func (l *eventLog) open(post bool, requestID jsonrpc.ID) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nextStream++
	l.streams[l.nextStream] = &streamLog{post: post, requestID: requestID, next: 1}
	return l.nextStream
}

// add keeps frame as the next event of stream and returns its seq.
func (l *eventLog) add(stream uint64, frame []byte, final bool) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.streams[stream]
	if s == nil { // the log cannot have forgotten a stream still writing
		return 0
	}
	seq := s.next
	s.next++
	if final {
		s.finalSeq = seq
	}
	l.events = append(l.events, loggedEvent{stream: stream, seq: seq, frame: frame, final: final})
	l.bytes += len(frame)
	for len(l.events) > l.maxEvents || l.bytes > l.maxBytes && len(l.events) > 1 {
		old := l.events[0]
		l.events[0] = loggedEvent{}
		l.events = l.events[1:]
		l.bytes -= len(old.frame)
		if os := l.streams[old.stream]; os != nil && old.seq > os.dropped {
			os.dropped = old.seq
		}
	}
	l.forgetDoneLocked()
	close(l.changed)
	l.changed = make(chan struct{})
	return seq
}

// end marks a POST stream whose request ended without a response
// (cancelled), so that a resumed stream does not wait for one.
func (l *eventLog) end(stream uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.streams[stream]; s != nil {
		s.ended = true
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// forgetDoneLocked drops streams that are over and have no event left in
// the log, so the map stays as small as the log.
func (l *eventLog) forgetDoneLocked() {
	if len(l.streams) <= l.maxEvents {
		return
	}
	held := make(map[uint64]bool, len(l.events))
	for _, e := range l.events {
		held[e.stream] = true
	}
	for n, s := range l.streams {
		if !held[n] && (s.finalSeq != 0 || s.ended) {
			delete(l.streams, n)
		}
	}
}

// replay is what a reconnecting client gets of a stream after an event.
type replay struct {
	known     bool          // the stream is in the log
	post      bool          // it is a POST stream
	requestID jsonrpc.ID    // a POST stream's request
	events    []loggedEvent // the events after, in order
	lost      bool          // some events after were dropped
	finalLost bool          // the POST stream's response was dropped
	done      bool          // a POST stream is over (its response is among events, or lost, or it ended without one)
	wait      <-chan struct{}
}

// since returns the events of stream after seq.
func (l *eventLog) since(stream, seq uint64) replay {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.streams[stream]
	if s == nil {
		return replay{wait: l.changed}
	}
	r := replay{known: true, post: s.post, requestID: s.requestID, lost: s.dropped > seq, wait: l.changed,
		finalLost: s.finalSeq != 0 && s.finalSeq <= s.dropped && s.finalSeq > seq}
	for _, e := range l.events {
		if e.stream == stream && e.seq > seq {
			r.events = append(r.events, e)
		}
	}
	r.done = s.post && (s.finalSeq != 0 || s.ended)
	return r
}

// eventID is the id of event seq of stream.
func eventID(stream, seq uint64) string { return fmt.Sprintf("%d-%d", stream, seq) }

// parseEventID reads a Last-Event-ID.
func parseEventID(id string) (stream, seq uint64, ok bool) {
	a, b, found := strings.Cut(strings.TrimSpace(id), "-")
	if !found {
		return 0, 0, false
	}
	stream, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	return stream, seq, err1 == nil && err2 == nil && stream > 0
}

// lostNotice is the notification that tells a reconnecting client that
// events of its stream were dropped before it came back.
func lostNotice(lastEventID string, maxEvents, maxBytes int) []byte {
	frame, _ := rpcwire.EncodeNotification("notifications/message", map[string]any{
		"level":  "warning",
		"logger": "snodo",
		"data": fmt.Sprintf("Events after %s were lost: the session keeps its last %d events (%d bytes) for replay, and more were sent before the client reconnected.",
			lastEventID, maxEvents, maxBytes),
	})
	return frame
}

// errResponseLost answers a request whose response was dropped from the
// replay log before its client reconnected.
func errResponseLost(maxEvents, maxBytes int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
		"The response to this request was lost: the session keeps its last %d events (%d bytes) for replay, and more were sent before the client reconnected", maxEvents, maxBytes)}

}
