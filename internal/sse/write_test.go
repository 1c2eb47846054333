package sse_test

import (
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/sse"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestEvent(t *testing.T) {
	for _, tc := range []struct {
		ev   sse.Event
		want string
	}{
		{sse.Event{Data: []byte(`{"a":1}`)}, "data: {\"a\":1}\n\n"},
		{sse.Event{ID: "3-7", Data: []byte(`{}`)}, "id: 3-7\ndata: {}\n\n"},
		{sse.Event{ID: "3-0", Retry: 1500 * time.Millisecond}, "id: 3-0\nretry: 1500\ndata:\n\n"},
	} {
		if got := string(tc.ev.Bytes()); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.ev, got, tc.want)
		}
	}
	if got := string(sse.Comment("keepalive")); got != ": keepalive\n\n" {
		t.Errorf("comment %q", got)
	}
}
