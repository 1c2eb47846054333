package dispatch

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/snodo-go/snodo/internal/jsonwire"
)

// salientParams decodes params with encoding/json (not the code under
// test) and drops the members that change between MRTR rounds.
func salientParams(params []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	for _, k := range []string{"_meta", "inputResponses", "requestState"} {
		delete(m, k)
	}
	return m, true
}

func testSealer(t testing.TB, now *time.Time, secrets ...string) *stateSealer {
	s := &stateSealer{now: func() time.Time { return *now }}
	for _, k := range secrets {
		s.keys = append(s.keys, stateKey{id: keyID([]byte(k)), secret: []byte(k)})
	}
	if err := s.finish(); err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzRequestState seals a state, then opens it, or a tampered copy, or
// an arbitrary token, for a fuzzed method, params, principal and time.
// Opening never panics; a token that differs from the sealed one in any
// byte never opens; the sealed token opens, with exactly the sealed state,
// only for the same method, the same salient params, the same principal
// and before expiry; a token sealed under a key the verifier does not
// hold never opens.
func FuzzRequestState(f *testing.F) {
	const (
		keyA = "0123456789abcdef0123456789abcdef"
		keyB = "fedcba9876543210fedcba9876543210"
	)
	params := `{"name":"deploy","arguments":{"env":"prod","n":1}}`
	f.Add([]byte("state"), params, "tools/call", params, "alice", "alice", uint16(0), []byte(nil), uint16(0), "", false)
	f.Add([]byte("state"), params, "tools/call", `{"arguments":{"n":1,"env":"prod"},"name":"deploy","_meta":{"x":1}}`, "alice", "alice", uint16(10), []byte(nil), uint16(0), "", false)
	f.Add([]byte("state"), params, "tools/call", `{"name":"deploy","arguments":{"env":"dev","n":1}}`, "alice", "alice", uint16(0), []byte(nil), uint16(0), "", false)
	f.Add([]byte("state"), params, "prompts/get", params, "alice", "alice", uint16(0), []byte(nil), uint16(0), "", false)
	f.Add([]byte("state"), params, "tools/call", params, "alice", "mallory", uint16(0), []byte(nil), uint16(0), "", false)
	f.Add([]byte("state"), params, "tools/call", params, "alice", "alice", uint16(300), []byte(nil), uint16(0), "", false)
	f.Add([]byte("state"), params, "tools/call", params, "alice", "alice", uint16(0), []byte{1}, uint16(0), "", false)
	f.Add([]byte("state"), params, "tools/call", params, "alice", "alice", uint16(0), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, uint16(0), "", false)
	f.Add([]byte("state"), params, "tools/call", params, "alice", "alice", uint16(0), []byte(nil), uint16(5), "", false)
	f.Add([]byte("state"), params, "tools/call", params, "alice", "alice", uint16(0), []byte(nil), uint16(0), "", true)
	f.Add([]byte(nil), `{}`, "tools/call", `{}`, "", "", uint16(0), []byte(nil), uint16(0), "s1.x.e30.AAAA", false)
	f.Fuzz(func(t *testing.T, state []byte, sealParams, method, openParams, sealPrincipal, openPrincipal string,
		advance uint16, flip []byte, cut uint16, raw string, otherKey bool) {
		if len(state) > 1024 || !jsonwire.Valid([]byte(sealParams)) || !jsonwire.Valid([]byte(openParams)) {
			return
		}
		sealSalient, ok1 := salientParams([]byte(sealParams))
		openSalient, ok2 := salientParams([]byte(openParams))
		if !ok1 || !ok2 {
			return
		}
		now := time.UnixMilli(1_800_000_000_000)
		sealer := testSealer(t, &now, keyA)
		verifier := sealer
		if otherKey {
			verifier = testSealer(t, &now, keyB)
		}
		token, err := sealer.seal(state, "tools/call", []byte(sealParams), sealPrincipal)
		if err != nil {
			return // params the digest cannot canonicalise
		}
		presented := token
		switch {
		case raw != "":
			presented = raw
		case len(flip) > 0 || cut > 0:
			b := []byte(token)
			for i, x := range flip { // from the end, where the MAC is
				b[len(b)-1-i%len(b)] ^= x
			}
			if c := int(cut) % (len(b) + 1); c > 0 {
				b = b[:len(b)-c]
			}
			presented = string(b)
		}
		now = now.Add(time.Duration(advance) * time.Second)
		got, err := verifier.open(presented, method, []byte(openParams), openPrincipal)
		if presented != token || otherKey {
			if err == nil {
				t.Fatalf("a token that is not the sealed one opened (tampered %t, other key %t):\nsealed    %q\npresented %q", presented != token, otherKey, token, presented)
			}
			return
		}
		want := method == "tools/call" && reflect.DeepEqual(sealSalient, openSalient) &&
			sealPrincipal == openPrincipal && advance < uint16(defaultStateTTL/time.Second)
		if want != (err == nil) {
			t.Fatalf("open = %v, want success %t (method %q, principal %q/%q, %d s later, params %s / %s)",
				err, want, method, sealPrincipal, openPrincipal, advance, sealParams, openParams)
		}
		if err == nil && !bytes.Equal(got, state) {
			t.Fatalf("opened state %q, sealed %q", got, state)
		}
	})
}

// The MAC's last base64 character carries two unused bits; a lenient
// decoder read four spellings of it as the same MAC, so altered tokens
// opened (found by FuzzRequestState). Every other spelling is refused.
func TestRequestStateMACHasOneSpelling(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	s := testSealer(t, &now, "0123456789abcdef0123456789abcdef")
	params := []byte(`{"name":"deploy"}`)
	token, err := s.seal([]byte("st"), "tools/call", params, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.open(token, "tools/call", params, "alice"); err != nil {
		t.Fatalf("the sealed token: %v", err)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for _, c := range []byte(alphabet) {
		altered := token[:len(token)-1] + string(c)
		if altered == token {
			continue
		}
		if _, err := s.open(altered, "tools/call", params, "alice"); err == nil {
			t.Errorf("a token ending in %q instead of %q opened", c, token[len(token)-1])
		}
	}
}
