package taskstore_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/snodo-go/snodo/taskstore"
)

func TestCodecKeepsValuesByteForByte(t *testing.T) {
	r := taskstore.Record{
		ID: taskstore.NewID(), Principal: "p\x00q", IdempotencyKey: "k", Method: "tools/call", Name: "n",
		Params:         json.RawMessage(" {\"a\" : \"<&>\"} "),
		Status:         taskstore.StatusInputRequired,
		InputRequests:  json.RawMessage(`{"x":{"method":"roots/list"}}`),
		InputResponses: json.RawMessage(`{ }`),
		State:          json.RawMessage(`"\u00e9"`),
		CreatedAt:      time.Date(2026, 7, 28, 1, 2, 3, 4, time.UTC),
		UpdatedAt:      time.Date(2026, 7, 28, 1, 2, 4, 0, time.UTC),
		TTL:            time.Hour, PollInterval: time.Second, Owner: "o", Revision: 9, Resumable: true,
	}
	b, err := taskstore.EncodeRecord(&r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := taskstore.DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Params) != string(r.Params) || string(got.State) != string(r.State) || string(got.InputResponses) != "{ }" ||
		got.Principal != r.Principal || !got.CreatedAt.Equal(r.CreatedAt) || got.Revision != 9 || !got.Resumable ||
		got.TTL != time.Hour || !got.Deadline.IsZero() || got.Result != nil {
		t.Fatalf("round trip changed the record: %+v", got)
	}
	for _, bad := range [][]byte{nil, {2}, b[:len(b)-1], append(append([]byte(nil), b...), 0)} {
		if _, err := taskstore.DecodeRecord(bad); err == nil {
			t.Fatalf("DecodeRecord(%d bytes) accepted a damaged record", len(bad))
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	r := taskstore.Record{ID: taskstore.NewID(), Method: "tools/call", Status: taskstore.StatusWorking, Params: json.RawMessage(`{}`)}
	b, _ := taskstore.EncodeRecord(&r)
	f.Add(b)
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := taskstore.DecodeRecord(b)
		if err != nil {
			return
		}
		// What decodes encodes back to the same record.
		again, err := taskstore.EncodeRecord(&r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := taskstore.DecodeRecord(again)
		if err != nil || r2.ID != r.ID || string(r2.Params) != string(r.Params) || r2.Revision != r.Revision {
			t.Fatalf("re-encoding changed the record: %v", err)
		}
	})
}
