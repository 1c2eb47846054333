package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

// testLogger sends the Runtime's warnings to the test log.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// The stdio mode serves what it reads and exits 0 at end of input.
func TestRunStdio(t *testing.T) {
	in := bytes.NewReader(append(testkit.Request(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}), '\n'))
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"-transport", "stdio"}, in, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	c := testkit.NewClient(&out, io.Discard)
	frames := c.WaitClosed(t)
	c.CheckFrames(t)
	if len(frames) != 1 || !strings.Contains(string(frames[0].Result), `"text":"hi"`) {
		t.Fatalf("frames: %v", frames)
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-transport", "carrier-pigeon"}, {"-nonsense"}} {
		var errs bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), io.Discard, &errs); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if errs.Len() == 0 {
			t.Errorf("%v: nothing on stderr", args)
		}
	}
}
