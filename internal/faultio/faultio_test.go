package faultio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestShortReadsDeliverEverything(t *testing.T) {
	r := &Reader{R: strings.NewReader("hello, world"), MaxRead: 5}
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	if n != 5 || err != nil {
		t.Fatalf("first read: %d %v", n, err)
	}
	rest, err := io.ReadAll(r)
	if err != nil || string(buf[:n])+string(rest) != "hello, world" {
		t.Fatalf("%q %q %v", buf[:n], rest, err)
	}
}

func TestReadReturnsDataWithTheError(t *testing.T) {
	boom := errors.New("boom")
	r := &Reader{R: strings.NewReader("abcdef"), Err: boom, FailAfter: 4, WithData: true}
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	if string(buf[:n]) != "abcd" || !errors.Is(err, boom) {
		t.Fatalf("read %q, %v; want the four bytes with the error", buf[:n], err)
	}
	if n, err := r.Read(buf); n != 0 || !errors.Is(err, boom) {
		t.Fatalf("after the failure: %d %v", n, err)
	}
	// Without WithData the bytes come first and the error on the next call.
	r = &Reader{R: strings.NewReader("abcdef"), Err: boom, FailAfter: 4}
	if n, err := r.Read(buf); n != 4 || err != nil {
		t.Fatalf("%d %v", n, err)
	}
	if _, err := r.Read(buf); !errors.Is(err, boom) {
		t.Fatalf("%v", err)
	}
}

func TestWriterFaults(t *testing.T) {
	var out bytes.Buffer
	w := &Writer{W: &out, MaxWrite: 3}
	if n, err := w.Write([]byte("abcdef")); n != 3 || !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("short write: %d %v", n, err)
	}
	loose := &Writer{W: &out, MaxWrite: 3, ShortWithoutError: true}
	if n, err := loose.Write([]byte("abcdef")); n != 3 || err != nil {
		t.Fatalf("short write without error: %d %v", n, err)
	}
	boom := errors.New("device gone")
	out.Reset()
	f := &Writer{W: &out, Err: boom, FailAfter: 5}
	if n, err := f.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("%d %v", n, err)
	}
	if n, err := f.Write([]byte("defgh")); n != 2 || !errors.Is(err, boom) {
		t.Fatalf("the write crossing the bound: %d %v", n, err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, boom) {
		t.Fatalf("after the failure: %v", err)
	}
	if out.String() != "abcde" || f.BytesWritten() != 5 || f.CallsAfterFailure() != 1 {
		t.Fatalf("out %q, written %d, calls after failure %d", out.String(), f.BytesWritten(), f.CallsAfterFailure())
	}
}
