package jsonrpc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

func decodeErr(t *testing.T, in string) *DecodeError {
	t.Helper()
	m, err := Decode([]byte(in))
	if err == nil {
		t.Fatalf("Decode(%.80q) = %+v, want an error", in, m)
	}
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("Decode(%.80q) error %T is not a *DecodeError", in, err)
	}
	return de
}

func TestIntegerDigitBound(t *testing.T) {
	d64 := strings.Repeat("9", 64)
	d65 := strings.Repeat("9", 65)
	for _, tc := range []struct {
		name string
		num  string
		ok   bool
	}{
		{"64 digits", d64, true},
		{"65 digits", d65, false},
		{"64 digits negative (sign not counted)", "-" + d64, true},
		{"65 digits negative", "-" + d65, false},
		{"64-digit fraction", "0." + d64, true},
		{"65-digit fraction", "0." + d65, false},
		{"64-digit exponent", "1e" + d64, true},
		{"65-digit exponent", "1e" + d65, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":` + tc.num + `}}`
			_, err := Decode([]byte(in))
			if tc.ok && err != nil {
				t.Fatalf("want accepted, got %v", err)
			}
			if !tc.ok {
				de := decodeErr(t, in)
				if de.Err.Code != CodeParseError || !de.Reply || !de.ID.isNull() {
					t.Fatalf("want -32700 with null id, got %+v", de)
				}
			}
		})
	}
}

// A two-million-digit literal is a parse error (the scanner's own test,
// in internal/jsonwire, shows it stops at the 65th digit).
func TestHugeIntegerStopsAtBound(t *testing.T) {
	huge := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":` + strings.Repeat("7", 2_000_000) + `}}`)
	if de := decodeErr(t, string(huge)); de.Err.Code != CodeParseError {
		t.Fatalf("code = %d, want -32700", de.Err.Code)
	}
}

func TestIDBounds(t *testing.T) {
	s256 := strings.Repeat("a", 256)
	s257 := strings.Repeat("a", 257)
	for _, tc := range []struct {
		name, id string
		want     string // JSON of the id echoed back; "" means -32600 with null id
	}{
		{"int", `7`, `7`},
		{"zero", `0`, `0`},
		{"int64 max", `9223372036854775807`, `9223372036854775807`},
		{"int64 min", `-9223372036854775808`, `-9223372036854775808`},
		{"int64 max + 1", `9223372036854775808`, ""},
		{"int64 min - 1", `-9223372036854775809`, ""},
		{"256-byte string", `"` + s256 + `"`, `"` + s256 + `"`},
		{"257-byte string", `"` + s257 + `"`, ""},
		{"escaped string decoded before the bound", `"` + strings.Repeat(`\u0061`, 256) + `"`, `"` + s256 + `"`},
		{"escaped string over the bound", `"` + strings.Repeat(`\u0061`, 257) + `"`, ""},
		{"multibyte string within 256 bytes", `"` + strings.Repeat("é", 128) + `"`, `"` + strings.Repeat(`\u00e9`, 128) + `"`},
		{"multibyte string over 256 bytes", `"` + strings.Repeat("é", 129) + `"`, ""},
		{"null", `null`, ""},
		{"fraction", `1.5`, ""},
		{"integral float", `1.0`, ""},
		{"exponent", `1e3`, ""},
		{"bool", `true`, ""},
		{"object", `{}`, ""},
		{"array", `[1]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"jsonrpc":"2.0","id":` + tc.id + `,"method":"m"}`
			m, err := Decode([]byte(in))
			if tc.want == "" {
				de := decodeErr(t, in)
				if de.Err.Code != CodeInvalidRequest || !de.ID.isNull() || !de.Reply {
					t.Fatalf("want -32600 with null id, got %+v", de)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got := string(m.ID.AppendJSON(nil)); got != tc.want {
				t.Fatalf("id = %s, want %s", got, tc.want)
			}
			// encoding/json writes the id the same way.
			if b, err := json.Marshal(m.ID); err != nil || string(b) != tc.want {
				t.Fatalf("json.Marshal(id) = %s, %v, want %s", b, err, tc.want)
			}
		})
	}
}

func TestEnvelope(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		kind      Kind
		errCode   int64
		reply     bool
		replyNull bool
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, KindRequest, 0, false, false},
		{"request with null params", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, KindRequest, 0, false, false},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, 0, false, false},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, KindResponse, 0, false, false},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, KindResponse, 0, false, false},
		{"response with a bad id is still silent", `{"jsonrpc":"2.0","id":1.5,"result":{}}`, KindResponse, 0, false, false},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"m"}]`, 0, CodeInvalidRequest, true, true},
		{"empty batch", `[]`, 0, CodeInvalidRequest, true, true},
		{"not an object", `"hello"`, 0, CodeInvalidRequest, true, true},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"m"} x`, 0, CodeParseError, true, true},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"m"}{}`, 0, CodeParseError, true, true},
		{"syntax error", `{"jsonrpc":"2.0","id":1,`, 0, CodeParseError, true, true},
		{"empty", ``, 0, CodeParseError, true, true},
		{"wrong version, request", `{"jsonrpc":"1.0","id":1,"method":"m"}`, 0, CodeInvalidRequest, true, false},
		{"missing version, request", `{"id":1,"method":"m"}`, 0, CodeInvalidRequest, true, false},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":3}`, 0, CodeInvalidRequest, true, false},
		{"missing method", `{"jsonrpc":"2.0","id":1}`, 0, CodeInvalidRequest, true, false},
		{"array params", `{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`, 0, CodeInvalidRequest, true, false},
		{"duplicate id member", `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, 0, CodeInvalidRequest, true, true},
		{"duplicate method member", `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, 0, CodeInvalidRequest, true, true},
		{"malformed notification: wrong version", `{"jsonrpc":"1.0","method":"n"}`, 0, CodeInvalidRequest, false, false},
		{"malformed notification: method type", `{"jsonrpc":"2.0","method":1}`, 0, CodeInvalidRequest, false, false},
		{"malformed notification: params type", `{"jsonrpc":"2.0","method":"n","params":"x"}`, 0, CodeInvalidRequest, false, false},
		{"escaped member names are recognised", `{"\u006aSonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"m"}`, KindRequest, 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode([]byte(tc.in))
			if tc.errCode == 0 {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if m.Kind != tc.kind {
					t.Fatalf("kind = %v, want %v", m.Kind, tc.kind)
				}
				return
			}
			de := decodeErr(t, tc.in)
			if de.Err.Code != tc.errCode || de.Reply != tc.reply {
				t.Fatalf("got code %d reply %t, want %d %t", de.Err.Code, de.Reply, tc.errCode, tc.reply)
			}
			if tc.reply && tc.replyNull != de.ID.isNull() {
				t.Fatalf("null id = %t, want %t", de.ID.isNull(), tc.replyNull)
			}
		})
	}
}

