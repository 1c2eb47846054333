// This file is the wire form of a session relay: the messages the two
// instances exchange over NATS and their headers.

package backplane

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/nats-io/nats.go"
)

// A relay is a conversation between the relaying instance R and the
// session's owner O:
//
//	R → O  open   on <name>.sessions.<owner>, reply to R's inbox; the
//	              request's head in relayHeader, its body as data, and
//	              in relayControlHeader the control inbox R names, where
//	              O listens for ack, beat and cancel
//	O → R  accept O listens on the control inbox
//	O → R  busy   the owner is at its bound (then nothing more)
//	O → R  head   seq 1: the response's status and header (JSON)
//	O → R  data   seq 2…: a chunk of the body
//	O → R  end    last seq: the response is complete
//	O → R  abort  last seq: the handler aborted the response
//	R → O  ack    the number of data chunks written to the client
//	both   beat   nothing else to say for a heartbeat
//	R → O  cancel the client went away
//
// Core NATS keeps the order of one publisher's messages to a subscriber;
// a gap in seq (a message lost) ends the relay as a stall does.
const (
	relayKindHeader    = "Snodo-Relay-Kind"
	relaySeqHeader     = "Snodo-Relay-Seq"
	relayAckHeader     = "Snodo-Relay-Ack"
	relayHeader        = "Snodo-Relay"
	relayControlHeader = "Snodo-Relay-Control"

	kindOpen   = "open"
	kindAccept = "accept"
	kindBusy   = "busy"
	kindHead   = "head"
	kindData   = "data"
	kindEnd    = "end"
	kindAbort  = "abort"
	kindAck    = "ack"
	kindBeat   = "beat"
	kindCancel = "cancel"
)

// relayRequest is the head of a relayed HTTP request.
type relayRequest struct {
	Method string      `json:"method"`
	URI    string      `json:"uri"` // path and query
	Host   string      `json:"host"`
	Peer   string      `json:"peer"`
	Header http.Header `json:"header"`
}

// relayHead is the head of a relayed HTTP response.
type relayHead struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
}

// hopHeaders are the headers of one connection, not relayed.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// endToEnd returns a copy of h without its hop-by-hop headers.
func endToEnd(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for _, k := range hopHeaders {
		delete(out, k)
	}
	return out
}

// relayMsg builds a message of kind to subject.
func relayMsg(subject, kind string, seq uint64, data []byte) *nats.Msg {
	m := &nats.Msg{Subject: subject, Header: nats.Header{relayKindHeader: {kind}}, Data: data}
	if seq != 0 {
		m.Header[relaySeqHeader] = []string{strconv.FormatUint(seq, 10)}
	}
	return m
}

// kindOf returns a message's kind, and its seq when it has one.
func kindOf(m *nats.Msg) (string, uint64) {
	seq, _ := strconv.ParseUint(m.Header.Get(relaySeqHeader), 10, 64)
	return m.Header.Get(relayKindHeader), seq
}

// noResponders reports whether m is the server's answer that nothing
// listens on the subject a request was sent to.
func noResponders(m *nats.Msg) bool {
	return len(m.Data) == 0 && m.Header.Get("Status") == "503"
}

// mustJSON encodes v, which cannot fail for the relay's types.
func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
