package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func read(t *testing.T, r *Reader) []Event {
	t.Helper()
	var out []Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, ev)
	}
}

func TestReaderFields(t *testing.T) {
	stream := "event: message\r\nid: 7\r\nretry: 1500\r\ndata: {\"a\":1}\r\n\r\n" +
		": keepalive\n\n" +
		"data: one\ndata: two\n\n" +
		"id: bad\x00id\ndata:no-space\n\n" +
		"unknown: field\ndata: last" // no blank line at the end
	r := NewReader(strings.NewReader(stream), 1<<10)
	got := read(t, r)
	want := []Event{
		{Type: "message", ID: "7", Retry: 1500 * time.Millisecond, Data: []byte(`{"a":1}`)},
		{Data: []byte("one\ntwo")},
		{Data: []byte("no-space")},
		{Data: []byte("last")},
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Type != w.Type || g.ID != w.ID || g.Retry != w.Retry || !bytes.Equal(g.Data, w.Data) || g.Comment {
			t.Errorf("event %d: %+v, want %+v", i, g, w)
		}
	}
	// The id with a NUL was ignored: the last id is still the first one.
	if r.LastID != "7" || r.Retry != 1500*time.Millisecond || !r.RetrySet {
		t.Fatalf("LastID %q, Retry %v %v", r.LastID, r.Retry, r.RetrySet)
	}
}

// An event with empty data, such as the priming event of a 2025-11-25
// stream (an id, a retry field and an empty data line), or one with no
// data line at all, is read past: Next returns the next event with data,
// and the skipped event's id and retry are kept.
func TestReaderSkipsEventsWithEmptyData(t *testing.T) {
	stream := "id: 1/0\nretry: 2500\ndata: \n\n" + // priming event
		"id: 1/1\n\n" + // no data line
		"event: message\ndata:\n\n" + // a typed event with empty data
		"data:\ndata:\n\n" + // two empty lines: data "\n", not empty
		"data: x\n\n" +
		"id: 1/2\ndata:" // empty data at the end of the stream
	r := NewReader(strings.NewReader(stream), 1<<10)
	got := read(t, r)
	if len(got) != 2 || string(got[0].Data) != "\n" || string(got[1].Data) != "x" {
		t.Fatalf("events %+v, want data %q and %q", got, "\n", "x")
	}
	if r.LastID != "1/2" || r.Retry != 2500*time.Millisecond || !r.RetrySet {
		t.Fatalf("LastID %q, Retry %v %v; want 1/2, 2.5s", r.LastID, r.Retry, r.RetrySet)
	}
}

func TestReaderComments(t *testing.T) {
	r := NewReader(strings.NewReader(": keepalive\n\ndata: x\n\n: a\n: b\n\n"), 64)
	r.Comments = true
	got := read(t, r)
	if len(got) != 3 || !got[0].Comment || string(got[1].Data) != "x" || got[1].Comment || !got[2].Comment {
		t.Fatalf("%+v", got)
	}
}

func TestReaderStrict(t *testing.T) {
	r := NewReader(strings.NewReader("data: x\n\nfoo: bar\ndata: y\n\n"), 64)
	r.Strict = true
	if ev, err := r.Next(); err != nil || string(ev.Data) != "x" {
		t.Fatalf("first: %+v %v", ev, err)
	}
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), `"foo: bar"`) {
		t.Fatalf("a strict reader read an unknown field: %v", err)
	}
}

func TestReaderBounds(t *testing.T) {
	// The data of one event, across lines, is bounded...
	r := NewReader(strings.NewReader("data: 12345\ndata: 67890\n\n"), 10)
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("data over the bound: %v", err)
	}
	// ...and so is one line, before it is kept whole.
	r = NewReader(strings.NewReader(": "+strings.Repeat("x", 100)+"\n\n"), 10) // 10 + 64 < 103
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a comment line over the bound: %v", err)
	}
	// The caller's own error, when it gives one.
	mine := errors.New("mine")
	r = NewReader(strings.NewReader("data: 0123456789x\n\n"), 10)
	r.TooLarge = mine
	if _, err := r.Next(); err != mine {
		t.Fatalf("with TooLarge set: %v", err)
	}
	// At the bound is fine.
	r = NewReader(strings.NewReader("data: 0123456789\n\n"), 10)
	if ev, err := r.Next(); err != nil || string(ev.Data) != "0123456789" {
		t.Fatalf("data at the bound: %+v %v", ev, err)
	}
}

func TestReaderEndsCleanly(t *testing.T) {
	for _, s := range []string{"", "\n\n", ": only a comment\n\n", "id: 3\n\n"} {
		if ev, err := NewReader(strings.NewReader(s), 64).Next(); !errors.Is(err, io.EOF) {
			t.Errorf("%q: %+v %v, want io.EOF", s, ev, err)
		}
	}
}

func TestWriter(t *testing.T) {
	got := string(AppendEvent(nil, Event{Data: []byte(`{"jsonrpc":"2.0"}`)}))
	if got != "data: {\"jsonrpc\":\"2.0\"}\n\n" {
		t.Fatalf("plain event: %q", got)
	}
	got = string(AppendEvent([]byte("x"), Event{Type: "message", ID: "1/2", Retry: 3 * time.Second, Data: []byte("a\nb")}))
	if got != "xevent: message\nid: 1/2\nretry: 3000\ndata: a\ndata: b\n\n" {
		t.Fatalf("full event: %q", got)
	}
	if got := string(AppendComment(nil, "keepalive")); got != ": keepalive\n\n" {
		t.Fatalf("comment: %q", got)
	}
}

// What the writer writes, the reader reads back.
func FuzzRoundTrip(f *testing.F) {
	f.Add("message", "7", int64(1500), []byte(`{"jsonrpc":"2.0","id":1}`))
	f.Add("", "", int64(0), []byte("a\nb\n"))
	f.Add("", "x", int64(1), []byte(""))
	f.Fuzz(func(t *testing.T, typ, id string, retryMS int64, data []byte) {
		if strings.ContainsAny(typ+id, "\r\n\x00") || bytes.ContainsAny(data, "\r") || retryMS < 0 || retryMS > 1<<31 {
			t.Skip("not a value the format can carry")
		}
		ev := Event{Type: typ, ID: id, Retry: time.Duration(retryMS) * time.Millisecond, Data: data}
		r := NewReader(bytes.NewReader(AppendEvent(nil, ev)), len(data)+len(typ)+len(id)+1)
		got, err := r.Next()
		if len(data) == 0 {
			// An event with empty data is read past; its id and retry
			// are kept.
			if !errors.Is(err, io.EOF) || r.LastID != id || r.Retry != ev.Retry || r.RetrySet != (retryMS > 0) {
				t.Fatalf("event with empty data: Next %+v, %v; LastID %q, Retry %v %v", got, err, r.LastID, r.Retry, r.RetrySet)
			}
			return
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if got.Type != typ || got.ID != id || got.Retry != ev.Retry || !bytes.Equal(got.Data, data) {
			t.Fatalf("read back %+v, wrote %+v", got, ev)
		}
	})
}
