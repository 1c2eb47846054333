package dispatch

import (
	"bytes"
	"testing"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

var toolCallParams = []string{
	``,
	`{}`,
	`{"name":"echo","arguments":{"text":"hi"},"_meta":{"a":{"b":[1,2,"x"]}}}`,
	`{"_meta":{"name":"no"},"arguments":{"x":1},"name":"echo"}`,
	`{"name":"e\u0063ho"}`,
	`{"n\u0061me":"echo"}`,
	`{"name":"a","name":"b"}`,
	`{"arguments":{},"arguments":[]}`,
	`{"name":null,"arguments":null}`,
	`{"name":5}`,
	`{"name":{"x":1}}`,
	`{"name":true,"arguments":1}`,
	`{"Name":"echo"}`,
	`{"name":"echo","arguments":"str"}`,
	`[]`,
	`"x"`,
	`null`,
}

// decodeToolCallParams must give what decodeParams gives, error included.
func TestToolCallParamsDecodeAsBefore(t *testing.T) {
	for _, in := range toolCallParams {
		checkToolCallParams(t, in)
	}
}

func FuzzToolCallParamsDecodeAsBefore(f *testing.F) {
	for _, in := range toolCallParams {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if in != "" && !jsonwire.Valid([]byte(in)) {
			return // params reach the operation only after Decode
		}
		checkToolCallParams(t, in)
	})
}

func checkToolCallParams(t *testing.T, in string) {
	t.Helper()
	var want, got callToolParams
	wantErr := decodeParams([]byte(in), &want)
	gotErr := decodeToolCallParams([]byte(in), &got)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("%s: error %v, want %v", in, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if (want.Name == nil) != (got.Name == nil) || (want.Name != nil && *want.Name != *got.Name) {
		t.Fatalf("%s: name %v, want %v", in, got.Name, want.Name)
	}
	if !bytes.Equal(want.Arguments, got.Arguments) {
		t.Fatalf("%s: arguments %q, want %q", in, got.Arguments, want.Arguments)
	}
}