func TestParseErrorsAreNeverAnsweredWithAnID(t *testing.T) {
	de := decodeErr(t, `{"jsonrpc":"2.0","id":5,"method":"m","params":{"a":tru}}`)
	if !de.ID.isNull() || de.Err.Code != CodeParseError {
		t.Fatalf("got %+v", de)
	}
}

func TestInvalidUTF8IsAParseError(t *testing.T) {
	for _, in := range [][]byte{
		[]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"\xff\"}}"),
		[]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\"}"),
		[]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\xe2\x82"),
		[]byte("{\"\xed\xa0\x80\":1}"), // an encoded surrogate is not UTF-8
	} {
		de := decodeErr(t, string(in))
		if de.Err.Code != CodeParseError {
			t.Fatalf("%q: code %d, want -32700", in, de.Err.Code)
		}
	}
}

func TestDepthBound(t *testing.T) {
	nest := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
	}
	// The envelope and params objects take two levels.
	if _, err := Decode([]byte(nest(jsonwire.MaxDepth - 2))); err != nil {
		t.Fatalf("depth %d refused: %v", jsonwire.MaxDepth, err)
	}
	de := decodeErr(t, nest(jsonwire.MaxDepth-1))
	if de.Err.Code != CodeParseError || !strings.Contains(de.Err.Message, "deep") {
		t.Fatalf("got %+v", de.Err)
	}
}

// The scanner accepts exactly what encoding/json accepts, for a corpus of
// tricky inputs within the bounds.
func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e10`, `1E+5`, `-1.0e-5`, `true`, `false`, `null`,
		`01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `--1`, `[1,]`, `{"a":1,}`, `[1 2]`, `{"a" 1}`,
		`{a:1}`, `"\x"`, "\"a\tb\"", `"\u12"`, `"\ud800"`, `"\ud83d\ude00"`, `tru`, `nul`, `[1]]`,
		`{"a":[1,{"b":null}]}`, ` {"a" : [ 1 , 2 ] } `, `"\/\b\f\n\r\t\"\\"`, `[,1]`, `{,}`, `nan`,
		"\"\u2028\"", `{"a":1}{}`, `[1,2]x`, "{\"a\":1}\n",
	} {
		if got, want := jsonwire.Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("jsonwire.Valid(%q) = %t, encoding/json says %t", in, got, want)
		}
	}
}

func TestMember(t *testing.T) {
	obj := []byte(`{"a":1,"\u0062":{"c":[1,2]},"d":"x"}`)
	if v, ok := jsonwire.Member(obj, "b"); !ok || string(v) != `{"c":[1,2]}` {
		t.Fatalf("Member b = %s %t", v, ok)
	}
	if _, ok := jsonwire.Member(obj, "z"); ok {
		t.Fatal("found a missing member")
	}
	if _, ok := jsonwire.Member([]byte(`[1]`), "a"); ok {
		t.Fatal("found a member of an array")
	}
}
