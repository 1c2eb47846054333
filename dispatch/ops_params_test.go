package dispatch

import (
	"bytes"
	"strings"
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
	`{"name":"x","arguments":{},"name":"y"}`,
	`{"_m\u0065ta":{"a":1},"_meta":{},"requestState":"s","inputResponses":{}}`,
	`{"arguments":{"name":"inner"},"requestState":"a","requestState":"b"}`,
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
	// Params of 64 KiB and more are not kept in 16 bytes: found again.
	long := `{"name":"echo","arguments":{"text":"` + strings.Repeat("a", 70_000) + `"}}`
	if pm := indexParams([]byte(long)); pm.forCall().of != nil {
		t.Fatal("params over 64 KiB kept as 16-bit spans")
	}
	checkToolCallParams(t, long)
}

// A Call keeps the spans only when they are the whole answer, and notices
// its Params replaced.
func TestCallKeepsToolMembersOnlyWhenTheyAnswer(t *testing.T) {
	for in, kept := range map[string]bool{
		`{"name":"echo","arguments":{"text":"hi"}}`: true,
		`{"n\u0061me":"echo"}`:                      false,
		`{"name":"a","name":"b"}`:                   false,
		`[]`:                                        false,
	} {
		params := []byte(in)
		pm := indexParams(params)
		tm := pm.forCall()
		if got := tm.indexes(params); got != kept {
			t.Errorf("%s: kept %v, want %v", in, got, kept)
		}
		if kept && tm.indexes(bytes.Clone(params)) {
			t.Errorf("%s: a replaced Params taken for the indexed one", in)
		}
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
	checkToolCallParamsWith(t, in, nil)
	if in != "" {
		// As a Call holds them: found at admission.
		pm := indexParams([]byte(in))
		tm := pm.forCall()
		checkToolCallParamsWith(t, in, &tm)
		checkIndexAsMember(t, in, &pm)
	}
}

func checkToolCallParamsWith(t *testing.T, in string, pm *toolMembers) {
	t.Helper()
	params := []byte(in)
	if pm != nil && pm.of != nil {
		pm.of = &params[0] // the copy the index is taken to describe
	}
	var want, got callToolParams
	wantErr := decodeParams(params, &want)
	gotErr := decodeToolCallParams(params, pm, &got)
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

// checkIndexAsMember: every member the index finds is the one
// jsonwire.Member finds.
func checkIndexAsMember(t *testing.T, in string, pm *paramMembers) {
	t.Helper()
	params := []byte(in)
	pm.of = &params[0]
	for key, s := range map[string]span{"name": pm.name, "arguments": pm.arguments} {
		got, gotOK := pm.member(params, s, key)
		want, wantOK := jsonwire.Member(params, key)
		if gotOK != wantOK || !bytes.Equal(got, want) {
			t.Fatalf("%s: member %s %q (%v), want %q (%v)", in, key, got, gotOK, want, wantOK)
		}
	}
	for key, s := range map[string]span{"_meta": pm.meta, "inputResponses": pm.responses, "requestState": pm.state} {
		got, gotOK := s.in(params)
		want, wantOK := jsonwire.Member(params, key)
		if gotOK != wantOK || !bytes.Equal(got, want) {
			t.Fatalf("%s: %s %q (%v), want %q (%v)", in, key, got, gotOK, want, wantOK)
		}
	}
}
